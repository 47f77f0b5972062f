#!/bin/sh
# viz_frame_budget.sh DVSIM OUTDIR [LIMIT_MS] - the headless loop keeps frames
# within a 60 Hz budget while a heavy simulation runs (an 8192 x 8192 x 2048
# matmul on all 32 cores, each frame asking for more cycles than fit in the
# budget of 6 ms of simulation):
# the 95th-percentile frame time dvsim viz reports must stay under LIMIT_MS
# (default 16.7). Headless, frame times are the thread's CPU time, so the
# check holds on a loaded host.
set -u
D=$1 OUT=$2 LIMIT=${3:-16.7}
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
"$D" viz matmul --variant db --no-data --shape M=8192,N=8192,K=2048 --headless --frames 200 \
    --cycles-per-frame 20000 --budget 6 \
    --frame-stats >"$OUT/out.txt" 2>&1
rc=$?
grep '^viz:' "$OUT/out.txt"
[ $rc -eq 0 ] || { cat "$OUT/out.txt"; echo "FAIL: dvsim viz exited $rc"; exit 1; }
p95=$(sed -n 's/^viz: .* p95 \([0-9.]*\) ms.*/\1/p' "$OUT/out.txt")
frames=$(sed -n 's/^viz: \([0-9]*\) frames while.*/\1/p' "$OUT/out.txt")
[ -n "$p95" ] || { echo "FAIL: no frame-time line"; exit 1; }
[ "${frames:-0}" -ge 150 ] || { echo "FAIL: only ${frames:-0} frames while the simulation ran"; exit 1; }
awk -v p="$p95" -v l="$LIMIT" 'BEGIN { exit !(p < l) }' || { echo "FAIL: p95 $p95 ms >= $LIMIT ms"; exit 1; }
echo "frame budget ok: p95 $p95 ms < $LIMIT ms"

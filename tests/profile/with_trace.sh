#!/bin/sh
# with_trace.sh DVSIM OUTDIR - a profiled run with --trace writes the same
# trace as the plain run: with two observers the Scalar unit's instructions
# reach the profiler through the hooks' narrow `scalar` call and the trace
# writer through `insn` (the fan-out builds the event only for it), and
# neither may lose or change one.
set -u
D=$1 OUT=$2
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
set -- kernels/samples/vadd_db.dvs --gm x=random:f16:65536:1 --gm y=random:f16:65536:2 --gm z=zeros:131072 \
    --arg n=65536
"$D" run "$@" --trace "$OUT/run.json.gz" >"$OUT/run.txt" 2>&1 || { cat "$OUT/run.txt"; echo "FAIL: run"; exit 1; }
"$D" profile "$@" --trace "$OUT/prof.json.gz" >"$OUT/prof.txt" 2>&1 || { cat "$OUT/prof.txt"; echo "FAIL: profile"; exit 1; }
gzip -dc "$OUT/run.json.gz" >"$OUT/run.json" && gzip -dc "$OUT/prof.json.gz" >"$OUT/prof.json" || exit 1
cmp -s "$OUT/run.json" "$OUT/prof.json" || { echo "FAIL: the profiled run's trace differs from the plain run's"; exit 1; }
grep -q '^SCALAR ' "$OUT/prof.txt" || { echo "FAIL: no SCALAR row in the profile"; exit 1; }
echo "profile with trace ok"

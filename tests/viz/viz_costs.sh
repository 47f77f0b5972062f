#!/bin/sh
# viz_costs.sh DVSIM OUTDIR - the profile in dvsim viz: key l shows the
# per-line cost panel, p picks a pipe (SCALAR, then VECTOR), s jumps to its
# next stall.  The vadd sample's first VECTOR stall is the wait_flag at pc
# 0x70 from cycle 14 to 1055: the first tile's two loads of 32 KiB each on
# MTE2, dispatched at cycle 11 (512 cycles each at ascend910's 64 B/cycle
# GM->UB, and one 20-cycle start-up: the second load's overlaps the first's
# bytes, path.mte2_requests): 11 + 20 + 2 x 512 = 1055, a stall of 1041
# cycles (dvsim profile shows the same).  The frame with the panel must
# differ from the one without it.
set -u
D=$1 OUT=$2
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
run() {
    "$D" viz kernels/samples/vadd.dvs --gm x=random:f16:32768:1 --gm y=random:f16:32768:2 --gm z=zeros:65536 \
        --arg n=32768 --headless --cycles-per-frame 500 --frame-log "$@"
}
run --keys l,p,p,s --png "$OUT/costs.png" >"$OUT/out.txt" 2>&1 || { cat "$OUT/out.txt"; echo "FAIL: dvsim viz"; exit 1; }
grep -q '^jump: cycle 14: VECTOR flag for 1041 cycles (pc 0x70)$' "$OUT/out.txt" ||
    { cat "$OUT/out.txt"; echo "FAIL: key s did not find VECTOR's first stall"; exit 1; }
run --png "$OUT/plain.png" >"$OUT/plain.txt" 2>&1 || { cat "$OUT/plain.txt"; echo "FAIL: dvsim viz"; exit 1; }
cmp -s "$OUT/costs.png" "$OUT/plain.png" && { echo "FAIL: key l changed nothing on screen"; exit 1; }
echo "viz costs ok"

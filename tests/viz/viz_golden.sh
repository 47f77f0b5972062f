#!/bin/sh
# viz_golden.sh DVSIM PNG_COMPARE OUTDIR - a headless frame of a short run
# against the committed golden image, pixel for pixel.  Run from the source
# root (the pointer's source line is read from kernels/samples/vadd.dvs).
#
# To regenerate the golden image after an intended change of the view or of
# the model's timing (look at the new frame first), from the source root:
#   ./build/cli/dvsim viz kernels/samples/vadd.dvs --gm x=random:f16:65536:1 \
#       --gm y=random:f16:65536:2 --gm z=zeros:131072 --arg n=65536 --headless --frames 30 \
#       --cycles-per-frame 100 --span 3000 --hover 300,222 --png tests/viz/golden/vadd.png
set -u
D=$1 PC=$2 OUT=$3
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
"$D" viz kernels/samples/vadd.dvs --gm x=random:f16:65536:1 --gm y=random:f16:65536:2 --gm z=zeros:131072 \
    --arg n=65536 --headless --frames 30 --cycles-per-frame 100 --span 3000 --hover 300,222 \
    --png "$OUT/vadd.png" >"$OUT/out.txt" 2>&1 || { cat "$OUT/out.txt"; echo "FAIL: dvsim viz"; exit 1; }
"$PC" "$OUT/vadd.png" tests/viz/golden/vadd.png || { echo "FAIL: the frame is $OUT/vadd.png"; exit 1; }

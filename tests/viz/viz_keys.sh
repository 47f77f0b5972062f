#!/bin/sh
# viz_keys.sh DVSIM OUTDIR - the controls, scripted: --keys presses one key
# per frame (space pauses and resumes, n steps one instruction, c steps 100
# cycles, tab picks the next core, + - zoom, left pans, f follows, q quits);
# --frame-log prints each frame's cycle, state and the instructions seen.
# The log must equal keys.expected.  To regenerate it after an intended
# change, from the source root:
#   ./build/cli/dvsim viz kernels/samples/vadd.dvs --gm x=random:f16:65536:1 \
#       --gm y=random:f16:65536:2 --gm z=zeros:131072 --arg n=65536 --headless --cycles-per-frame 100 \
#       --frames 12 --keys space,x,n,n,n,c,c,space,tab,+,-,left,f,q --frame-log | grep '^frame' \
#       > tests/viz/keys.expected
set -u
D=$1 OUT=$2
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
"$D" viz kernels/samples/vadd.dvs --gm x=random:f16:65536:1 --gm y=random:f16:65536:2 --gm z=zeros:131072 \
    --arg n=65536 --headless --cycles-per-frame 100 --frames 12 --keys space,x,n,n,n,c,c,space,tab,+,-,left,f,q \
    --frame-log >"$OUT/out.txt" 2>&1 || { cat "$OUT/out.txt"; echo "FAIL: dvsim viz"; exit 1; }
grep '^frame' "$OUT/out.txt" >"$OUT/frames.txt"
diff -u tests/viz/keys.expected "$OUT/frames.txt" || { echo "FAIL: the frames differ from keys.expected"; exit 1; }
echo "keys ok: $(wc -l <"$OUT/frames.txt") frames as expected"

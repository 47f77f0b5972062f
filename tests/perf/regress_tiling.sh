#!/bin/sh
# regress_tiling.sh DVSIM BASELINE - a deliberate change to one kernel's
# tiling (matmul's tile forced to 64 rows) must make dvsim regress fail
# with a table of what moved; --bless then records it and regress passes.
set -eu
dvsim=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
entry='matmul/db/f16/M=256,N=192,K=320'
# The baseline with that entry's shape changed: same figures, new tiling.
sed 's/"shape":[[:space:]]*"M=256,N=192,K=320"/"shape": "M=256,N=192,K=320,TM=64"/' "$2" > "$work/b.json"
grep -q 'TM=64' "$work/b.json"
if "$dvsim" regress --baseline "$work/b.json" --filter "$entry,TM=64/*" > "$work/out" 2>&1; then
    echo "regress passed after a tiling change"; cat "$work/out"; exit 1
fi
cat "$work/out"
grep -q '^matmul/db/f16/M=256,N=192,K=320,TM=64/ascend910 *cycles' "$work/out"
grep -q 'drifted' "$work/out"
"$dvsim" regress --baseline "$work/b.json" --filter "$entry,TM=64/*" --bless
"$dvsim" regress --baseline "$work/b.json" --filter "$entry,TM=64/*"
# the other entries did not move either way
"$dvsim" regress --baseline "$work/b.json" --filter 'add/*'
echo "regress-tiling: ok"

#!/bin/sh
# repeat_stats.sh DVSIM SOURCE WORKDIR - ten runs of the same kernel must
# write byte-identical stats.json (the model is deterministic).
set -eu
dvsim=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
for i in 1 2 3 4 5 6 7 8 9 10; do
    "$dvsim" run "$src" --gm x=random:f16:32768:1 --gm y=random:f16:32768:2 --gm z=zeros:65536 \
        --arg n=32768 --out "$work/run$i" > /dev/null
    cmp "$work/run1/stats.json" "$work/run$i/stats.json"
done
echo "10 runs: identical stats.json"

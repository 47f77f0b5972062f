#!/bin/sh
# vector_exact.sh DVSIM WORKDIR - the Vector unit's bank-conflict shortcuts
# (the cost cached per shape, and one period of repeats standing for the
# rest: sim/units/vector/vector.c) give the cycles and statistics of the
# plain computation of every repeat (DVSIM_VECTOR_EXACT=1), on operators and
# samples with strides, broadcasts, reductions and running offsets.
set -eu
dvsim=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
n=0
same() { # ARGS...
    n=$((n + 1))
    "$dvsim" run "$@" --no-data --out "$work/fast$n" > "$work/fast$n.txt" 2>&1
    DVSIM_VECTOR_EXACT=1 "$dvsim" run "$@" --no-data --out "$work/exact$n" > "$work/exact$n.txt" 2>&1
    cmp "$work/fast$n/stats.json" "$work/exact$n/stats.json" || { echo "differs: $*"; exit 1; }
}
same softmax
same softmax --shape R=300,C=1000 --dtype f32 --blocks 1
same softmax --shape R=77,C=4096 --chip ascend910b
same softmax --shape R=64,C=48 --blocks 3
same layernorm
same layernorm --shape R=200,C=700 --dtype f32 --chip ascend910b
same add --shape N=100000
same relu --dtype f32 --shape N=65536
same attention --chip ascend910b
same conv2d_bias_relu
samples=$(dirname "$0")/../../kernels/samples
same "$samples/vadd_loop.dvs" --arg n=2000
same "$(dirname "$0")/vector_exact/overlap.dvs"
same "$(dirname "$0")/vector_exact/loop_mask.dvs"
for k in vadd vadd_db; do
    same "$samples/$k.dvs" --gm x=zeros:262144 --gm y=zeros:262144 --gm z=zeros:262144 --arg n=131072
done
echo "the same cycles and statistics with and without the shortcuts, $n runs"

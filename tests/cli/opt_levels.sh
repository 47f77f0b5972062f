#!/bin/sh
# opt_levels.sh DVSIM_A DVSIM_B WORKDIR - two builds of dvsim (say -O0 and
# -O2) give the same stats.json, output dumps and traces on operators with
# data (their checks included, with OpenBLAS and with the C kernels) and on a
# timing-only vector kernel. Not in the suite (it needs a second build):
#   meson setup build-O0 --buildtype=debug && ninja -C build-O0 cli/dvsim
#   sh tests/cli/opt_levels.sh build-O0/cli/dvsim build/cli/dvsim /tmp/opt
set -eu
a=$1 b=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
same() { # NAME OUT ARGS...
    name=$1 out=$2
    shift 2
    for x in a b; do
        eval bin=\$$x
        "$bin" run "$@" --out "$work/$name.$x" --trace "$work/$name.$x.json.gz" \
            ${out:+--dump "$out=$work/$name.$x.bin"} > /dev/null 2>&1
    done
    cmp "$work/$name.a/stats.json" "$work/$name.b/stats.json"
    cmp "$work/$name.a.json.gz" "$work/$name.b.json.gz"
    [ -z "$out" ] || cmp "$work/$name.a.bin" "$work/$name.b.bin"
    echo "$name: the same"
}
same matmul c matmul --shape M=300,N=700,K=600
export DVSIM_NO_OPENBLAS=1
same matmul-c-kernels c matmul --shape M=300,N=700,K=600
unset DVSIM_NO_OPENBLAS
same matmul-s8 c matmul --shape M=200,N=96,K=300 --dtype s8-vdeq --chip ascend910b
same conv2d y conv2d --shape N=2,C=32,H=20,W=20,Co=48
same attention o attention --shape B=1,H=2,SQ=300,SK=200,D=64 --chip ascend910b
same softmax y softmax --shape R=300,C=1000
same vadd_loop "" kernels/samples/vadd_loop.dvs --no-data --arg n=20000
same matmul-nodata "" matmul --no-data --shape M=2048,N=2048,K=2048

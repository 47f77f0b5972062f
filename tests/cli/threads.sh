#!/bin/sh
# threads.sh DVSIM WORKDIR - the simulation's functional work (products and
# copies on a pool of host threads, joined before anything observes them)
# and the reference check on 1, 2 and 4 host threads (--threads):
# byte-identical stats.json (its op.* figures: the elements compared, the
# mismatches, the largest errors), output dumps and traces, for the
# operators whose check is a product, on one core and on many; and
# async.dvs, whose later instructions read back what work in flight wrote
# (nd2nz into L1 read by a Scalar load and by copy_l1_ub, UB read by
# copy_ub_gm) and overwrite GM another core's nd2nz read, also with
# DVSIM_DEFER_WORK=1 (work runs only when joined: a missing join shows).
set -eu
dvsim=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
run() { # NAME OP SHAPE OUTPUT [ARGS]
    name=$1 op=$2 shape=$3 out=$4
    shift 4
    for t in 1 2 4; do
        "$dvsim" run "$op" --shape "$shape" --threads $t --out "$work/$name$t" --dump "$out=$work/$name$t.bin" \
            --trace "$work/$name$t.json.gz" "$@" > "$work/$name$t.txt" 2>&1
        grep -q "check: PASS" "$work/$name$t.txt"
        grep -q "host: .*CPU [0-9.]* s; .*$t thread" "$work/$name$t.txt" || [ $t -eq 1 ] || [ "$small" ] || {
            echo "$name: --threads $t: the check did not use $t threads:"; grep host: "$work/$name$t.txt"; exit 1; }
        st=$t
        [ "$one_core" ] && st=1 # one core's products follow one another: no pool
        grep -q "host: .*simulation [0-9.]* s ($st thread" "$work/$name$t.txt" || {
            echo "$name: --threads $t: the simulation did not use $t threads:"; grep host: "$work/$name$t.txt"; exit 1; }
    done
    for t in 2 4; do
        cmp "$work/${name}1/stats.json" "$work/$name$t/stats.json"
        cmp "$work/${name}1.bin" "$work/$name$t.bin"
        cmp "$work/${name}1.json.gz" "$work/$name$t.json.gz"
    done
    echo "$name: the same stats, outputs and trace on 1, 2 and 4 threads"
}
small= one_core=
run matmul matmul M=1100,N=300,K=200 c
small=1 # the check of a small product runs on fewer threads
one_core=1
run matmul1 matmul M=300,N=200,K=700 c --blocks 1 --variant db
one_core=
run matmul32 matmul M=512,N=512,K=256 c --variant db
run matmul_s8 matmul M=160,N=96,K=640 c --dtype s8-deq
small=
run conv2d conv2d N=2,C=32,H=20,W=20,Co=48 y
run attention attention B=1,H=2,SQ=300,SK=200,D=64 o --chip ascend910b

# async.dvs on 8 cores: --threads 1 has no pool (every effect at once)
k="$(dirname "$0")/async.dvs"
for t in 1 2 4 d; do
    env=; n=$t
    [ $t = d ] && env=DVSIM_DEFER_WORK=1 n=2
    env $env "$dvsim" run "$k" --blocks 8 --threads $n --gm a=random:f16:4096:1 --gm shr=random:f16:4096:2 \
        --gm out=zeros:32768 --dump out="$work/async$t.bin" --out "$work/async$t" --trace "$work/async$t.json.gz" \
        > "$work/async$t.txt" 2>&1
done
for t in 2 4 d; do
    cmp "$work/async1.bin" "$work/async$t.bin"
    cmp "$work/async1/stats.json" "$work/async$t/stats.json"
    cmp "$work/async1.json.gz" "$work/async$t.json.gz"
done
echo "async: the same outputs, stats and trace on 1, 2 and 4 threads and deferred"

#!/bin/sh
# trace_ops.sh DVSIM TRACE_CHECK DIR - traces every operator and variant that
# `dvsim ops` lists (small shapes) and validates each trace against the run's
# stats.json.  Operators this script does not know get small shapes from
# their parameter ranges.  A variant made of several launches is reported
# too: its launches follow one another on one time axis.
set -u
D=$1 TC=$2 DIR=$3
rm -rf "$DIR" && mkdir -p "$DIR" || exit 1
fail=0 runs=0 skipped=0

# A small shape for an operator: known ones by hand, others from `dvsim ops OP`
# (each parameter: its default if at most 16, else 16 within its range).
shape_of() {
    case $1 in
    matmul) echo "M=96,N=80,K=64" ;;
    add|relu) echo "N=8192" ;;
    softmax|layernorm) echo "R=8,C=96" ;;
    permute) echo "N1=8,N2=4,N3=24,PERM=213" ;;   # rows of 48 B: a DMA and a Scalar tail each
    *)
        "$D" ops "$1" | sed -n 's/^ *\(params: *\)\{0,1\}\([A-Za-z0-9_]*\): .* \([0-9]*\)\.\.\([0-9]*\) (default \([0-9]*\)).*/\2 \3 \4 \5/p' |
        awk '{ v = $4; if (v > 16) v = ($2 > 16 ? $2 : 16); if (v > $3) v = $3;
               printf "%s%s=%s", (NR > 1 ? "," : ""), $1, v } END { print "" }' ;;
    esac
}

# Runs one case: NAME then dvsim run arguments.
check() {
    name=$1; shift
    runs=$((runs + 1))
    out=$("$D" run "$@" --trace "$DIR/$name.json.gz" --out "$DIR/$name" --json 2>"$DIR/$name.err" >/dev/null)
    rc=$?
    if [ $rc -eq 64 ] && grep -q "follows one launch" "$DIR/$name.err"; then
        echo "skip $name: $(cat "$DIR/$name.err")"
        skipped=$((skipped + 1))
        return
    fi
    if [ $rc -ne 0 ]; then
        echo "FAIL $name: dvsim run $* exited $rc: $(head -3 "$DIR/$name.err")"
        fail=$((fail + 1))
        return
    fi
    if ! "$TC" "$DIR/$name.json.gz" --stats "$DIR/$name/stats.json" --stop done; then
        echo "FAIL $name: the trace of dvsim run $* is not valid"
        fail=$((fail + 1))
    fi
}

ops=$("$D" ops | sed -n 's/^\([a-z0-9_]*\) - .*/\1/p')
[ -n "$ops" ] || { echo "no operators listed"; exit 1; }
for op in $ops; do
    variants=$("$D" ops | sed -n "/^$op - /,/^\$/s/^ *variants: *//p" | tr -d ',')
    shape=$(shape_of "$op")
    for v in $variants; do
        check "$op-$v" "$op" --variant "$v" --shape "$shape"
    done
done
# Split chips: AIC lanes with FIXP, AIV lanes, cross-core flags.
check matmul-db-910b matmul --variant db --shape M=96,N=80,K=64 --chip ascend910b
check matmul-s8-910b matmul --variant pipelined --dtype s8-req --shape M=64,N=64,K=64 --chip ascend910b
check add-910b add --shape N=8192 --dtype f32 --chip ascend910b
check matmul-310 matmul --variant tiled --shape M=64,N=64,K=128 --chip ascend310
# Several launches in one trace: split-K's product (AIC) and reduction (AIV)
# on a split chip, each launch's slices after the last one's.
check matmul-splitk-910b3 matmul --shape M=64,N=64,K=4096,KS=4 --chip ascend910b3
# A mix kernel (AIC + 2 AIVs, cross-core flags), if the operator is there.
if echo "$ops" | grep -qx attention; then
    check attention-910b attention --shape "$(shape_of attention)" --chip ascend910b
fi
echo "trace-ops: $runs runs, $((runs - fail - skipped)) valid, $skipped skipped, $fail failed"
[ $fail -eq 0 ]

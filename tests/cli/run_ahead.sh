#!/bin/sh
# run_ahead.sh DVSIM SRCROOT WORKDIR - a Scalar unit runs private
# instructions and dispatches ahead of the event queue when nothing watches
# the core (core_scalar.c), and one event per instruction when hooks do
# (--trace): every run gives the same stats.json and outputs both ways.
#   - scalar_ties.dvs puts many cores' Scalar units at equal cycles with
#     different histories (it fails without their rank, core.c), and with
#     a small src faults while they run ahead;
#   - cc_ahead.dvs wakes a waiting pipe from another core while the unit
#     would dispatch behind the wait (it fails if a core waiting for a
#     cross-core flag dispatches ahead), and with fault=1 an AIC faults
#     while its AIVs run ahead (it fails without core_scalar_rewind);
#   - operators: mix kernels with cross-core flags (split chip), many
#     blocks, Vector work;
#   - --max-cycles stops mid-run; observers' ticks (the progress line with
#     DVSIM_PROGRESS=0, PMU sampling every 1000 cycles) bound how far a unit
#     runs ahead.
set -u
D=$1 SRC=$2 DIR=$3
rm -rf "$DIR" && mkdir -p "$DIR" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
n=0

# NAME DUMP ARGS...: plain, then traced (and with the progress clock)
same() {
    name=$1 dump=$2
    shift 2
    "$D" run "$@" --out "$DIR/$name.plain" ${dump:+--dump "$dump=$DIR/$name.plain.bin"} \
        >"$DIR/$name.plain.txt" 2>&1
    rc_plain=$?
    "$D" run "$@" --out "$DIR/$name.traced" --trace "$DIR/$name.json.gz" \
        ${dump:+--dump "$dump=$DIR/$name.traced.bin"} >"$DIR/$name.traced.txt" 2>&1
    rc_traced=$?
    DVSIM_PROGRESS=0 "$D" run "$@" --out "$DIR/$name.ticks" >/dev/null 2>&1
    rc_ticks=$?
    [ $rc_plain -eq $rc_traced ] && [ $rc_plain -eq $rc_ticks ] ||
        fail "$name: exit $rc_plain plain, $rc_traced traced, $rc_ticks with ticks"
    [ -s "$DIR/$name.plain/stats.json" ] || { cat "$DIR/$name.plain.txt"; fail "$name: no stats.json"; }
    cmp "$DIR/$name.plain/stats.json" "$DIR/$name.traced/stats.json" || fail "$name: stats differ when traced"
    cmp "$DIR/$name.plain/stats.json" "$DIR/$name.ticks/stats.json" || fail "$name: stats differ with ticks"
    [ -z "$dump" ] || cmp "$DIR/$name.plain.bin" "$DIR/$name.traced.bin" || fail "$name: $dump differs"
    n=$((n + 1))
}

ties="$SRC/tests/cli/scalar_ties.dvs --blocks 32 --gm src=zeros:1638400 --arg rounds=200"
same ties "" $ties
same ties-waves "" $SRC/tests/cli/scalar_ties.dvs --blocks 80 --gm src=zeros:524288 --arg rounds=64
same ties-limit "" $ties --max-cycles 20001
same ties-fault "" $SRC/tests/cli/scalar_ties.dvs --blocks 32 --gm src=zeros:81920 --arg rounds=200
[ $rc_plain -eq 1 ] || fail "ties-limit: exit $rc_plain, not 1 (stopped at the cycle limit)"
same cc-ahead "" $SRC/tests/cli/cc_ahead.dvs --chip ascend910b --arg rounds=4 --arg fault=0
same cc-fault "" $SRC/tests/cli/cc_ahead.dvs --chip ascend910b --arg rounds=4 --arg fault=1
grep -q "guest fault" "$DIR/cc-fault.plain.txt" || fail "cc-fault: no fault"
same matmul c matmul --shape M=300,N=700,K=600
same matmul-mix c matmul --chip ascend910b --shape M=200,N=272,K=130,BIAS=1,ACT=2 --dtype f16-f32
same attention o attention --chip ascend910b
same softmax y softmax --shape R=300,C=1000
same pmu "" matmul --shape M=1000,N=1000,K=1000 --pmu cube.busy_cycles,mte2.busy_cycles,scalar.instructions \
    --pmu-period 1000
cmp "$DIR/pmu.plain/pmu.samples.gz" "$DIR/pmu.traced/pmu.samples.gz" || fail "pmu: the samples differ when traced"
echo "run ahead: $n runs, the same stats and outputs plain, traced and with ticks"

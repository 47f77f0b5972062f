#!/bin/sh
# samples.sh DVSIM SAMPLES_DIR - every sample kernel (kernels/samples) is
# sanitizer-clean on every chip it runs on (they are coupled-core kernels:
# ascend910 and ascend310), with the arguments of the README and the tests.
# A sample added without a line here fails the test.
set -u
D=$1 S=$2
fail=0 runs=0
check() { # chip file args...
    chip=$1 f=$2; shift 2
    out=$("$D" run "$S/$f" --chip "$chip" --sanitize "$@" 2>&1)
    rc=$?
    runs=$((runs + 1))
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q '^sanitizer: 0 findings'; then
        echo "FAIL: $f on $chip (exit $rc):"; printf '%s\n' "$out" | grep -E '^(race|sync|init|mem|sanitizer|dvsim):' | head -5
        fail=1
    fi
}
for chip in ascend910 ascend310; do
    check $chip mmad_loop.dvs --arg n=20
    check $chip pmu_loop.dvs --gm out=zeros:64 --arg n=4
    check $chip vadd_loop.dvs --arg n=20
    check $chip vadd.dvs --gm x=random:f16:32768:1 --gm y=random:f16:32768:2 --gm z=zeros:65536 --arg n=32768
    check $chip vadd_db.dvs --gm x=random:f16:32768:1 --gm y=random:f16:32768:2 --gm z=zeros:65536 --arg n=32768
    check $chip copy_blocks.dvs --blocks 4 --gm src=random:s8:1048576:3 --gm dst=zeros:1048576 --arg per_block=262144
    check $chip copy_db.dvs --blocks 4 --gm src=random:s8:1048576:3 --gm dst=zeros:1048576 --arg per_block=262144
    check $chip reread.dvs --blocks 4 --gm src=random:s8:1048576:3 --arg per_block=262144 --arg passes=2
done
# the split chips' fp32 Cube (an AIC kernel: no coupled cores needed)
for chip in ascend910b ascend910b3; do
    check $chip mmad_f32_loop.dvs --gm zeros=zeros:32768 --arg n=4
done
for f in "$S"/*.dvs; do
    grep -q "check [a-z0-9$]* $(basename "$f")" "$0" || { echo "FAIL: $(basename "$f") has no line in samples.sh"; fail=1; }
done
echo "$runs sample runs"
exit $fail

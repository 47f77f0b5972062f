#!/bin/sh
# fuzz.sh - run a dvsim libFuzzer harness for a long session, by hand.
#
# usage: scripts/fuzz.sh [-b BUILDDIR] [-t SECONDS] [-j JOBS] NAME [LIBFUZZER_OPTION...]
#   NAME      elf, asm, decode, config, pmu, baseline, shape, gmspec or sweepspec (tests/fuzz/fuzz_NAME.c)
#   -b DIR    meson build directory with the fuzzers (default: SOURCE/build; needs clang,
#             see the 'fuzz' option); the fuzzer is rebuilt first
#   -t SECS   stop after this many seconds (default 600)
#   -j JOBS   parallel fuzzing processes (default 1)
#
# The session corpus lives in BUILDDIR/tests/fuzz/session/NAME and grows from
# run to run; the committed corpus tests/fuzz/corpus/NAME is only read.  Crash,
# timeout and leak inputs are written to BUILDDIR/tests/fuzz/artifacts/.
# To add a few new inputs to the committed corpus afterwards, minimise them
# (`FUZZER -minimize_crash=1` for crashes, or `FUZZER -merge=1 NEWDIR
# SESSIONDIR` to pick the ones that add coverage) and copy only a handful.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
builddir=$src/build
seconds=600
jobs=1
while getopts b:t:j: opt; do
    case $opt in
    b) builddir=$OPTARG ;;
    t) seconds=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) sed -n '4,10p' "$0" >&2; exit 64 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ]; then
    sed -n '4,10p' "$0" >&2
    exit 64
fi
name=$1
shift

fuzzer=$builddir/tests/fuzz/fuzz_$name
ninja -C "$builddir" "tests/fuzz/fuzz_$name" >/dev/null || {
    echo "fuzz.sh: cannot build $fuzzer (is clang with libFuzzer found? meson setup -Dfuzz=enabled)" >&2
    exit 69
}
session=$builddir/tests/fuzz/session/$name
artifacts=$builddir/tests/fuzz/artifacts
mkdir -p "$session" "$artifacts"

set -- -max_total_time="$seconds" -max_len=8192 -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$artifacts/$name-" "$@"
if [ "$jobs" -gt 1 ]; then
    set -- -jobs="$jobs" -workers="$jobs" "$@"
fi
exec "$fuzzer" "$@" "$session" "$src/tests/fuzz/corpus/$name"

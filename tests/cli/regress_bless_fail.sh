#!/bin/sh
# regress_bless_fail.sh DVSIM WORKDIR - dvsim regress --bless of a baseline
# that cannot be written back (the temporary name beside it is longer than
# a file name may be; root could write anywhere else): exit 74 with the
# reason on stderr, and no "blessed" line.  The baseline has no entries, so
# nothing runs.
set -u
dvsim=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
name=$(printf 'b%.0s' $(seq 250))
echo '{"tolerance_pct": 0.01, "entries": []}' > "$work/$name" || exit 1
rc=0
"$dvsim" regress --baseline "$work/$name" --bless > "$work/out.txt" 2> "$work/err.txt" || rc=$?
cat "$work/out.txt" "$work/err.txt"
[ "$rc" = 74 ] || { echo "FAIL: exit $rc, not 74"; exit 1; }
grep -q "cannot create" "$work/err.txt" || { echo "FAIL: no reason on stderr"; exit 1; }
! grep -q blessed "$work/out.txt" || { echo "FAIL: says it blessed what it could not write"; exit 1; }
echo "bless: a baseline that cannot be written is reported, not blessed"

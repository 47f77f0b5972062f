#!/bin/sh
# trace_cut.sh DVSIM TRACE_CHECK DIR - traces of runs cut short and windows:
# a run stopped by --max-cycles (exit 1) leaves a valid trace that matches
# its statistics; --trace-window writes a valid part; two runs write the
# same bytes.
set -u
D=$1 TC=$2 DIR=$3
rm -rf "$DIR" && mkdir -p "$DIR" || exit 1
fail=0

"$D" run matmul --variant db --shape M=256,N=256,K=256 --blocks 2 --max-cycles 3000 \
    --trace "$DIR/cut.json.gz" --out "$DIR/cut" --json >/dev/null 2>"$DIR/cut.err"
rc=$?
[ $rc -eq 1 ] || { echo "FAIL: --max-cycles run exited $rc, not 1"; fail=1; }
grep -q "cycle limit" "$DIR/cut.err" || { echo "FAIL: no cycle-limit message"; fail=1; }
"$TC" "$DIR/cut.json.gz" --stats "$DIR/cut/stats.json" --stop "cycle limit" || fail=1
zcat "$DIR/cut.json.gz" | grep -q '"cut":true' || { echo "FAIL: no slice marked cut"; fail=1; }

"$D" run matmul --variant pipelined --shape M=128,N=128,K=128 --trace-window 500:1500 --trace-period 100 \
    --trace "$DIR/window.json.gz" >/dev/null 2>&1 || { echo "FAIL: windowed run"; fail=1; }
"$TC" "$DIR/window.json.gz" --stop done || fail=1
zcat "$DIR/window.json.gz" | grep -q '"window_end_cycle":1500' || { echo "FAIL: window not recorded"; fail=1; }

for i in 1 2; do
    "$D" run matmul --variant db --shape M=128,N=128,K=128 --trace "$DIR/same$i.json.gz" >/dev/null 2>&1 ||
        { echo "FAIL: run $i"; fail=1; }
done
cmp -s "$DIR/same1.json.gz" "$DIR/same2.json.gz" || { echo "FAIL: two runs wrote different traces"; fail=1; }

"$D" run matmul --trace-window 5:2 --trace "$DIR/x.json.gz" >/dev/null 2>&1
[ $? -eq 64 ] || { echo "FAIL: a bad --trace-window is not a usage error"; fail=1; }
"$D" run matmul --trace /nonexistent/dir/t.json.gz >/dev/null 2>&1
[ $? -eq 74 ] || { echo "FAIL: an unwritable trace is not an I/O error"; fail=1; }
[ $fail -eq 0 ] && echo "trace-cut: ok"
exit $fail

#!/bin/sh
# trace_sigint.sh DVSIM TRACE_CHECK DIR - Ctrl-C during a traced run: the
# run stops at the next event, exits 130, and the trace is one complete JSON
# document whose slices match the statistics of the part that ran.
set -u
D=$1 TC=$2 DIR=$3
rm -rf "$DIR" && mkdir -p "$DIR" || exit 1
# Seconds of simulation when left alone (a naive 2048^3 matmul on one core),
# far longer than the wait below on any machine.
"$D" run matmul --variant naive --shape M=2048,N=2048,K=2048 --blocks 1 --no-data \
    --trace "$DIR/int.json.gz" --out "$DIR/int" --json >/dev/null 2>"$DIR/int.err" &
pid=$!
# The trace's temporary file appears once Ctrl-C is handled; then let the
# simulation run a little.
i=0
while ! ls "$DIR"/int.json.gz.tmp* >/dev/null 2>&1 && [ $i -lt 1000 ]; do
    sleep 0.01
    i=$((i + 1))
done
sleep 0.2
kill -INT $pid
wait $pid
rc=$?
cat "$DIR/int.err"
[ $rc -eq 130 ] || { echo "FAIL: exit $rc after SIGINT, not 130"; exit 1; }
grep -q "interrupted at cycle" "$DIR/int.err" || { echo "FAIL: no interrupted message"; exit 1; }
ls "$DIR"/int.json.gz.tmp* >/dev/null 2>&1 && { echo "FAIL: a temporary file was left"; exit 1; }
"$TC" "$DIR/int.json.gz" --stats "$DIR/int/stats.json" --stop interrupted

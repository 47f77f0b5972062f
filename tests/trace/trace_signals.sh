#!/bin/sh
# trace_signals.sh DVSIM TRACE_CHECK DIR - every stop signal leaves valid
# files: SIGTERM and SIGHUP during a traced run stop it like Ctrl-C (exit
# 128 + the signal, a complete trace that matches stats.json, no temporary
# file left); SIGINT during the reference check (after the simulation)
# stops the check, still writes stats.json and exits 130.
set -u
D=$1 TC=$2 DIR=$3
rm -rf "$DIR" && mkdir -p "$DIR" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

for sig in TERM HUP; do
    case $sig in TERM) want=143 ;; HUP) want=129 ;; esac
    # seconds of simulation when left alone (as trace_sigint.sh)
    "$D" run matmul --variant naive --shape M=2048,N=2048,K=2048 --blocks 1 --no-data \
        --trace "$DIR/$sig.json.gz" --out "$DIR/$sig" --json >/dev/null 2>"$DIR/$sig.err" &
    pid=$!
    i=0
    while ! ls "$DIR"/$sig.json.gz.tmp* >/dev/null 2>&1 && [ $i -lt 1000 ]; do
        sleep 0.01
        i=$((i + 1))
    done
    sleep 0.2
    kill -$sig $pid
    wait $pid
    rc=$?
    cat "$DIR/$sig.err"
    [ $rc -eq $want ] || fail "exit $rc after SIG$sig, not $want"
    grep -q "interrupted at cycle" "$DIR/$sig.err" || fail "no interrupted message after SIG$sig"
    ls "$DIR"/$sig.json.gz.tmp* "$DIR/$sig"/*.tmp* >/dev/null 2>&1 && fail "a temporary file was left (SIG$sig)"
    "$TC" "$DIR/$sig.json.gz" --stats "$DIR/$sig/stats.json" --stop interrupted || fail "SIG$sig: trace"
done

# SIGINT during the reference check: the simulation of this matmul takes
# about 0.7 s; its reference (2^34 multiply-adds in float, and their
# bound S) on one thread with the C kernels (no OpenBLAS) about 0.65 s on
# a 2-vCPU EPYC, so the signal 0.05 s after the log's "end:" line (the
# simulation is over) lands in the check. (At K=4096 and 0.2 s the check
# had grown fast enough to finish first.)
DVSIM_NO_OPENBLAS=1 "$D" run matmul --shape M=1024,N=1024,K=16384 --threads 1 --log sim=info --out "$DIR/check" \
    >"$DIR/check.out" 2>"$DIR/check.err" &
pid=$!
i=0
# (the cap is for slow builds: under ASan the simulation takes about 40 s)
while ! grep -q "sim: info: end:" "$DIR/check.err" 2>/dev/null && [ $i -lt 18000 ]; do
    sleep 0.01
    i=$((i + 1))
done
grep -q "sim: info: end:" "$DIR/check.err" || { kill $pid; fail "the simulation did not end within the wait"; }
sleep 0.05
kill -INT $pid
wait $pid
rc=$?
grep -v "sim: info" "$DIR/check.err"
[ $rc -eq 130 ] || fail "exit $rc after SIGINT in the check, not 130"
grep -q "during the reference check" "$DIR/check.err" || fail "no message about the check"
grep -q "check: interrupted after" "$DIR/check.out" || fail "the report does not say the check was interrupted"
[ -s "$DIR/check/stats.json" ] || fail "no stats.json after SIGINT in the check"
grep -q '"op.check_passed"' "$DIR/check/stats.json" || fail "stats.json is not the run's"
ls "$DIR/check"/*.tmp* >/dev/null 2>&1 && fail "a temporary file was left (check)"
echo "ok"

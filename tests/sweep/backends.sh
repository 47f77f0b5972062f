#!/bin/sh
# backends.sh DVSIM SPEC WORK - the 60-job sweep of SPEC gives byte-identical
# results.csv and results.json with --local 1, --local 2 and --parallel (GNU
# parallel; skipped with a message where it is missing), its failed jobs are
# in their rows, and a sweep stopped half-way (SIGTERM) finishes only the rest
# when run again: the jobs finished before keep their files untouched.
set -u
dvsim=$1 spec=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

# 1 for the sweep: some of its jobs fail (vadd on a split chip)
"$dvsim" sweep "$spec" --out "$work/l1" --local 1 --quiet; rc=$?
[ $rc -eq 1 ] || fail "--local 1 exited $rc, not 1 (some jobs fail)"
rows=$(($(wc -l < "$work/l1/results.csv") - 1))
[ "$rows" -eq 60 ] || fail "results.csv has $rows rows, not 60"
ok=$(grep -c ',ok,0,' "$work/l1/results.csv")
bad=$(grep -c ",failed,65,.*is for coupled cores" "$work/l1/results.csv")
[ "$ok" -eq 45 ] && [ "$bad" -eq 15 ] || fail "$ok ok and $bad failed rows, not 45 and 15"
echo "--local 1: 60 rows, 45 ok, 15 failed with exit 65 and the message"

DVSIM_PROGRESS=1 "$dvsim" sweep "$spec" --out "$work/l2" --local 2 2> "$work/l2.err"
grep -q '60/60 done (15 failed), [0-9]* jobs/s, ETA 0m00s' "$work/l2.err" || fail "no progress line: $(cat "$work/l2.err")"
grep -q '^dvsim sweep: 60 jobs: 0 finished before, 60 run (15 failed) in ' "$work/l2.err" || fail "no summary line"
cmp "$work/l1/results.csv" "$work/l2/results.csv" || fail "--local 2 differs from --local 1"
cmp "$work/l1/results.json" "$work/l2/results.json" || fail "--local 2's results.json differs"
echo "--local 2: the same results.csv and results.json"

if command -v parallel > /dev/null 2>&1; then
    "$dvsim" sweep "$spec" --out "$work/par" --parallel=2 --quiet
    cmp "$work/l1/results.csv" "$work/par/results.csv" || fail "--parallel differs from --local 1"
    lines=$(($(wc -l < "$work/par/parallel.joblog") - 1))
    [ "$lines" -eq 60 ] || fail "the joblog has $lines jobs, not 60"
    echo "--parallel: the same results.csv; the joblog has 60 jobs"
else
    echo "SKIPPED --parallel: GNU parallel is not installed (Debian: apt-get install parallel)"
fi

# Stopped half-way: SIGTERM once 20 jobs have finished (one at a time, ~30 ms each).
"$dvsim" sweep "$spec" --out "$work/kill" --local 1 --quiet &
pid=$!
n=0
for _ in $(seq 2000); do
    n=$(ls "$work"/kill/jobs/*/status.json 2> /dev/null | wc -l)
    [ "$n" -ge 20 ] && break
    sleep 0.01
done
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 143 ] || fail "the stopped sweep exited $rc, not 143"
done1=$(ls "$work"/kill/jobs/*/status.json | wc -l)
[ "$done1" -ge 20 ] && [ "$done1" -lt 60 ] || fail "$done1 jobs finished before the stop"
# the finished jobs' files (a job stopped in its run may have written a stats.json, not a status)
for s in "$work"/kill/jobs/*/status.json; do
    ls -l --time-style=+%s.%N "$s" "$(dirname "$s")"/stats.json 2> /dev/null
done | awk '{print $6, $7}' | sort > "$work/before.txt"
grep -c ',pending,' "$work/kill/results.csv" > /dev/null || fail "no pending rows after the stop"
"$dvsim" sweep "$spec" --out "$work/kill" --local 1 2> "$work/rerun.txt"
cat "$work/rerun.txt"
grep -q "60 jobs: $done1 finished before, $((60 - done1)) run" "$work/rerun.txt" ||
    fail "the rerun did not run just the $((60 - done1)) unfinished jobs"
ls -l --time-style=+%s.%N "$work"/kill/jobs/*/status.json "$work"/kill/jobs/*/stats.json |
    awk '{print $6, $7}' | sort > "$work/after.txt"
while read -r line; do
    grep -qxF "$line" "$work/after.txt" || fail "a job finished before the stop was rewritten: $line"
done < "$work/before.txt"
cmp "$work/l1/results.csv" "$work/kill/results.csv" || fail "the resumed sweep's results.csv differs"
echo "stopped after $done1 jobs (exit 143); the rerun ran the other $((60 - done1)), results.csv the same"

# --merge alone rewrites the same files
rm "$work/l2/results.csv"
"$dvsim" sweep --merge "$work/l2" --quiet
cmp "$work/l1/results.csv" "$work/l2/results.csv" || fail "--merge differs"
echo "--merge: the same results.csv"

# A job another process holds (its DIR/jobs/HASH/.lock, as a second sweep of the folder would)
# is left to it: no status, not run; once free it runs.
job=$(sed -n 2p "$work/l1/results.csv" | cut -d, -f2)
rm -rf "$work/lock" && mkdir -p "$work/lock/jobs/$job"
python3 - "$work/lock/jobs/$job/.lock" "$dvsim" "$spec" "$work/lock" <<'PY' || fail "a held job ran"
import fcntl, subprocess, sys
lock, dvsim, spec, out = sys.argv[1:]
with open(lock, "w") as f:
    fcntl.lockf(f, fcntl.LOCK_EX)
    r = subprocess.run([dvsim, "sweep", spec, "--out", out, "--local", "2"], capture_output=True, text=True)
    assert "60 jobs: 1 finished before, 59 run" in r.stderr, r.stderr
PY
[ ! -e "$work/lock/jobs/$job/status.json" ] || fail "the held job has a status"
"$dvsim" sweep "$spec" --out "$work/lock" --local 2 2> "$work/lock.err"
grep -q "60 jobs: 59 finished before, 1 run" "$work/lock.err" || fail "the freed job did not run: $(cat "$work/lock.err")"
cmp "$work/l1/results.csv" "$work/lock/results.csv" || fail "results.csv differs after the held job"
echo "a job held by another process is left to it, and runs once free"

#!/bin/sh
# slurm.sh DVSIM SPEC WORK - the Slurm backend on a real single-node Slurm
# (slurm_cluster.sh starts munged, slurmctld and slurmd in WORK and stops
# them after): the 60-job sweep of SPEC submitted as a job array, merged
# with --merge once the array has ended, gives the results.csv of --local 2.
# Skipped (exit 77) with what is missing where Slurm or munge is not
# installed or cannot start.
set -u
dvsim=$1 spec=$2 work=$3
here=$(dirname "$0")
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$dvsim" sweep "$spec" --out "$work/dry" --slurm=3 --slurm-dry-run > "$work/dry.txt" || fail "--slurm-dry-run failed"
grep -q '^#SBATCH --array=0-2$' "$work/dry/slurm/sweep.sbatch" || fail "the dry run's script has no --array=0-2"
[ ! -e "$work/dry/results.csv" ] || fail "the dry run ran jobs"
echo "--slurm-dry-run: wrote $(grep -c . "$work/dry/slurm/sweep.sbatch")-line sweep.sbatch, ran nothing"

conf=$("$here/slurm_cluster.sh" start "$work/cluster")
rc=$?
[ $rc -eq 0 ] || exit $rc # 77: skipped, with the reason on stderr
trap '"$here/slurm_cluster.sh" stop "$work/cluster"' EXIT INT TERM
export SLURM_CONF="$conf"
sinfo

"$dvsim" sweep "$spec" --out "$work/ref" --local 2 --quiet
"$dvsim" sweep "$spec" --out "$work/slurm" --slurm=4 > "$work/submit.txt" || fail "--slurm did not submit"
cat "$work/submit.txt"
id=$(sed -n 's/^submitted Slurm job \([0-9]*\):.*/\1/p' "$work/submit.txt")
[ -n "$id" ] || fail "no job id in sbatch's answer"
for _ in $(seq 600); do
    [ -z "$(squeue -h -j "$id" 2> /dev/null)" ] && break
    sleep 0.2
done
[ -z "$(squeue -h -j "$id" 2> /dev/null)" ] || fail "the array job $id did not end in 120 s"
for log in "$work"/slurm/slurm/task-*.log; do
    echo "== $(basename "$log")"
    cat "$log"
done
"$dvsim" sweep --merge "$work/slurm"
rc=$?
[ $rc -eq 1 ] || fail "--merge exited $rc, not 1 (the failing vadd jobs)"
cmp "$work/ref/results.csv" "$work/slurm/results.csv" || fail "Slurm's results.csv differs from --local 2's"
echo "--slurm=4 (array job $id) then --merge: the same results.csv as --local 2"

#!/bin/sh
# slurm_cluster.sh start DIR | stop DIR - a single-node Slurm on this machine
# for the tests: munged with its own key and socket, slurmctld and slurmd
# with a config generated in DIR (ports picked free, state, spool, logs and
# pid files all in DIR), so it touches nothing of a Slurm the machine may
# run.  `start` prints the SLURM_CONF to export and waits until the node
# takes jobs; exit 77 (skip) with what is missing when it cannot start.
# `stop` ends the three daemons by their pid files.
set -u
cmd=$1 dir=$2

skip() { echo "slurm_cluster: $*" >&2; exit 77; }

pid_of() { [ -f "$dir/$1.pid" ] && cat "$dir/$1.pid"; }

stop() {
    for d in slurmd slurmctld munged; do
        p=$(pid_of $d) || continue
        kill "$p" 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.3; done
        kill -9 "$p" 2>/dev/null
        rm -f "$dir/$d.pid"
    done
}

# A TCP port nothing listens on (python3 binds port 0 and reports it).
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

if [ "$cmd" = stop ]; then
    stop
    exit 0
fi

for p in munged mungekey slurmctld slurmd sbatch sinfo python3; do
    command -v $p > /dev/null 2>&1 || [ -x /usr/sbin/$p ] || skip "missing $p (Debian: apt-get install slurm-wlm munge)"
done
PATH=$PATH:/usr/sbin
[ "$(id -u)" -eq 0 ] || skip "not root: slurmd must run as root to start jobs as their user (CI runs as root)"

mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"
host=$(hostname -s)
cport=$(free_port) dport=$(free_port)
[ "$cport" != "$dport" ] || dport=$((dport + 1))
cpus=$(nproc)

mungekey --create --keyfile "$dir/munge/munge.key" --force > /dev/null 2>&1 ||
    skip "mungekey could not create a key"
munged --socket "$dir/munge/munge.sock" --key-file "$dir/munge/munge.key" --pid-file "$dir/munged.pid" \
    --log-file "$dir/munged.log" --seed-file "$dir/munge/seed" --force > /dev/null 2>&1 ||
    skip "munged did not start (see $dir/munged.log)"

cat > "$dir/slurm.conf" <<CONF
ClusterName=dvsimtest
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=$cport
SlurmdPort=$dport
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
MaxArraySize=1001
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=dvsim Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -i > "$dir/slurmctld.out" 2>&1 || { stop; skip "slurmctld did not start (see $dir/slurmctld.log)"; }
slurmd > "$dir/slurmd.out" 2>&1 || { stop; skip "slurmd did not start (see $dir/slurmd.log)"; }
for _ in $(seq 60); do
    state=$(sinfo -h -o %t 2>/dev/null | head -1)
    case $state in idle*|mix*|alloc*) echo "$SLURM_CONF"; exit 0 ;; esac
    sleep 0.5
done
stop
skip "the node did not come up (state '$state'; see $dir/slurmctld.log, $dir/slurmd.log)"

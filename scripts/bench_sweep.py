#!/usr/bin/env python3
"""bench_sweep.py [--dvsim PATH] [--jobs N] [--backends local,parallel,slurm] [--small N]

The sweep's throughput per backend, in jobs per second per host core: the jobs
over the CPU seconds (user + system) of the whole process tree of the sweep
(dvsim sweep, its children, GNU parallel, Slurm's daemons' job steps are not
counted: slurmd and slurmstepd are not our children), and jobs per wall second.
The workload is the issue's: a timing-only sweep of a small kernel, the add
operator (N = 64 .. 6400, one core) over 100 HBM bandwidths: 10,000 jobs for
--local; --small jobs (default 1000) for GNU parallel and Slurm, whose cost is a
process start per job (parallel) or the scheduler (Slurm).  Slurm runs on the
single-node cluster tests/sweep/slurm_cluster.sh starts (root only)."""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def spec(path, jobs):
    n_values = 100
    hbm = max(1, jobs // n_values)
    with open(path, "w") as f:
        f.write("[sweep]\nname = bench\nchips = ascend910\nmetrics = chip.cycles\n"
                "[workload add]\nop = add\nshape = N=64\n"
                f"[axis N]\nshape = N\nrange = 64:{64 * n_values}:64\n"
                f"[axis hbm]\nkey = memory.hbm_bytes_per_cycle\nrange = 100:{100 + hbm - 1}:1\n")
    return n_values * hbm


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, env=None):
    c0, t0 = cpu_children(), time.monotonic()
    p = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall, cpu = time.monotonic() - t0, cpu_children() - c0
    if p.returncode not in (0, 1):
        sys.exit(f"bench_sweep: {' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()}")
    return wall, cpu


def report(name, jobs, wall, cpu):
    print(f"{name:14s} {jobs:6d} jobs  wall {wall:7.2f} s  {jobs / wall:7.1f} jobs/s   CPU {cpu:7.2f} s  "
          f"{jobs / cpu:7.1f} jobs/s per host core")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dvsim", default=os.path.join(ROOT, "build", "cli", "dvsim"))
    ap.add_argument("--jobs", type=int, default=10000)
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--backends", default="local,parallel,slurm")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="bench-sweep-")
    try:
        big = spec(os.path.join(work, "big.ini"), a.jobs)
        small = spec(os.path.join(work, "small.ini"), a.small)
        print(f"dvsim sweep of the add operator, timing only; {a.workers} workers; host has {os.cpu_count()} CPUs")
        for b in a.backends.split(","):
            out = os.path.join(work, b + ".sweep")
            if b == "local":
                for w in sorted({1, a.workers}):
                    o = f"{out}{w}"
                    wall, cpu = timed([a.dvsim, "sweep", os.path.join(work, "big.ini"), "--out", o, "--local", str(w),
                                       "--quiet"])
                    report(f"--local {w}", big, wall, cpu)
                    wall, cpu = timed([a.dvsim, "sweep", os.path.join(work, "big.ini"), "--out", o, "--quiet"])
                    report("  (resume)", big, wall, cpu)
            elif b == "parallel":
                if not shutil.which("parallel"):
                    print("--parallel      skipped: GNU parallel is not installed")
                    continue
                wall, cpu = timed([a.dvsim, "sweep", os.path.join(work, "small.ini"), "--out", out,
                                   f"--parallel={a.workers}", "--quiet"])
                report("--parallel", small, wall, cpu)
            elif b == "slurm":
                cluster = os.path.join(work, "cluster")
                p = subprocess.run([os.path.join(ROOT, "tests", "sweep", "slurm_cluster.sh"), "start", cluster],
                                   capture_output=True, text=True)
                if p.returncode:
                    print("--slurm         skipped: " + p.stderr.strip())
                    continue
                env = dict(os.environ, SLURM_CONF=p.stdout.strip())
                try:
                    wall, cpu = timed([a.dvsim, "sweep", os.path.join(work, "small.ini"), "--out", out,
                                       f"--slurm={a.workers}", "--slurm-wait", "--quiet"], env)
                    report("--slurm", small, wall, cpu)
                    print("               (CPU: dvsim and sbatch only; the tasks ran under slurmd)")
                finally:
                    subprocess.run([os.path.join(ROOT, "tests", "sweep", "slurm_cluster.sh"), "stop", cluster])
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()

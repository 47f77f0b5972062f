#!/usr/bin/env python3
"""bench_profile.py [DVSIM] [--repeat N] - the host-time cost of profiling.

Runs each workload with `dvsim run` and with `dvsim profile` (the same
simulation plus the stall-attribution observer, sim/dv_profile.h) and
compares the CPU seconds (user + system) of the two processes, taken from
getrusage of the children: the best of N runs of each (default 5).  The
issue's bar is profile / run <= 1.5.  Timing-only runs (--no-data) are the
worst case: without the arithmetic the simulation is cheapest, so the
observer's share is largest.
"""
import os
import resource
import subprocess
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
DVSIM = args[0] if args else os.path.join("build", "cli", "dvsim")
REPEAT = 5
if "--repeat" in sys.argv:
    REPEAT = int(sys.argv[sys.argv.index("--repeat") + 1])

WORKLOADS = [
    ("matmul db 4096^3, 32 cores, timing only",
     ["matmul", "--variant", "db", "--no-data", "--shape", "M=4096,N=4096,K=4096"]),
    ("matmul db 4096x4096x2048, 1 core, timing only",
     ["matmul", "--variant", "db", "--blocks", "1", "--no-data", "--shape", "M=4096,N=4096,K=2048"]),
    ("matmul db 1024^3, 1 core, with data", ["matmul", "--variant", "db", "--blocks", "1"]),
    ("attention ascend910b B=4,H=8,SQ=1024,SK=2048, timing only",
     ["attention", "--chip", "ascend910b", "--no-data", "--shape", "B=4,H=8,SQ=1024,SK=2048"]),
    ("softmax 16384x1000, timing only", ["softmax", "--no-data", "--shape", "R=16384,C=1000"]),
    ("vadd_loop sample n=2000000 (vector-bound), timing only",
     [os.path.join("kernels", "samples", "vadd_loop.dvs"), "--arg", "n=2000000", "--no-data"]),
]


def cpu(cmd):
    best = None
    for _ in range(REPEAT):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            sys.exit("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
        t = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = t if best is None else min(best, t)
    return best


print("%-58s %10s %10s %7s" % ("workload", "run CPU s", "profile s", "ratio"))
worst = 0
for name, w in WORKLOADS:
    a = cpu([DVSIM, "run"] + w)
    b = cpu([DVSIM, "profile"] + w + ["--top", "10"])
    ratio = b / a if a > 0 else float("nan")
    worst = max(worst, ratio)
    print("%-58s %10.3f %10.3f %6.2fx" % (name, a, b, ratio))
print("worst ratio %.2fx (the bar: 1.50x)" % worst)
sys.exit(0 if worst <= 1.5 else 1)

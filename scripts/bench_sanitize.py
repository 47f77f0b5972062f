#!/usr/bin/env python3
"""The sanitizer's host cost: CPU seconds (user + system, of the dvsim
processes) of `dvsim run` with --sanitize against the same run without,
as ratios measured in one go.  Each case runs until it has taken at least
MIN_SECONDS of CPU (at least 3 times), plain and sanitized alternating so
both see the same machine.

usage: scripts/bench_sanitize.py [DVSIM] [MIN_SECONDS]   (default build/cli/dvsim, 2)"""
import os
import resource
import subprocess
import sys

CASES = [
    ("matmul 1024^3, 1 core", ["matmul", "--blocks", "1"]),
    ("matmul 1024^3, 1 core, --no-data", ["matmul", "--blocks", "1", "--no-data"]),
    ("matmul 1024^3, 32 cores, --no-data", ["matmul", "--no-data"]),
    ("attention, 1 core", ["attention", "--blocks", "1"]),
    ("attention (ascend910)", ["attention"]),
    ("attention mix (ascend910b)", ["attention", "--chip", "ascend910b"]),
]


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def once(dvsim, args):
    t0 = cpu()
    p = subprocess.run([dvsim, "run"] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit("dvsim run %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode().strip()))
    return cpu() - t0


def main():
    dvsim = sys.argv[1] if len(sys.argv) > 1 else "build/cli/dvsim"
    min_s = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    print("| run | plain CPU s/run | --sanitize CPU s/run | ratio | runs |")
    print("|---|---|---|---|---|")
    for name, args in CASES:
        plain = san = 0.0
        n = 0
        while n < 3 or plain + san < 2 * min_s:
            plain += once(dvsim, args)
            san += once(dvsim, args + ["--sanitize"])
            n += 1
        print("| %s | %.4f | %.4f | %.2fx | %d |" % (name, plain / n, san / n, san / plain if plain else 0, n))


if __name__ == "__main__":
    main()

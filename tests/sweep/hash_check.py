#!/usr/bin/env python3
"""hash_check.py DVSIM SPEC.ini SPEC.json - the jobs of `dvsim sweep --list`:
each job's hash is FNV-1a 64 of its command line (words joined by newlines,
computed here independently), the INI and JSON forms of one spec list the
same jobs, and a zip of two axes moves them together."""
import re
import subprocess
import sys
import tempfile
import os

dvsim, ini, js = sys.argv[1:4]


def listing(spec):
    out = subprocess.run([dvsim, "sweep", spec, "--list", "--out", tempfile.mkdtemp()],
                         check=True, capture_output=True, text=True).stdout
    return out.splitlines()


def fnv(words):
    h = 0xcbf29ce484222325
    for w in words:
        for b in (w + "\n").encode():
            h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


a, b = listing(ini), listing(js)
assert len(a) == 60, len(a)
assert a == b, "the INI and JSON specs list different jobs"
for line in a:
    ident, h, rest = line.split(" ", 2)
    words = re.sub(r"^\(repeats job \d+\) ", "", rest).split(" ")[1:]  # after "dvsim"
    assert fnv(words) == h, (line, fnv(words))
assert len({l.split()[1] for l in a}) == 60, "hashes repeat"

with tempfile.TemporaryDirectory() as d:
    spec = os.path.join(d, "zip.ini")
    with open(spec, "w") as f:
        f.write("[workload a]\nop = add\n[axis n]\nshape = N\nvalues = 64, 128, 256\n"
                "[axis hbm]\nkey = memory.hbm_bytes_per_cycle\nvalues = 100, 200, 300\nzip = n\n"
                "[axis seed]\noption = seed\nrange = 1:2\n")
    z = listing(spec)
    assert len(z) == 6, z  # 3 zipped x 2 seeds
    assert "N=64 " in z[0] and "hbm_bytes_per_cycle=100 " in z[0] and "--seed 1" in z[0], z[0]
    assert "N=64 " in z[1] and "--seed 2" in z[1], z[1]
    assert "N=256 " in z[5] and "hbm_bytes_per_cycle=300 " in z[5], z[5]
print("60 jobs: hashes are FNV-1a of the command lines, INI = JSON; zip and cross expand as documented")

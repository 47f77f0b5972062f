#!/usr/bin/env python3
"""matmul_forced.py DVSIM [--table] - issue 17's check on M=1024, N=576,
K=6144 on ascend910b3 (20 AICs): the tiling's own plan against every
neighbouring plan one can force (tiles TM x TN of 64..256, split-K KS=2..4,
the swizzled block order SW=2..20), each timed as the run's wall cycles
(chip.cycles, every launch's core cycles, plus the overheads after the
first: chip.launch_cycles - op.launch0.launch_cycles), none more than 5%
faster; and the plan's reads: GM -> L1 bytes (MTE2, through the L2) are
exactly op.plan.a_reads x A + op.plan.b_reads x B, HBM sees A and B once.

The reads are 5 and 8, not the issue's "at most 3": L0C (128 KiB) holds two
tile buffers of Mt x Nt f32 (double buffered), so Mt x Nt <= 16384 and
ceil(1024 / Mt) x ceil(576 / Nt) >= 36; with one L0C tile per L1 tile,
reads_A x reads_B >= 36 whatever the tiling (split-K divides K, not these
counts).  --table prints every plan's figures."""
import json
import subprocess
import sys

dvsim = sys.argv[1]
table = "--table" in sys.argv[2:]
SHAPE = "M=1024,N=576,K=6144"
A, B = 1024 * 6144 * 2, 6144 * 576 * 2


def run(extra):
    p = subprocess.run([dvsim, "run", "matmul", "--chip", "ascend910b3", "--shape", SHAPE + extra, "--no-data",
                        "--json"], capture_output=True, text=True)
    if p.returncode == 65:  # the forced plan does not fit the buffers
        return None
    if p.returncode != 0:
        sys.exit("%s: exit %d: %s" % (extra, p.returncode, p.stderr.strip()))
    s = {k: v["value"] for k, v in json.loads(p.stdout).items()}
    s["wall"] = s["chip.cycles"] + s["chip.launch_cycles"] - s["op.launch0.launch_cycles"]
    return s


bad = 0
own = run("")
gm_l1 = sum(v for k, v in own.items() if k.startswith("core") and k.endswith(".path.gm_to_l1.bytes"))
want = own["op.plan.a_reads"] * A + own["op.plan.b_reads"] * B
print("the tiling's plan: %dx%d tiles on %d blocks, KS=%d, SW=%d: %d cycles; MTE2 reads A %g x, B %g x "
      "(GM->L1 %d bytes, plan %d), HBM %d bytes (A + B = %d)" %
      (own["op.plan.tile_m"], own["op.plan.tile_n"], own["op.plan.blocks"], own["op.plan.k_split"],
       own["op.plan.swizzle"], own["wall"], own["op.plan.a_reads"], own["op.plan.b_reads"], gm_l1, want,
       own["chip.hbm.bytes"], A + B))
if gm_l1 != want:
    print("FAIL: GM->L1 bytes are not the plan's reads")
    bad += 1
if own["chip.hbm.bytes"] > 3 * (A + B):
    print("FAIL: HBM reads A and B more than 3 times over")
    bad += 1
forced = ["TM=%d,TN=%d" % (m, n) for m in (64, 128, 192, 256) for n in (64, 96, 128, 192, 256)]
forced += ["KS=%d" % s for s in (2, 3, 4)] + ["TM=256,TN=64,KS=2", "TM=64,TN=256,KS=2"]
forced += ["SW=%d" % g for g in (2, 4, 5, 10, 20)] + ["TM=256,TN=64,SW=4"]
for f in forced:
    s = run("," + f)
    if s is None:
        if table:
            print("  %-20s does not fit" % f)
        continue
    ok = s["wall"] >= 0.95 * own["wall"]
    if table or not ok:
        print("  %-20s %dx%d blocks %d KS=%d SW=%d: %d cycles (%+.1f%%), reads A %g B %g, HBM %d%s" %
              (f, s["op.plan.tile_m"], s["op.plan.tile_n"], s["op.plan.blocks"], s["op.plan.k_split"],
               s["op.plan.swizzle"], s["wall"], 100.0 * (s["wall"] / own["wall"] - 1), s["op.plan.a_reads"],
               s["op.plan.b_reads"], s["chip.hbm.bytes"], "" if ok else "  FAIL: more than 5% faster"))
    bad += not ok
print("ok" if not bad else "%d failures" % bad)
sys.exit(1 if bad else 0)

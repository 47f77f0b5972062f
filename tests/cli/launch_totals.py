#!/usr/bin/env python3
"""launch_totals.py DVSIM - a run of several launches reports every launch in
its chip.* figures and op.cube_macs, each launch's under op.launch<i>.*.

A split-K matmul M=256, N=256, K=16384, KS=4: the product launch reads A
(256 x 16384 f16, 8 MiB) and B (8 MiB) from HBM once (both fit the L2 and
each line is fetched once) and writes its f32 sums to a workspace of
4 x 256 x 256 x 4 bytes (1 MiB); the reduction launch starts with a fresh L2
(a launch boundary passes only GM on) and reads that workspace back from
HBM.  So the run's chip.hbm.bytes are at least 16 MiB + 1 MiB, where the last
launch alone (the old figure) has 1 MiB and a bit; its MACs are
256 x 256 x 16384, where the last launch (the Vector unit) has none.  The
unfused conv2d_bias_relu runs three launches; the same sums hold."""
import json
import subprocess
import sys

dvsim = sys.argv[1]
MIB = 1 << 20
cases = [
    # op, chip, shape, launches, HBM bytes at least, Cube MACs exactly (None: the launches' sum)
    ("matmul", "ascend910", "M=256,N=256,K=16384,KS=4", 2, 17 * MIB, 256 * 256 * 16384),
    ("matmul", "ascend910b3", "M=256,N=256,K=16384,KS=4", 2, 17 * MIB, 256 * 256 * 16384),
    ("conv2d_bias_relu", "ascend910", "", 3, 0, None),
]
bad = 0


def fail(msg):
    global bad
    print("FAIL: " + msg)
    bad += 1


for op, chip, shape, launches, hbm_min, macs in cases:
    args = [dvsim, "run", op, "--chip", chip, "--no-data", "--json"] + (["--shape", shape] if shape else [])
    if op == "conv2d_bias_relu":
        args += ["--variant", "unfused"]
    s = {k: v["value"] for k, v in json.loads(subprocess.run(args, check=True, capture_output=True,
                                                            text=True).stdout).items()}
    label = "%s %s %s" % (op, chip, shape)
    n = int(s["op.launches"])
    if n != launches:
        fail("%s: %d launches, want %d" % (label, n, launches))
        continue
    if s["chip.hbm.bytes"] < hbm_min:
        fail("%s: chip.hbm.bytes %s < %s (A, B and the workspace read back)" % (label, s["chip.hbm.bytes"],
                                                                               hbm_min))
    if macs is not None and s["op.cube_macs"] != macs:
        fail("%s: op.cube_macs %s, want %d" % (label, s["op.cube_macs"], macs))
    each = lambda key: [s.get("op.launch%d.%s" % (i, key), -1) for i in range(n)]
    for chip_key, launch_key in (("chip.cycles", "cycles"), ("chip.launch_cycles", "launch_cycles"),
                                 ("chip.hbm.bytes", "hbm_bytes"), ("chip.gm.bytes", "gm_bytes"),
                                 ("chip.blocks", "blocks"), ("op.cube_macs", "cube_macs")):
        if s[chip_key] != sum(each(launch_key)):
            fail("%s: %s %s != the launches' %s" % (label, chip_key, s[chip_key], each(launch_key)))
    if s["chip.cycles"] != s["op.total_cycles"]:
        fail("%s: chip.cycles %s != op.total_cycles %s" % (label, s["chip.cycles"], s["op.total_cycles"]))
    if s["op.cube_macs"] <= 0 or s["op.cube_macs"] != s.get("op.launch0.cube_macs"):
        fail("%s: the Cube's MACs %s are not launch 0's %s" % (label, s["op.cube_macs"], s.get("op.launch0.cube_macs")))
    if not 0 < s["chip.cube.utilisation_avg_pct"] <= s["chip.cube.utilisation_max_pct"]:
        fail("%s: Cube mean %s, max %s" % (label, s["chip.cube.utilisation_avg_pct"],
                                          s["chip.cube.utilisation_max_pct"]))
    print("%s: %d launches, %d cycles (+%d), HBM %d bytes, %d MACs: %s" %
          (label, n, s["chip.cycles"], s["chip.launch_cycles"], s["chip.hbm.bytes"], s["op.cube_macs"],
           "ok" if not bad else "FAIL"))

# the text report says which figures are the launches'
text = subprocess.run([dvsim, "run", "matmul", "--chip", "ascend910b3", "--shape", "M=256,N=256,K=16384,KS=4",
                       "--no-data"], check=True, capture_output=True, text=True).stdout
if "every launch's, summed" not in text or "last launch: kernel matmul_ksum" not in text:
    fail("the report does not say which figures cover every launch:\n" + text[:2000])
sys.exit(1 if bad else 0)

#!/usr/bin/env python3
"""roofline_launches.py DVSIM - an operator's roofline is over all its launches:
op.roofline.achieved_pct is the bound over every launch's cycles
(op.total_cycles), never the last launch's alone, so a split-K matmul (a
product launch, then a reduction launch on other cores) stays at or under
100%; a one-launch run gives the same rule."""
import json
import subprocess
import sys

dvsim = sys.argv[1]
cases = [
    ("matmul", "ascend910", "M=49,N=512,K=4608", 2),  # split-K chosen by the tiling
    ("matmul", "ascend910b3", "M=256,N=256,K=16384", 2),  # split-K, reduction on the AIVs
    ("matmul", "ascend910", "M=256,N=256,K=256", 1),
]
bad = 0
for op, chip, shape, launches in cases:
    out = subprocess.run([dvsim, "run", op, "--chip", chip, "--shape", shape, "--no-data", "--json"],
                         check=True, capture_output=True, text=True).stdout
    s = {k: v["value"] for k, v in json.loads(out).items() if isinstance(v, dict) and "value" in v}
    bound, total, pct = s["op.roofline.bound_cycles"], s["op.total_cycles"], s["op.roofline.achieved_pct"]
    want = 100.0 * bound / total
    ok = s["op.launches"] == launches and abs(pct - want) < 1e-3 * want and 0 < pct <= 100.0
    print(f"{op} {chip} {shape}: {s['op.launches']} launches, bound {bound:.0f} / {total} cycles = "
          f"{want:.2f}%, reported {pct:.2f}%: {'ok' if ok else 'FAIL'}")
    bad += not ok
sys.exit(1 if bad else 0)

#!/usr/bin/env python3
"""fp32_cube.py DVSIM SAMPLE - the split chips' fp32 Cube runs at the chip
config's rate: kernels/samples/mmad_f32_loop.dvs issues n back-to-back f32
mmads of 128x64x128, 512 fractals of 16x8x16 each (C0 = 8, facts #5), so the
Cube is busy 2 cycles a fractal (cube.fp32_fractal_cycles = 2, facts #6:
1024 MAC/cycle) plus one cube.head_cycles: exactly 2 N + head for N
fractals, and core0.cube.utilisation_pct (f32 MACs over the f32 peak) is
2 N over the core's cycles.  On ascend910b (head 6) and ascend910b3 (3)."""
import json
import subprocess
import sys

dvsim, sample = sys.argv[1], sys.argv[2]
bad = 0
for chip, head in (("ascend910b", 6), ("ascend910b3", 3)):
    for n in (1, 40):
        out = subprocess.run([dvsim, "run", sample, "--chip", chip, "--gm", "zeros=zeros:32768", "--arg",
                              f"n={n}", "--json"], check=True, capture_output=True, text=True).stdout
        s = {k: v["value"] for k, v in json.loads(out).items() if isinstance(v, dict) and "value" in v}
        fractals = 512 * n
        busy, cycles, util = s["core0.cube.busy_cycles"], s["core0.cycles"], s["core0.cube.utilisation_pct"]
        want_util = 100.0 * 2 * fractals / cycles
        ok = (s["core0.cube.fractals"] == fractals and s["core0.cube.macs_f32"] == 128 * 64 * 128 * n
              and busy == 2 * fractals + head and abs(util - want_util) < 1e-6 * want_util)
        print(f"{chip} n={n}: {fractals} f32 fractals, Cube busy {busy} (2 N + {head} = {2 * fractals + head}), "
              f"{cycles} cycles, utilisation {util:.2f}% (2 N / cycles {want_util:.2f}%): {'ok' if ok else 'FAIL'}")
        bad += not ok
sys.exit(1 if bad else 0)

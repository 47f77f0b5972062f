#!/usr/bin/env python3
"""plots.py SWEEP_DIR OUT_DIR - the plots of docs/sweeps.md's study from its
sweep folder (dvsim sweep docs/study/l1-hbm-aic.ini --out SWEEP_DIR), and the
figures its text quotes, printed."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import dvsim  # noqa: E402

sweep, out = sys.argv[1], sys.argv[2]
rows = dvsim.load(sweep, frame=False)
ok = [r for r in rows if r["status"] == "ok"]
small = dict(size=(6.4, 4.4), dpi=80)

dvsim.plot.metric(rows, x="l1", y="chip.time_us", by=("workload",), where={"hbm": 889, "aic": 25}, logy=True,
                  title="run time against L1 size (HBM 1.6 TB/s, 25 AICs)",
                  out=os.path.join(out, "sweep-l1.png"), **small)
dvsim.plot.metric(rows, x="aic", y="op.cube_tflops", by=("workload", "hbm"), where={"l1": 524288},
                  title="Cube TFLOPS against AIC count (L1 512 KiB): workload, HBM B/cycle",
                  out=os.path.join(out, "sweep-aic.png"), **small)
dvsim.plot.heatmap(rows, x="hbm", y="aic", value="chip.time_us", where={"workload": "attention", "l1": 524288},
                   title="attention run time (us) over HBM B/cycle x AICs (L1 512 KiB)",
                   out=os.path.join(out, "sweep-heat-attention.png"), **small)
dvsim.plot.heatmap(rows, x="hbm", y="aic", value="chip.time_us", where={"workload": "mm-skinny", "l1": 524288},
                   title="64x4096x4096 matmul run time (us) over HBM B/cycle x AICs",
                   out=os.path.join(out, "sweep-heat-skinny.png"), **small)
dvsim.plot.roofline(rows, where={"l1": 524288}, title="the runs at L1 512 KiB under their chips' roofs",
                    out=os.path.join(out, "sweep-roofline.png"), **small)


def get(w, l1, hbm, aic, m):
    r = next(r for r in rows if r["workload"] == w and r["l1"] == l1 and r["hbm"] == hbm and r["aic"] == aic)
    return r[m] if r["status"] == "ok" else r["message"]


print(f"{len(rows)} jobs, {len(ok)} ok")
for w in ("mm-square", "mm-skinny", "attention"):
    print(w)
    print("  time_us over L1 (hbm 889, aic 25):", [get(w, l1, 889, 25, "chip.time_us") for l1 in (131072, 262144, 393216, 524288)])
    print("  time_us over HBM (l1 512K, aic 25):", [get(w, 524288, h, 25, "chip.time_us") for h in (222, 444, 889, 1778)])
    print("  time_us over AIC (l1 512K, hbm 889):", [get(w, 524288, 889, a, "chip.time_us") for a in (5, 10, 20, 25)])
    print("  TFLOPS over AIC (l1 512K, hbm 889):", [get(w, 524288, 889, a, "op.cube_tflops") for a in (5, 10, 20, 25)])
    print("  TFLOPS over AIC (l1 512K, hbm 222):", [get(w, 524288, 222, a, "op.cube_tflops") for a in (5, 10, 20, 25)])
    print("  cube util over AIC (hbm 889):", [get(w, 524288, 889, a, "chip.cube.utilisation_avg_pct") for a in (5, 10, 20, 25)])
    print("  hbm util over AIC (hbm 889):", [get(w, 524288, 889, a, "chip.hbm.utilisation_pct") for a in (5, 10, 20, 25)])
    print("  block_dim:", get(w, 524288, 889, 25, "op.block_dim"), "hbm bytes", get(w, 524288, 889, 25, "chip.hbm.bytes"),
          "macs", get(w, 524288, 889, 25, "op.cube_macs"))

#!/usr/bin/env python3
"""matmul_sweep.py - the matmul sweep of docs/operators.md: real models'
GEMM shapes (LLaMA-7B projections at batch 1 and 64, BERT-base, ResNet-50
convolutions as GEMMs) on each chip, timing only (--no-data), one dvsim run
each; every figure is read from what dvsim prints.

  scripts/matmul_sweep.py [--dvsim PATH] [--chips a,b] [--docs docs/operators.md]
                          [--baseline tests/perf/baseline.json]

Prints the markdown table; --docs replaces the table between the markers
<!-- matmul-sweep --> and <!-- /matmul-sweep --> in that file; --baseline
adds an entry per (shape, chip) of --baseline-chips that the baseline lacks
(its figures then come from `dvsim regress --bless`).

Columns: cycles (the kernel without the launch overhead; a split-K plan
counts both launches' core cycles, chip.cycles = op.total_cycles, plus the
second launch's overhead, which only it pays: chip.launch_cycles, every
launch's, less op.launch0.launch_cycles), us
(those cycles at the chip clock), TFLOPS (2 M N K / that time), % of the
chip's fp16 Cube peak (TFLOPS / the peak `dvsim chips` prints), % HBM (HBM
traffic / peak over that time: chip.hbm.bytes, every launch's), and the
operator roofline's bound with the share of those cycles it is."""
import argparse
import json
import re
import subprocess
import sys

SHAPES = [
    # (model, layer, M, N, K)
    ("LLaMA-7B b1", "qkv", 1, 12288, 4096),
    ("LLaMA-7B b1", "o_proj", 1, 4096, 4096),
    ("LLaMA-7B b1", "gate_up", 1, 22016, 4096),
    ("LLaMA-7B b1", "down", 1, 4096, 11008),
    ("LLaMA-7B b64", "qkv", 64, 12288, 4096),
    ("LLaMA-7B b64", "o_proj", 64, 4096, 4096),
    ("LLaMA-7B b64", "gate_up", 64, 22016, 4096),
    ("LLaMA-7B b64", "down", 64, 4096, 11008),
    ("BERT-base s128 b8", "qkv", 1024, 2304, 768),
    ("BERT-base s128 b8", "attn_out", 1024, 768, 768),
    ("BERT-base s128 b8", "ffn1", 1024, 3072, 768),
    ("BERT-base s128 b8", "ffn2", 1024, 768, 3072),
    ("ResNet-50 b1", "conv2 3x3 64", 3136, 64, 576),
    ("ResNet-50 b1", "conv3 3x3 128", 784, 128, 1152),
    ("ResNet-50 b1", "conv4 3x3 256", 196, 256, 2304),
    ("ResNet-50 b1", "conv5 3x3 512", 49, 512, 4608),
    ("ResNet-50 b1", "conv4 1x1 256->1024", 196, 1024, 256),
]
CHIPS = ["ascend910", "ascend910b1", "ascend910b3"]
BEGIN, END = "<!-- matmul-sweep -->", "<!-- /matmul-sweep -->"


def run(dvsim, args):
    p = subprocess.run([dvsim] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s %s: exit %d: %s" % (dvsim, " ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout


def chip_info(dvsim):
    """name -> (MHz, fp16 TFLOPS peak) from `dvsim chips`."""
    info = {}
    for line in run(dvsim, ["chips"]).splitlines()[1:]:
        f = line.split()
        # chip source... cores MHz fp16TF int8TOPS HBM ...
        m = re.match(r"(\S+)\s+.*?\s(\S+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s", line)
        if m:
            info[f[0]] = (float(m.group(3)), float(m.group(4)))
    return info


def measure(dvsim, chip, m, n, k):
    shape = "M=%d,N=%d,K=%d" % (m, n, k)
    out = run(dvsim, ["run", "matmul", "--chip", chip, "--shape", shape, "--no-data", "--json"])
    s = json.loads(out)
    text = run(dvsim, ["run", "matmul", "--chip", chip, "--shape", shape, "--no-data"])
    bound = re.search(r"bound by (\S+) at ([\d.]+) cycles, achieved ([\d.]+)%", text)
    tiling = re.search(r"^tiling: (.*)$", text, re.M).group(1)
    launches = int(s["op.launches"]["value"])
    # chip.* are every launch's: the core cycles and the overheads after the first
    cycles = int(s["chip.cycles"]["value"]) + int(s["chip.launch_cycles"]["value"]) - \
        int(s["op.launch0.launch_cycles"]["value"])
    return {
        "shape": shape,
        "cycles": cycles,
        "ksplit": int(s["op.plan.k_split"]["value"]),
        "hbm_bytes": s["chip.hbm.bytes"]["value"],
        "bound": bound.group(1) if bound else "?",
        # dvsim's share is of the core cycles alone: with split-K, of these
        "achieved": (float(bound.group(3)) if launches == 1 else 100.0 * float(bound.group(2)) / cycles)
        if bound else 0,
        "tile": "%dx%d" % (s["op.plan.tile_m"]["value"], s["op.plan.tile_n"]["value"]),
        "plan": tiling,
        "blocks": int(s["op.plan.blocks"]["value"]),
        "achunk": int(s["op.plan.a_chunked"]["value"]),
        "apanels": int(s["op.plan.a_panels"]["value"]),
        "hbm_peak_gbps": s["chip.hbm.peak_gbps"]["value"],
    }


def table(dvsim, chips):
    info = chip_info(dvsim)
    rows = ["| chip | model | layer | M x N x K | plan | cycles | us | TFLOPS | % Cube | % HBM | bound (achieved) |",
            "|---|---|---|---|---|---:|---:|---:|---:|---:|---|"]
    for chip in chips:
        mhz, peak = info[chip]
        for model, layer, m, n, k in SHAPES:
            r = measure(dvsim, chip, m, n, k)
            us = r["cycles"] / mhz
            tflops = 2.0 * m * n * k / (us * 1e-6) / 1e12
            hbm_pct = 100.0 * r["hbm_bytes"] / (us * 1e-6) / (r["hbm_peak_gbps"] * 1e9)
            plan = "%d x %s%s" % (r["blocks"], r["tile"], ", A chunks" if r["achunk"] else
                                  ", 2 A panels" if r["apanels"] == 2 else "")
            if r["ksplit"] > 1:
                plan += ", split-K %d" % r["ksplit"]
            hbm = "%.1f" % hbm_pct
            rows.append("| %s | %s | %s | %dx%dx%d | %s | %d | %.1f | %.1f | %.1f | %s | %s (%.0f%%) |" %
                        (chip, model, layer, m, n, k, plan, r["cycles"], us, tflops, 100.0 * tflops / peak,
                         hbm, r["bound"], r["achieved"]))
    return "\n".join(rows) + "\n"


def add_baseline(path, chips):
    with open(path) as f:
        b = json.load(f)
    have = {(e.get("op"), e.get("variant"), e.get("dtype"), e.get("shape"), e.get("chip")) for e in b["entries"]}
    added = 0
    for chip in chips:
        for _, _, m, n, k in SHAPES:
            shape = "M=%d,N=%d,K=%d" % (m, n, k)
            key = ("matmul", "db", "f16", shape, chip)
            if key in have:
                continue
            have.add(key)
            b["entries"].append({"op": "matmul", "variant": "db", "dtype": "f16", "shape": shape, "chip": chip,
                                 "data": False})
            added += 1
    with open(path, "w") as f:
        json.dump(b, f, indent=1)
        f.write("\n")
    print("%s: %d entries added (run dvsim regress --bless for their figures)" % (path, added), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dvsim", default="build/cli/dvsim")
    ap.add_argument("--chips", default=",".join(CHIPS))
    ap.add_argument("--docs")
    ap.add_argument("--baseline")
    ap.add_argument("--baseline-chips", default="ascend910,ascend910b3")
    a = ap.parse_args()
    if a.baseline:
        add_baseline(a.baseline, a.baseline_chips.split(","))
        return
    t = table(a.dvsim, a.chips.split(","))
    if a.docs:
        with open(a.docs) as f:
            doc = f.read()
        i, j = doc.find(BEGIN), doc.find(END)
        if i < 0 or j < i:
            sys.exit("%s: no %s ... %s section" % (a.docs, BEGIN, END))
        doc = doc[:i + len(BEGIN)] + "\n" + t + doc[j:]
        with open(a.docs, "w") as f:
            f.write(doc)
    else:
        sys.stdout.write(t)


if __name__ == "__main__":
    main()

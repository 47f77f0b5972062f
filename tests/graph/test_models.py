#!/usr/bin/env python3
"""test_models.py - the seeded test models through dvsim compile.

usage: test_models.py DVSIM MAKE_MODELS_PY WORKDIR

Builds the models with scripts/make_models.py (Debian's /usr/bin/python3 with
python3-onnx; exit 77 when it is missing), compiles each at -O0 and -O2 with
--ref --json and checks: both plans' reference outputs agree (within fp16
tolerance) with each other, the -O2 plan has fewer steps and a lower GM peak,
and the pass counts that follow from each model's structure (counted by hand
from make_models.py).  Then the .dvm round trip and the malformed-input exits.
"""
import json
import os
import subprocess
import sys

DEBIAN_PYTHON = "/usr/bin/python3"

# What -O2 must find in each model, from its construction in make_models.py.
EXPECT = {
    # two Gemm+Relu and one MatMul+Add: three matmul epilogues
    "mlp": {"fused_matmul": 3, "steps": 3},
    # two Conv-BN: both BNs folded; Conv+Relu once into conv2d_bias_relu
    "resnet_block": {"bn_folded": 2, "fused_conv": 1},
    # 8 Conv-BN (stem, 2x2 per block, 1 projection): all folded; stem + 3 first convs fuse with Relu
    "resnet_small": {"bn_folded": 8, "fused_conv": 4},
    # Q, K, V, O, FFN1 (+GELU), FFN2 epilogues; one attention; 3 x (Shape, Gather, Concat) folded
    # the 4 head split/merge Transposes (perm 0,2,1,3) run on the device as permute: no host step
    "bert_layer": {"fused_matmul": 6, "fused_attention": 1, "shape_folded": 9, "layernorms": 2,
                   "steps_host": 0, "permute_steps": 4},
    # only the gate's SiLU fuses (no biases); one attention; both RMSNorms (Mul(x, x), ReduceMean,
    # Add eps, Sqrt, Reciprocal, Mul x, Mul weight: 7 nodes) one rmsnorm each; 4 Transposes, 4 rotary
    # Slices and 2 Concats (one permute per input) on the device; the host steps left are Muls
    # (rotary's cos/sin products, SwiGLU's gate product) and rotary's Neg
    "llama_layer": {"fused_matmul": 1, "fused_attention": 1, "shape_folded": 9, "rmsnorms": 2,
                    "steps_host": 7, "permute_steps": 12},
    # Q, K, V, O, FFN1, FFN2 bias epilogues; attention with the Q-side scale, K's [0,2,3,1] Transpose
    # split and the additive causal mask (CAUSAL=1); the erf GELU (0.5 first) as one host step;
    # 2 x (Shape, Gather, Concat) folded
    # its 4 Transposes (K's split-off [0,2,1,3] part included) as permute: the GELU is the only host step
    "gpt_layer": {"fused_matmul": 6, "fused_attention": 1, "fused_gelu": 1, "shape_folded": 6, "layernorms": 2,
                  "steps_host": 1, "permute_steps": 4},
}


def run(cmd, expect_rc=0):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != expect_rc:
        sys.exit("FAIL: %s: exit %d, expected %d\n%s%s" % (" ".join(cmd), p.returncode, expect_rc, p.stdout, p.stderr))
    return p


def main():
    dvsim, make_models, work = sys.argv[1:4]
    if not os.path.exists(DEBIAN_PYTHON) or subprocess.run([DEBIAN_PYTHON, "-c", "import onnx"]).returncode:
        print("SKIP: %s has no onnx module (python3-onnx, scripts/packages.txt)" % DEBIAN_PYTHON)
        return 77
    os.makedirs(work, exist_ok=True)
    run([DEBIAN_PYTHON, make_models, work])
    for name, want in EXPECT.items():
        model = os.path.join(work, name + ".onnx")
        o0 = json.loads(run([dvsim, "compile", model, "-O0", "--ref", "--json"]).stdout)
        dvm = os.path.join(work, name + ".dvm")
        o2 = json.loads(run([dvsim, "compile", model, "-O2", "--ref", "--json", "-o", dvm]).stdout)
        r0, r2 = o0["report"], o2["report"]
        assert o0["ref"] == "passed" and o2["ref"] == "passed", name
        assert r2["steps"] < r0["steps"], "%s: %d steps at -O2, %d at -O0" % (name, r2["steps"], r0["steps"])
        assert r2["peak_bytes"] < r0["peak_bytes"], "%s: peak %d at -O2, %d at -O0" % (
            name, r2["peak_bytes"], r0["peak_bytes"])
        assert r0["peak_bytes"] == r0["peak_no_reuse_bytes"], name  # -O0 shares no buffer
        r2 = dict(r2, permute_steps=sum(1 for s in o2["steps"] if s["op"] == "permute"))
        for key, v in want.items():
            assert r2[key] == v, "%s: %s = %s, expected %s" % (name, key, r2[key], v)
        if name == "gpt_layer":
            att = [s for s in o2["steps"] if s["op"] == "attention"]
            assert len(att) == 1 and att[0]["shape"].endswith("CAUSAL=1"), att
            assert any("split" in line for line in o2["passes"]), o2["passes"]
        # no two buffers live at once may overlap in GM
        ts = [t for t in o2["tensors"] if t["region"] == "activations" and t["alias"] < 0 and t["last_step"] >= -1
              and t["first_step"] <= t["last_step"]]
        for i, a in enumerate(ts):
            for b in ts[i + 1:]:
                live = not (a["last_step"] < b["first_step"] or b["last_step"] < a["first_step"])
                space = a["offset"] < b["offset"] + b["bytes"] and b["offset"] < a["offset"] + a["bytes"]
                assert not (live and space), "%s: %s and %s overlap" % (name, a["name"], b["name"])
        back = json.loads(run([dvsim, "compile", dvm, "--json"]).stdout)
        assert back["steps"] == o2["steps"] and back["report"]["peak_bytes"] == r2["peak_bytes"], name
        print("%-13s -O0 %3d steps, peak %8d B | -O2 %3d steps, peak %8d B, %d device, %d host, %d layout" % (
            name, r0["steps"], r0["peak_bytes"], r2["steps"], r2["peak_bytes"], r2["steps_device"], r2["steps_host"],
            r2["steps_layout"]))
    # malformed inputs: one line, exit 65
    dvm = os.path.join(work, "bert_layer.dvm")
    data = open(dvm, "rb").read()
    bad = os.path.join(work, "bad.dvm")
    for blob in (data[: len(data) // 2], data[:40], data[:100] + bytes([data[100] ^ 1]) + data[101:]):
        open(bad, "wb").write(blob)
        err = run([dvsim, "compile", bad], 65).stderr
        assert err.count("\n") == 1 and "not a valid .dvm" in err, err
    onnx_bytes = open(os.path.join(work, "mlp.onnx"), "rb").read()
    open(os.path.join(work, "cut.onnx"), "wb").write(onnx_bytes[: len(onnx_bytes) // 3])
    err = run([dvsim, "compile", os.path.join(work, "cut.onnx")], 65).stderr
    assert "malformed or truncated" in err, err
    run([dvsim, "compile", os.path.join(work, "missing.onnx")], 66)
    run([dvsim, "compile", os.path.join(work, "mlp.onnx"), "-O3"], 64)
    print("models: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

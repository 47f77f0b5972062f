#!/bin/sh
# bench-compile.sh [DVSIM] [NODES] - what `dvsim compile` costs (issue 18's
# "a 50-node graph compiles in under a second"): the CPU seconds of import
# and of the compile (the figures `dvsim compile --json` reports, clock()),
# median of 3, at -O0 and -O2, for the seeded test models of make_models.py
# and for synthetic MLPs of about NODES nodes each (default "50 500 2000":
# Gemm -> Relu -> MatMul -> Add -> Relu blocks of width 256, so every node
# becomes a device step and the compile cost grows with the graph, not with
# one big weight).  Prints a markdown table.  Needs /usr/bin/python3 with
# python3-onnx.
set -eu
dvsim=${1:-build/cli/dvsim}
sizes=${2:-"50 500 2000"}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

/usr/bin/python3 "$here/make_models.py" "$tmp" > /dev/null
for n in $sizes; do
    /usr/bin/python3 - "$tmp/mlp$n.onnx" "$n" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
path, want = sys.argv[1], int(sys.argv[2])
rng = np.random.RandomState(1)
W = 256
nodes, inits, x = [], [], "x"
def weight(name, shape):
    inits.append(numpy_helper.from_array((rng.standard_normal(shape) * 0.05).astype(np.float32), name))
    return name
i = 0
while len(nodes) + 5 <= want:
    a, b, c, d, e = (f"t{i}_{k}" for k in range(5))
    nodes.append(helper.make_node("Gemm", [x, weight(f"w{i}a", [W, W]), weight(f"b{i}a", [W])], [a], transB=1))
    nodes.append(helper.make_node("Relu", [a], [b]))
    nodes.append(helper.make_node("MatMul", [b, weight(f"w{i}b", [W, W])], [c]))
    nodes.append(helper.make_node("Add", [c, weight(f"b{i}b", [W])], [d]))
    nodes.append(helper.make_node("Relu", [d], [e]))
    x, i = e, i + 1
while len(nodes) < want:
    y = f"r{len(nodes)}"
    nodes.append(helper.make_node("Relu", [x], [y]))
    x = y
g = helper.make_graph(nodes, f"mlp{want}", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, W])],
                      [helper.make_tensor_value_info(x, TensorProto.FLOAT, [16, W])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
PY
done

# one compile: prints "nodes steps import_s compile_s"
one() {
    "$dvsim" compile "$1" "$2" --json > "$tmp/out.json"
    /usr/bin/python3 - "$tmp/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["report"]["nodes_in"], len(d["steps"]), d["import_cpu_seconds"], d["compile_cpu_seconds"])
PY
}

median() { sort -n -k"$1" | sed -n 2p | cut -d' ' -f"$1"; }

echo "| model | nodes | level | steps | import CPU ms | compile CPU ms |"
echo "|---|---:|---|---:|---:|---:|"
models="mlp resnet_block resnet_small bert_layer llama_layer"
for n in $sizes; do models="$models mlp$n"; done
for m in $models; do
    for o in -O0 -O2; do
        : > "$tmp/runs"
        for i in 1 2 3; do one "$tmp/$m.onnx" "$o" >> "$tmp/runs"; done
        set -- $(head -1 "$tmp/runs")
        imp=$(median 3 < "$tmp/runs")
        cmp=$(median 4 < "$tmp/runs")
        awk -v m="$m" -v n="$1" -v o="$o" -v s="$2" -v i="$imp" -v c="$cmp" \
            'BEGIN { printf "| %s | %s | %s | %s | %.1f | %.1f |\n", m, n, o, s, i * 1000, c * 1000 }'
    done
done

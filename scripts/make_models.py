#!/usr/bin/python3
"""make_models.py - seeded ONNX test models for dvsim's graph compiler.

usage: /usr/bin/python3 scripts/make_models.py OUT_DIR [--seed S]

Writes, with python3-onnx's onnx.helper (opset 17), random weights drawn from
numpy's RandomState(seed):
  mlp.onnx           Gemm+Relu, Gemm+Relu, MatMul+Add: x[8,256] -> [8,128]
  resnet_block.onnx  a ResNet basic block: Conv-BN-Relu-Conv-BN-Add-Relu, [1,64,28,28]
  resnet_small.onnx  stem Conv-BN-Relu, MaxPool, two basic blocks, a strided block with a
                     1x1 projection, GlobalAveragePool, Flatten, Gemm: [1,3,32,32] -> [1,10]
  bert_layer.onnx    a BERT-style encoder layer, hidden 256, 4 heads of 64, sequence 128:
                     Q/K/V projections, Reshape (its shape from a Shape-Gather-Concat chain,
                     as PyTorch exports it), Transposes, MatMul-Div-Softmax-MatMul, output
                     projection, residual Add, LayerNormalization, FFN 1024 with
                     x*Sigmoid(1.702x) GELU (opset 17 has no Gelu op), Add, LayerNormalization
  llama_layer.onnx   a LLaMA-style decoder layer, hidden 256, 4 heads of 64, sequence 128:
                     pre-norm RMSNorm as Mul(x, x), ReduceMean, Add 1e-5, Sqrt, Reciprocal,
                     Mul x, Mul weight (torch_llama has the Pow/Div form), Q/K/V without bias, rotary embedding (Slice, Mul -1,
                     Concat, Mul cos/sin, Add), attention without a mask, SwiGLU MLP
                     (x*Sigmoid(x) * up), residual Adds
  gpt_layer.onnx     a GPT-style pre-norm layer in the forms PyTorch's exporter writes: Q scaled by
                     Mul 1/8 before Q K^T, K as Transpose(perm [0,2,3,1]) of [1,S,H,D], an additive
                     causal mask (0 / float32's lowest), the erf GELU as Mul(Mul(x, 0.5), 1 +
                     Erf(x / sqrt2)), FFN 1024
  two_branch.onnx    x[64,256] -> 3 MatMuls and x -> 2 MatMuls, Add: two independent branches
  branch_a.onnx      two_branch's 3-MatMul branch alone
Run with Debian's /usr/bin/python3 (python3-onnx).
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class Builder:
    """Nodes, initializers and fresh names for one graph."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, base):
        self.count += 1
        return "%s_%d" % (base, self.count)

    def weight(self, base, shape, scale=None):
        fan_in = shape[1] if len(shape) > 1 else shape[0]
        if len(shape) == 4:
            fan_in = shape[1] * shape[2] * shape[3]
        s = scale if scale is not None else 1.0 / np.sqrt(fan_in)
        return self.const(base, (self.rng.uniform(-1, 1, size=shape) * s).astype(np.float32))

    def const(self, base, array):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def op(self, op_type, inputs, base=None, **attrs):
        out = self.name(base or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=self.name(op_type), **attrs))
        return out

    def conv_bn(self, x, cin, cout, k, stride=1, relu=True):
        w = self.weight("conv_w", [cout, cin, k, k])
        y = self.op("Conv", [x, w], "conv", kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4)
        scale = self.const("bn_scale", self.rng.uniform(0.5, 1.5, cout).astype(np.float32))
        bias = self.const("bn_bias", self.rng.uniform(-0.2, 0.2, cout).astype(np.float32))
        mean = self.const("bn_mean", self.rng.uniform(-0.2, 0.2, cout).astype(np.float32))
        var = self.const("bn_var", self.rng.uniform(0.5, 1.5, cout).astype(np.float32))
        y = self.op("BatchNormalization", [y, scale, bias, mean, var], "bn", epsilon=1e-5)
        return self.op("Relu", [y]) if relu else y

    def basic_block(self, x, cin, cout, stride=1):
        y = self.conv_bn(x, cin, cout, 3, stride)
        y = self.conv_bn(y, cout, cout, 3, 1, relu=False)
        skip = x if stride == 1 and cin == cout else self.conv_bn(x, cin, cout, 1, stride, relu=False)
        return self.op("Relu", [self.op("Add", [y, skip])])

    def linear(self, x, din, dout, bias=True):
        y = self.op("MatMul", [x, self.weight("w", [din, dout])])
        if bias:
            y = self.op("Add", [y, self.const("b", (self.rng.uniform(-0.1, 0.1, dout)).astype(np.float32))])
        return y

    def layernorm(self, x, dim):
        g = self.const("ln_g", self.rng.uniform(0.8, 1.2, dim).astype(np.float32))
        b = self.const("ln_b", self.rng.uniform(-0.1, 0.1, dim).astype(np.float32))
        return self.op("LayerNormalization", [x, g, b], "ln", axis=-1, epsilon=1e-5)

    def rmsnorm(self, x, dim):
        g = self.const("rms_g", self.rng.uniform(0.8, 1.2, dim).astype(np.float32))
        ms = self.op("ReduceMean", [self.op("Mul", [x, x])], "rms", axes=[-1], keepdims=1)
        r = self.op("Reciprocal", [self.op("Sqrt", [self.op("Add", [ms, self.const("eps", np.array(1e-5, dtype=np.float32))])])])
        return self.op("Mul", [self.op("Mul", [x, r]), g])

    def model(self, name, inputs, outputs):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="dvsim make_models.py")
        onnx.checker.check_model(m)
        return m


def tensor(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def mlp(rng):
    b = Builder(rng)
    w1 = b.weight("w1", [512, 256])
    h = b.op("Gemm", ["x", w1, b.const("b1", rng.uniform(-0.1, 0.1, 512).astype(np.float32))], transB=1)
    h = b.op("Relu", [h])
    w2 = b.weight("w2", [512, 256])
    h = b.op("Gemm", [h, w2, b.const("b2", rng.uniform(-0.1, 0.1, 256).astype(np.float32))])
    h = b.op("Relu", [h])
    y = b.linear(h, 256, 128)
    b.nodes.append(helper.make_node("Identity", [y], ["y"], name="out"))
    return b.model("mlp", [tensor("x", [8, 256])], [tensor("y", [8, 128])])


def resnet_block(rng):
    b = Builder(rng)
    y = b.basic_block("x", 64, 64)
    b.nodes.append(helper.make_node("Identity", [y], ["y"], name="out"))
    return b.model("resnet_block", [tensor("x", [1, 64, 28, 28])], [tensor("y", [1, 64, 28, 28])])


def resnet_small(rng):
    b = Builder(rng)
    y = b.conv_bn("x", 3, 16, 3)
    y = b.op("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2])
    y = b.basic_block(y, 16, 16)
    y = b.basic_block(y, 16, 16)
    y = b.basic_block(y, 16, 32, stride=2)
    y = b.op("GlobalAveragePool", [y])
    y = b.op("Flatten", [y], axis=1)
    y = b.op("Gemm", [y, b.weight("fc_w", [10, 32]), b.const("fc_b", rng.uniform(-0.1, 0.1, 10).astype(np.float32))],
             transB=1)
    b.nodes.append(helper.make_node("Identity", [y], ["y"], name="out"))
    return b.model("resnet_small", [tensor("x", [1, 3, 32, 32])], [tensor("y", [1, 10])])


def heads(b, x, seq, nh, hd):
    """[1, S, nh*hd] -> [1, nh, S, hd], the Reshape's shape from the input's own Shape (PyTorch's way)."""
    shape = b.op("Shape", [x])
    batch = b.op("Gather", [shape, b.const("i0", np.array([0], dtype=np.int64))], axis=0)
    target = b.op("Concat", [batch, b.const("shp", np.array([seq, nh, hd], dtype=np.int64))], axis=0)
    y = b.op("Reshape", [x, target])
    return b.op("Transpose", [y], perm=[0, 2, 1, 3])


def merge(b, x, seq, dim):
    y = b.op("Transpose", [x], perm=[0, 2, 1, 3])
    return b.op("Reshape", [y, b.const("shp", np.array([1, seq, dim], dtype=np.int64))])


def attention(b, q, k, v, hd):
    kt = b.op("Transpose", [k], perm=[0, 1, 3, 2])
    s = b.op("MatMul", [q, kt])
    s = b.op("Div", [s, b.const("scale", np.array(np.sqrt(hd), dtype=np.float32))])
    p = b.op("Softmax", [s], axis=-1)
    return b.op("MatMul", [p, v])


def bert_layer(rng, seq=128, dim=256, nh=4, ffn=1024):
    b = Builder(rng)
    hd = dim // nh
    q = heads(b, b.linear("x", dim, dim), seq, nh, hd)
    k = heads(b, b.linear("x", dim, dim), seq, nh, hd)
    v = heads(b, b.linear("x", dim, dim), seq, nh, hd)
    a = merge(b, attention(b, q, k, v, hd), seq, dim)
    h = b.layernorm(b.op("Add", [b.linear(a, dim, dim), "x"]), dim)
    f = b.linear(h, dim, ffn)
    g = b.op("Sigmoid", [b.op("Mul", [f, b.const("k", np.array(1.702, dtype=np.float32))])])
    f = b.op("Mul", [f, g])
    y = b.layernorm(b.op("Add", [b.linear(f, ffn, dim), h]), dim)
    b.nodes.append(helper.make_node("Identity", [y], ["y"], name="out"))
    return b.model("bert_layer", [tensor("x", [1, seq, dim])], [tensor("y", [1, seq, dim])])


def rotary(b, x, seq, hd):
    half = hd // 2
    inv = 1.0 / (10000 ** (np.arange(0, half) / half))
    ang = np.outer(np.arange(seq), inv)
    cos = b.const("cos", np.concatenate([np.cos(ang)] * 2, axis=1).astype(np.float32))
    sin = b.const("sin", np.concatenate([np.sin(ang)] * 2, axis=1).astype(np.float32))
    ax = b.const("ax", np.array([3], dtype=np.int64))
    x1 = b.op("Slice", [x, b.const("s0", np.array([0], dtype=np.int64)), b.const("e0", np.array([half], dtype=np.int64)), ax])
    x2 = b.op("Slice", [x, b.const("s1", np.array([half], dtype=np.int64)), b.const("e1", np.array([hd], dtype=np.int64)), ax])
    rot = b.op("Concat", [b.op("Mul", [x2, b.const("neg", np.array(-1, dtype=np.float32))]), x1], axis=3)
    return b.op("Add", [b.op("Mul", [x, cos]), b.op("Mul", [rot, sin])])


def llama_layer(rng, seq=128, dim=256, nh=4, ffn=512):
    b = Builder(rng)
    hd = dim // nh
    h = b.rmsnorm("x", dim)
    q = rotary(b, heads(b, b.linear(h, dim, dim, bias=False), seq, nh, hd), seq, hd)
    k = rotary(b, heads(b, b.linear(h, dim, dim, bias=False), seq, nh, hd), seq, hd)
    v = heads(b, b.linear(h, dim, dim, bias=False), seq, nh, hd)
    a = merge(b, attention(b, q, k, v, hd), seq, dim)
    x1 = b.op("Add", ["x", b.linear(a, dim, dim, bias=False)])
    h2 = b.rmsnorm(x1, dim)
    gate = b.linear(h2, dim, ffn, bias=False)
    gate = b.op("Mul", [gate, b.op("Sigmoid", [gate])])
    up = b.linear(h2, dim, ffn, bias=False)
    y = b.op("Add", [x1, b.linear(b.op("Mul", [gate, up]), ffn, dim, bias=False)])
    b.nodes.append(helper.make_node("Identity", [y], ["y"], name="out"))
    return b.model("llama_layer", [tensor("x", [1, seq, dim])], [tensor("y", [1, seq, dim])])


def gpt_layer(rng, seq=128, dim=256, nh=4, ffn=1024):
    """The forms torch's exporter writes, built by hand: Q scaled before Q K^T, K transposed to
    [B, H, D, S] in one Transpose (perm [0,2,3,1]), an additive causal mask (0 / float32's lowest),
    and the erf GELU with its 0.5 taken first: Mul(Mul(x, 0.5), 1 + Erf(x / sqrt2))."""
    b = Builder(rng)
    hd = dim // nh
    h = b.layernorm("x", dim)
    q = heads(b, b.linear(h, dim, dim), seq, nh, hd)
    q = b.op("Mul", [q, b.const("qscale", np.array(1 / np.sqrt(hd), dtype=np.float32))])
    k = b.op("Reshape", [b.linear(h, dim, dim), b.const("shp", np.array([1, seq, nh, hd], dtype=np.int64))])
    kt = b.op("Transpose", [k], perm=[0, 2, 3, 1])
    v = heads(b, b.linear(h, dim, dim), seq, nh, hd)
    s = b.op("MatMul", [q, kt])
    mask = np.where(np.triu(np.ones((seq, seq), dtype=bool), 1), np.finfo(np.float32).min, 0).astype(np.float32)
    s = b.op("Add", [s, b.const("causal", mask)])
    a = merge(b, b.op("MatMul", [b.op("Softmax", [s], axis=-1), v]), seq, dim)
    x1 = b.op("Add", ["x", b.linear(a, dim, dim)])
    f = b.linear(b.layernorm(x1, dim), dim, ffn)
    half = b.op("Mul", [f, b.const("half", np.array(0.5, dtype=np.float32))])
    e = b.op("Erf", [b.op("Div", [f, b.const("sqrt2", np.array(np.sqrt(2), dtype=np.float32))])])
    g = b.op("Mul", [half, b.op("Add", [b.const("one", np.array(1, dtype=np.float32)), e])])
    y = b.op("Add", [x1, b.linear(g, ffn, dim)])
    b.nodes.append(helper.make_node("Identity", [y], ["y"], name="out"))
    return b.model("gpt_layer", [tensor("x", [1, seq, dim])], [tensor("y", [1, seq, dim])])


def chain(b, x, n, dim):
    """n MatMuls of [dim, dim] weights one after the other."""
    for _ in range(n):
        x = b.op("MatMul", [x, b.weight("w", [dim, dim])])
    return x


def two_branch(rng, rows=64, dim=256):
    """x -> three MatMuls (branch A) and x -> two MatMuls (branch B), then Add: two independent
    branches for dvsim graph --streams (tests/graph/test_graph.py)."""
    b = Builder(rng)
    y = b.op("Add", [chain(b, "x", 3, dim), chain(b, "x", 2, dim)])
    b.nodes.append(helper.make_node("Identity", [y], ["y"], name="out"))
    return b.model("two_branch", [tensor("x", [rows, dim])], [tensor("y", [rows, dim])])


def branch_a(rng, rows=64, dim=256):
    """two_branch's longer branch alone: what two streams cannot beat."""
    b = Builder(rng)
    y = chain(b, "x", 3, dim)
    b.nodes.append(helper.make_node("Identity", [y], ["y"], name="out"))
    return b.model("branch_a", [tensor("x", [rows, dim])], [tensor("y", [rows, dim])])


MODELS = {"mlp": mlp, "resnet_block": resnet_block, "resnet_small": resnet_small, "bert_layer": bert_layer,
          "llama_layer": llama_layer, "gpt_layer": gpt_layer}
MODELS.update(two_branch=two_branch, branch_a=branch_a)  # the streams test's pair


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for i, (name, fn) in enumerate(MODELS.items()):
        m = fn(np.random.RandomState(a.seed + i))
        onnx.save(m, os.path.join(a.out, name + ".onnx"))
        print("%s: %d nodes, %d initializers" % (name, len(m.graph.node), len(m.graph.initializer)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""make_torch_models.py - test models as PyTorch's ONNX exporter writes them.

usage: /usr/bin/python3 scripts/make_torch_models.py OUT_DIR [--seed S] [--only NAME,...]

Debian's python3-torch / python3-torchvision build the architectures with random
weights (torch.manual_seed(S)), in eval mode, and torch.onnx.export writes them at
opset 17 (constant folding on, as the exporter defaults).  Each model NAME gets
OUT_DIR/NAME/model.onnx and OUT_DIR/NAME/test_data_set_0/{input_0,output_0}.pb
(TensorProtos, the layout of the ONNX backend tests), the output computed by
torch, so `dvsim compile OUT_DIR/NAME/model.onnx --ref` checks dvsim's reference
against torch's.

  torch_mlp           nn.Sequential(Linear 256-512, ReLU, Linear 512-256, ReLU, Linear 256-10), x [8,256]
  torch_basic_block   torchvision's ResNet BasicBlock(64, 64), x [1,64,28,28]
  torch_resnet18      torchvision.models.resnet18(weights=None), x [1,3,RES,RES] (--resnet-res, 224)
  torch_encoder       nn.TransformerEncoderLayer(256, 4, 1024, activation="gelu", batch_first=True),
                      x [1,128,256] (torch's exact GELU: Div, Erf, Add, Mul)
  torch_llama         a LLaMA-style decoder layer written here: RMSNorm (Pow, ReduceMean, Sqrt),
                      rotary embedding, causal mask (masked_fill: Where), SwiGLU MLP, x [1,128,256]
  torch_encoder_dyn   torch_encoder exported with a symbolic batch dim (dynamic_axes): the
                      exporter then computes the shapes with Shape/Gather/Unsqueeze/Concat/Cast chains
  torch_unsupported   x.cumsum(-1): an op dvsim does not support (CumSum), for its one-line error

Exit 77 (meson's "skipped") when torch or torchvision cannot be imported.
"""
import argparse
import math
import os
import sys

SKIP = 77
OPSET = 17

try:
    import torch
    import torch.nn as nn
    import torchvision
except ImportError as e:  # the test that runs this skips; a person is told what to install
    print("make_torch_models.py: skipped: %s (apt-get install python3-torch python3-torchvision)" % e,
          file=sys.stderr)
    sys.exit(SKIP)

import onnx  # python3-onnx, a dependency of the test models either way
from onnx import numpy_helper


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class LlamaLayer(nn.Module):
    """Pre-norm attention with rotary embedding and a causal mask, then a SwiGLU MLP (as in LLaMA)."""

    def __init__(self, dim=256, heads=4, ffn=512, seq=128):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.norm1, self.norm2 = RMSNorm(dim), RMSNorm(dim)
        self.q, self.k, self.v, self.o = (nn.Linear(dim, dim, bias=False) for _ in range(4))
        self.gate, self.up = nn.Linear(dim, ffn, bias=False), nn.Linear(dim, ffn, bias=False)
        self.down = nn.Linear(ffn, dim, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        ang = torch.outer(torch.arange(seq).float(), inv)
        emb = torch.cat((ang, ang), dim=-1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())
        self.register_buffer("causal", torch.triu(torch.ones(seq, seq, dtype=torch.bool), diagonal=1))

    def split(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.hd).transpose(1, 2)

    def forward(self, x):
        b, s, d = x.shape
        h = self.norm1(x)
        q, k, v = self.split(self.q(h)), self.split(self.k(h)), self.split(self.v(h))
        q = q * self.cos + rotate_half(q) * self.sin
        k = k * self.cos + rotate_half(k) * self.sin
        att = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd)
        att = att.masked_fill(self.causal, float("-inf"))
        a = torch.matmul(torch.softmax(att, dim=-1), v).transpose(1, 2).reshape(b, s, d)
        x = x + self.o(a)
        h = self.norm2(x)
        return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))


def models(res):
    """name -> (a constructor, the input shape)."""
    return {
        "torch_mlp": (lambda: nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                                            nn.Linear(256, 10)), [8, 256]),
        "torch_basic_block": (lambda: torchvision.models.resnet.BasicBlock(64, 64), [1, 64, 28, 28]),
        "torch_resnet18": (lambda: torchvision.models.resnet18(weights=None), [1, 3, res, res]),
        "torch_encoder": (lambda: nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.1, activation="gelu",
                                                             batch_first=True), [1, 128, 256]),
        "torch_llama": (lambda: LlamaLayer(), [1, 128, 256]),
        "torch_encoder_dyn": (lambda: nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.1, activation="gelu",
                                                                 batch_first=True), [1, 128, 256]),
        "torch_unsupported": (lambda: CumSum(), [2, 8]),
    }


class CumSum(nn.Module):
    def forward(self, x):
        return x.cumsum(-1)


def randomise_bn(m, gen):
    """Fresh BatchNorms hold mean 0 and var 1 (an identity): random statistics make the folding matter."""
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            c = mod.num_features
            mod.running_mean.copy_(0.2 * torch.randn(c, generator=gen))
            mod.running_var.copy_(0.5 + torch.rand(c, generator=gen))
            mod.weight.data.copy_(0.5 + torch.rand(c, generator=gen))
            mod.bias.data.copy_(0.2 * torch.randn(c, generator=gen))


def write_pb(path, array, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, name).SerializeToString())


def export(name, ctor, shape, out_dir, seed):
    torch.manual_seed(seed)
    m = ctor()
    gen = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        randomise_bn(m, gen)
    m.eval()  # Dropout is the identity, BatchNorm uses its running statistics
    x = torch.rand(shape, generator=gen) * 2 - 1
    with torch.no_grad():
        y = m(x)
    d = os.path.join(out_dir, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    path = os.path.join(d, "model.onnx")
    # not under no_grad: TransformerEncoderLayer then takes its fused fast path, which has no ONNX form
    dyn = {"x": {0: "batch"}, "y": {0: "batch"}} if name.endswith("_dyn") else None
    torch.onnx.export(m, (x,), path, opset_version=OPSET, input_names=["x"], output_names=["y"],
                      do_constant_folding=True, dynamic_axes=dyn)
    write_pb(os.path.join(d, "test_data_set_0", "input_0.pb"), x.numpy(), "x")
    write_pb(os.path.join(d, "test_data_set_0", "output_0.pb"), y.numpy(), "y")
    g = onnx.load(path).graph
    hist = {}
    for n in g.node:
        hist[n.op_type] = hist.get(n.op_type, 0) + 1
    print("%s: %d nodes: %s" % (name, len(g.node), ", ".join("%s %d" % kv for kv in sorted(hist.items()))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--resnet-res", type=int, default=224, help="resnet18's input height and width")
    a = ap.parse_args()
    ms = models(a.resnet_res)
    only = [s for s in a.only.split(",") if s]
    for s in only:
        if s not in ms:
            print("make_torch_models.py: no model '%s' (%s)" % (s, ", ".join(ms)), file=sys.stderr)
            return 64
    torch.set_num_threads(1)  # the same numbers on every host
    for i, (name, (ctor, shape)) in enumerate(ms.items()):
        if not only or name in only:
            export(name, ctor, shape, a.out, a.seed + i)
    return 0


if __name__ == "__main__":
    sys.exit(main())

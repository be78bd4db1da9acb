"""GPG-HT policy network (Learning Graph-Indexed Trajectory Patterns for SOTA Routing).

At decision step i the network reads the route prefix -- traversed link ids, their realized
times, their order -- and the decision context -- current node, destination, remaining budget,
step -- and returns one logit per link, masked to the links leaving the current node.

Written with plain ops so that PyTorch 1.13 exports it to ONNX opset 17 (its fused Transformer
path does not export), with finite -1e9 masks and a learned start token (BOS) prepended inside
the graph so even an empty prefix has one key to attend to.

ONNX interface (batch B and prefix length L dynamic; L may be 0):
  inputs  edges  int64 [B,L]  link ids of the prefix (any id where pad is true)
          times  f32   [B,L]  realized link times, minutes
          pad    bool  [B,L]  true where the position is padding
          cur    int64 [B]    current node
          dest   int64 [B]    destination node
          budget f32   [B]    remaining budget, minutes
          step   int64 [B]    links traversed so far
          amask  bool  [B,E]  true for the links leaving cur
  outputs logits f32   [B,E]  before the mask
          probs  f32   [B,E]  softmax over allowed links (0 elsewhere)
"""
import inspect
import math
import os

import torch
from torch import nn

NEG = -1e9


class MHA(nn.Module):
    """Multi-head attention from four linear maps (exportable, finite masks)."""

    def __init__(self, d, heads):
        super().__init__()
        assert d % heads == 0
        self.h, self.dk = heads, d // heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x, mem, key_pad):
        # x [B,Q,d], mem [B,K,d], key_pad [B,K] bool (true = ignore)
        B, Q, K = x.shape[0], x.shape[1], mem.shape[1]
        q = self.q(x).reshape(B, Q, self.h, self.dk).transpose(1, 2)
        k = self.k(mem).reshape(B, K, self.h, self.dk).transpose(1, 2)
        v = self.v(mem).reshape(B, K, self.h, self.dk).transpose(1, 2)
        s = q @ k.transpose(-1, -2) / math.sqrt(self.dk)
        s = s.masked_fill(key_pad[:, None, None, :], NEG)
        a = torch.softmax(s, dim=-1) @ v
        return self.o(a.transpose(1, 2).reshape(B, Q, self.h * self.dk))


class EncoderBlock(nn.Module):
    """Post-norm self-attention block over the prefix, with the time embedding R added as an
    input residual inside the block."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.att = MHA(d, heads)
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, ffn), nn.ReLU(), nn.Linear(ffn, d))

    def forward(self, h, r, pad):
        x = h + r
        x = self.n1(x + self.att(x, x, pad))
        return self.n2(x + self.ff(x))


class DecoderBlock(nn.Module):
    """The single decision query: self-attention (one token), cross-attention to the encoder
    memory, feed-forward; post-norm."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.self_att, self.cross = MHA(d, heads), MHA(d, heads)
        self.n1, self.n2, self.n3 = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, ffn), nn.ReLU(), nn.Linear(ffn, d))

    def forward(self, q, mem, pad):
        none = torch.zeros_like(q[:, :, 0], dtype=torch.bool)
        q = self.n1(q + self.self_att(q, q, none))
        q = self.n2(q + self.cross(q, mem, pad))
        return self.n3(q + self.ff(q))


class GPGHT(nn.Module):
    def __init__(self, n_links, n_nodes, d=64, enc_layers=2, dec_layers=1, heads=4,
                 max_steps=64, time_scale=1.0, history=True, transformer_decoder=True,
                 cross_time=True, link_mean=None, link_sd=None, let_to=None, slack_scale=1.0):
        super().__init__()
        self.E, self.N, self.d = n_links, n_nodes, d
        self.max_steps = max_steps
        self.history = history
        self.cross_time = cross_time
        self.transformer_decoder = transformer_decoder
        # Inputs are raw minutes; the graph normalizes them. A realized time is
        # read both on the budget's scale and as its deviation from the link's
        # mean in standard deviations (what history is informative about); the
        # remaining budget both on its scale and as slack over the LET time
        # from the current node, in units of a typical path deviation.
        self.register_buffer("scale", torch.tensor(float(time_scale)))
        self.register_buffer("slack_scale", torch.tensor(float(slack_scale)))
        mean = torch.zeros(n_links + 1) if link_mean is None else torch.cat([torch.tensor(link_mean, dtype=torch.float32), torch.zeros(1)])
        sd = torch.ones(n_links + 1) if link_sd is None else torch.cat([torch.tensor(link_sd, dtype=torch.float32), torch.ones(1)])
        self.register_buffer("link_mean", mean)
        self.register_buffer("link_sd", torch.where(sd > 0, sd, torch.ones_like(sd)))
        self.register_buffer("let_to", torch.zeros(n_nodes, n_nodes) if let_to is None else torch.tensor(let_to, dtype=torch.float32))
        self.link = nn.Embedding(n_links + 1, d)  # id E is the start token
        self.time = nn.Sequential(nn.Linear(2, d), nn.ReLU(), nn.Linear(d, d))
        self.pos = nn.Embedding(max_steps + 1, d)
        self.enc = nn.ModuleList(EncoderBlock(d, heads, 4 * d) for _ in range(enc_layers))
        self.e_cur, self.e_dest = nn.Embedding(n_nodes, d), nn.Embedding(n_nodes, d)
        self.e_budget = nn.Sequential(nn.Linear(2, d), nn.ReLU(), nn.Linear(d, d))
        self.e_step = nn.Embedding(max_steps + 1, d)
        self.dec = nn.ModuleList(DecoderBlock(d, heads, 4 * d) for _ in range(dec_layers))
        self.lin_dec = nn.Sequential(nn.Linear(2 * d, 4 * d), nn.ReLU(), nn.Linear(4 * d, d))
        self.head = nn.Linear(d, n_links)

    def forward(self, edges, times, pad, cur, dest, budget, step, amask):
        B = cur.shape[0]
        if not self.history:  # control: the prefix is hidden
            pad = torch.ones_like(pad)
        bos = cur[:, None] * 0 + self.E
        edges = torch.cat([bos, edges.clamp(0, self.E)], dim=1)
        times = torch.cat([cur[:, None].to(times.dtype) * 0, times], dim=1)
        dev = (times - self.link_mean[edges]) / self.link_sd[edges]
        dev = dev.masked_fill(edges == self.E, 0.0)
        pad = torch.cat([cur[:, None] < 0, pad], dim=1)  # BOS is never padding
        x = self.link(edges)
        r = self.time(torch.stack([times / self.scale, dev], dim=-1))
        if self.cross_time:
            # link embeddings query time embeddings: X' = softmax(X R^T / sqrt d) R
            s = x @ r.transpose(1, 2) / math.sqrt(self.d)
            s = s.masked_fill(pad[:, None, :], NEG)
            x = torch.softmax(s, dim=-1) @ r
        else:
            r = r * 0  # control: no time cross-attention and no time residual
        positions = torch.cumsum(torch.ones_like(edges), dim=1) - 1
        h = x + self.pos(positions.clamp(max=self.max_steps))
        for blk in self.enc:
            h = blk(h, r, pad)
        st = step.clamp(0, self.max_steps)
        slack = (budget - self.let_to[cur, dest]) / self.slack_scale
        q = (self.e_cur(cur) + self.e_dest(dest) + self.e_budget(torch.stack([budget / self.scale, slack], dim=-1))
             + self.e_step(st))[:, None, :]
        if self.transformer_decoder:
            for blk in self.dec:
                q = blk(q, h, pad)
            out = q[:, 0]
        else:  # control: a linear decision module on the query and the mean memory
            keep = (~pad).to(h.dtype)[..., None]
            mean = (h * keep).sum(1) / keep.sum(1)
            out = self.lin_dec(torch.cat([q[:, 0], mean], dim=-1))
        logits = self.head(out)
        probs = torch.softmax(logits.masked_fill(~amask, NEG), dim=-1) * amask.to(logits.dtype)
        return logits, probs


INPUTS = ["edges", "times", "pad", "cur", "dest", "budget", "step", "amask"]
OUTPUTS = ["logits", "probs"]


def export(model, path, example):
    """Export to ONNX opset 17 with dynamic batch and prefix length."""
    model.eval()
    dyn = {"edges": {0: "B", 1: "L"}, "times": {0: "B", 1: "L"}, "pad": {0: "B", 1: "L"},
           "cur": {0: "B"}, "dest": {0: "B"}, "budget": {0: "B"}, "step": {0: "B"},
           "amask": {0: "B"}, "logits": {0: "B"}, "probs": {0: "B"}}
    kw = dict(input_names=INPUTS, output_names=OUTPUTS, dynamic_axes=dyn, opset_version=17,
              do_constant_folding=True)
    # A current PyTorch (2.9+) exports through dynamo by default: opset 18
    # converted down, and the weights in a side file named after the path
    # (a model that breaks when copied alone). The TorchScript exporter
    # writes opset 17 into one file, as 1.13 does.
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kw["dynamo"] = False
    with torch.no_grad():
        torch.onnx.export(model, example, path, **kw)
    import onnx
    m = onnx.load(path)  # reads a side file if an exporter wrote one
    onnx.checker.check_model(m)
    side = path + ".data"
    if os.path.exists(side):
        onnx.save(m, path)  # the weights inline: one self-contained file
        os.remove(side)


def param_count(model):
    return sum(p.numel() for p in model.parameters())

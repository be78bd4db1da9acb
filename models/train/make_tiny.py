"""Writes the tiny parity model and its golden outputs (models/testdata/): a d=16, 1+1 layer,
2-head GPG-HT on the five-node example's 5 links, from a fixed seed, and PyTorch's outputs on
batches covering B = 1 with L = 0, 1 and full, a ragged batch and a batch of 33.

    /usr/bin/python3 models/train/make_tiny.py models/testdata
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from gpght import GPGHT, export, param_count  # noqa: E402

E, N = 5, 5
OUT_OF = [[0], [1, 2], [3], [4], []]  # links leaving A, B, C, D, E
HEAD = [1, 2, 3, 4, 4]


def batch(rows):
    """rows: list of (prefix links, times, cur, dest, budget)."""
    B = len(rows)
    L = max((len(r[0]) for r in rows), default=0)
    edges = torch.zeros(B, L, dtype=torch.int64)
    times = torch.zeros(B, L)
    pad = torch.ones(B, L, dtype=torch.bool)
    amask = torch.zeros(B, E, dtype=torch.bool)
    for i, (links, ts, cur, dest, budget) in enumerate(rows):
        for k, (l, t) in enumerate(zip(links, ts)):
            edges[i, k], times[i, k], pad[i, k] = l, t, False
        for l in OUT_OF[cur]:
            amask[i, l] = True
    cur = torch.tensor([r[2] for r in rows], dtype=torch.int64)
    dest = torch.tensor([r[3] for r in rows], dtype=torch.int64)
    budget = torch.tensor([r[4] for r in rows], dtype=torch.float32)
    step = torch.tensor([len(r[0]) for r in rows], dtype=torch.int64)
    return edges, times, pad, cur, dest, budget, step, amask


def main(out):
    torch.manual_seed(7)
    model = GPGHT(E, N, d=16, enc_layers=1, dec_layers=1, heads=2, max_steps=8, time_scale=106.0)
    model.eval()
    gen = torch.Generator().manual_seed(11)
    cases = {
        "b1_l0": [([], [], 0, 4, 106.0)],
        "b1_l1": [([0], [5.3], 1, 4, 100.7)],
        "b1_full": [([0, 1, 3], [4.2, 99.1, 1.0], 4, 4, 1.7)],
        "ragged": [([], [], 0, 4, 106.0), ([0], [6.1], 1, 4, 99.9), ([0, 2], [4.9, 101.2], 3, 4, -0.1)],
    }
    rows = []
    for i in range(33):
        k = i % 3
        links = [0, 1 + (i % 2)][:k]
        ts = [float(4 + torch.rand(1, generator=gen)), float(99 + 2 * torch.rand(1, generator=gen))][:k]
        cur = 0 if k == 0 else (1 if k == 1 else HEAD[links[-1]])
        rows.append((links, ts, cur, 4, 106.0 - sum(ts)))
    cases["b33"] = rows
    export(model, os.path.join(out, "tiny.onnx"), batch(cases["ragged"]))
    golden = {"params": param_count(model), "links": E, "nodes": N, "cases": {}}
    with torch.no_grad():
        for name, rs in cases.items():
            inp = batch(rs)
            logits, probs = model(*inp)
            golden["cases"][name] = {
                "B": inp[0].shape[0], "L": inp[0].shape[1],
                "edges": inp[0].flatten().tolist(), "times": inp[1].flatten().tolist(),
                "pad": inp[2].flatten().tolist(), "cur": inp[3].tolist(), "dest": inp[4].tolist(),
                "budget": inp[5].tolist(), "step": inp[6].tolist(), "amask": inp[7].flatten().tolist(),
                "logits": logits.flatten().tolist(), "probs": probs.flatten().tolist(),
            }
    with open(os.path.join(out, "tiny_golden.json"), "w") as f:
        json.dump(golden, f)
    print(f"tiny model: {golden['params']} parameters")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "models/testdata")

"""Trains a GPG-HT policy for one network from the spec `ontime train` writes, and exports it to
ONNX with a model card. Progress goes to stdout as JSON lines.

    OPENBLAS_NUM_THREADS=1 /usr/bin/python3 models/train/train.py --spec DIR --out models/NET.onnx

Phases: (1) imitation of the teacher's demonstrations (cross-entropy on its actions); (2) the
history-conditioned generalized policy gradient: the mean over M sampled episodes of
(1{G <= T} - b) * sum_k grad log pi(a_k | h_k, c_k), with b the batch's mean outcome for the same
OD pair (a baseline keeps the estimator unbiased) and a small entropy bonus; AdamW. Every
evaluation greedily rolls the policy out on the validation pool (never a test pool) at three
budgets per OD pair; the best checkpoint is exported. Runs on CPU (PyTorch 1.13) or CUDA.
"""
import argparse
import copy
import json
import math
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpght import GPGHT, export, param_count  # noqa: E402


def log(**kw):
    print(json.dumps(kw), flush=True)


class World:
    """The network and its link-time law on a device."""

    def __init__(self, spec, spec_dir, device):
        self.spec, self.dev = spec, device
        self.E, self.N = len(spec["links"]), spec["nodes"]
        self.cap = spec["step_cap"]  # the simulator's episode rule (sim.StepCap), carried by the spec
        self.head = torch.tensor([l[1] for l in spec["links"]], device=device)
        self.mean = torch.tensor(spec["mean"], dtype=torch.float32, device=device)
        self.sd = torch.tensor(spec["sd"], dtype=torch.float32, device=device)
        self.factor = (torch.tensor(spec["factor"], dtype=torch.float32, device=device)
                       if spec.get("factor") else None)
        self.floor = spec["floor"]
        amask = torch.zeros(self.N, self.E, dtype=torch.bool)
        for i, out in enumerate(spec["out_links"]):
            for e in out:
                amask[i, e] = True
        self.amask = amask.to(device)
        self.ods = torch.tensor(spec["ods"], device=device)
        self.let = torch.tensor(spec["let_time"], dtype=torch.float32, device=device)
        self.val = self._blob(spec_dir, spec["validation"])
        demos = self._blob(spec_dir, spec["demos"])
        self.demo_od = demos[:, 0].long() if len(demos) else None
        self.demo_budget = demos[:, 1] if len(demos) else None
        self.demo_x = demos[:, 2:] if len(demos) else None
        self.demo_actions = spec.get("demo_actions") or []

    def _blob(self, d, b):
        a = np.fromfile(os.path.join(d, b["file"]), dtype="<f4").reshape(b["rows"], b["cols"])
        return torch.from_numpy(a.copy()).to(self.dev)

    def sample(self, n, gen):
        z_dim = self.factor.shape[1] if self.factor is not None else self.E
        z = torch.randn(n, z_dim, generator=gen, device=self.dev)
        x = self.mean + (z @ self.factor.T if self.factor is not None else z * self.sd)
        return x.clamp(min=self.floor)


def shuffled(edges, times, gen):
    """The prefix with its order shuffled per row (the gpght-shuffled control): the model sees
    which links were taken and their times, but not in which order."""
    if edges.shape[1] < 2:
        return edges, times
    perm = torch.argsort(torch.rand(edges.shape, generator=gen, device=edges.device), dim=1)
    return edges.gather(1, perm), times.gather(1, perm)


def rollout(model, w, x, od, budget, greedy, gen=None, forced=None, shuffle=False):
    """Plays B episodes stepping together. Returns on-time flags, summed log-probabilities of the
    actions, summed entropies, the number of decisions of each episode and (with forced actions)
    the imitation loss terms."""
    B, dev = x.shape[0], x.device
    node = w.ods[od, 0].clone()
    dest = w.ods[od, 1]
    rem = budget.clone()
    edges = torch.zeros(B, w.cap, dtype=torch.long, device=dev)
    times = torch.zeros(B, w.cap, device=dev)
    active = torch.ones(B, dtype=torch.bool, device=dev)
    ok = torch.zeros(B, device=dev)
    logp = torch.zeros(B, device=dev)
    ent = torch.zeros(B, device=dev)
    steps = torch.zeros(B, device=dev)
    ce = []
    for t in range(w.cap):
        active = active & w.amask[node].any(1)  # a dead end fails
        idx = active.nonzero()[:, 0]
        if len(idx) == 0:
            break
        am = w.amask[node[idx]]
        pe, pt = edges[idx, :t], times[idx, :t]
        if shuffle:
            pe, pt = shuffled(pe, pt, gen)
        logits, _ = model(pe, pt, torch.zeros(len(idx), t, dtype=torch.bool, device=dev),
                          node[idx], dest[idx], rem[idx], torch.full_like(idx, t), am)
        lsm = torch.log_softmax(logits.masked_fill(~am, -1e9), dim=-1)
        if forced is not None:
            a = forced[idx, t]
            valid = a >= 0  # the teacher's episode may end a step earlier in float32
            if not bool(valid.all()):
                active[idx[~valid]] = False
                idx, a, lsm, am = idx[valid], a[valid], lsm[valid], am[valid]
                if len(idx) == 0:
                    break
            ce.append(-lsm.gather(1, a[:, None])[:, 0])
        elif greedy:
            a = lsm.argmax(1)
        else:
            a = torch.multinomial(lsm.exp(), 1, generator=gen)[:, 0]
        logp[idx] = logp[idx] + lsm.gather(1, a[:, None])[:, 0]
        steps[idx] = steps[idx] + 1
        p = lsm.exp()
        ent[idx] = ent[idx] - (p * lsm.masked_fill(~am, 0)).sum(1)
        tt = x[idx, a]
        edges[idx, t], times[idx, t] = a, tt
        rem[idx] = rem[idx] - tt
        node[idx] = w.head[a]
        arrived = node[idx] == dest[idx]
        ok[idx] = torch.where(arrived & (rem[idx] >= 0), torch.ones_like(tt), ok[idx])
        stop = arrived | (rem[idx] < 0)
        active[idx[stop]] = False
    return ok, logp, ent, steps, (torch.cat(ce) if ce else None)


def validate(model, w, factors, shuffle=False, gen=None):
    """Greedy on-time rate on the validation pool, per factor (mean over OD pairs)."""
    model.eval()
    out = []
    with torch.no_grad():
        for f in factors:
            rates = []
            for k in range(len(w.ods)):
                n = w.val.shape[0]
                od = torch.full((n,), k, dtype=torch.long, device=w.dev)
                ok, _, _, _, _ = rollout(model, w, w.val, od, w.let[od] * f, greedy=True, gen=gen, shuffle=shuffle)
                rates.append(ok.mean().item())
            out.append(sum(rates) / len(rates))
    model.train()
    return out


def demo_batch(w, idx):
    acts = torch.full((len(idx), w.cap), -1, dtype=torch.long, device=w.dev)
    for j, i in enumerate(idx.tolist()):
        a = w.demo_actions[i]
        acts[j, :len(a)] = torch.tensor(a, dtype=torch.long)
    return acts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--enc", type=int, default=2)
    ap.add_argument("--dec", type=int, default=1)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--imitation-epochs", type=int, default=30)
    ap.add_argument("--minutes", type=float, default=5.0, help="policy-gradient phase wall time")
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--lr", type=float, default=5e-4, help="imitation learning rate")
    ap.add_argument("--pg-lr", type=float, default=5e-5,
                    help="policy-gradient learning rate (small: the phase refines the imitated policy)")
    ap.add_argument("--entropy", type=float, default=0.01)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--no-history", action="store_true")
    ap.add_argument("--no-ha", action="store_true")
    ap.add_argument("--linear-decoder", action="store_true")
    ap.add_argument("--shuffle-prefix", action="store_true", help="control: the prefix order shuffled")
    ap.add_argument("--vpg", action="store_true",
                    help="control: plain per-step vanilla policy gradient (no baseline, no entropy bonus)")
    ap.add_argument("--ablation", default="", help="the ablation's name, recorded in the card")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--command", default="", help="the command that reproduces this model (for the card)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    dev = torch.device("cuda" if args.device == "cuda" and torch.cuda.is_available() else "cpu")
    with open(os.path.join(args.spec, "spec.json")) as f:
        spec = json.load(f)
    w = World(spec, args.spec, dev)
    torch.manual_seed(args.seed)
    gen = torch.Generator(device=dev).manual_seed(args.seed + 1)
    scale = float(max(spec["let_time"]) * spec["budget_hi"])
    let_to = [[0.0] * w.N for _ in range(w.N)]
    for dest, times in spec["let_to"].items():
        for i, t in enumerate(times):
            let_to[i][int(dest)] = t
    model = GPGHT(w.E, w.N, d=args.d, enc_layers=args.enc, dec_layers=args.dec, heads=args.heads,
                  max_steps=w.cap, time_scale=scale, history=not args.no_history,
                  transformer_decoder=not args.linear_decoder, cross_time=not args.no_ha,
                  link_mean=spec["mean"], link_sd=spec["sd"], let_to=let_to,
                  slack_scale=spec["slack_scale"]).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    lo, hi = spec["budget_lo"], spec["budget_hi"]
    factors = [lo, (lo + hi) / 2, hi]
    start = time.time()
    curve = []
    log(phase="start", params=param_count(model), device=str(dev), links=w.E, nodes=w.N)

    # Phase 1: imitation of the teacher.
    n_demo = len(w.demo_actions)
    for epoch in range(args.imitation_epochs if n_demo else 0):
        perm = torch.randperm(n_demo, generator=torch.Generator().manual_seed(epoch))
        tot = 0.0
        for s in range(0, n_demo, args.batch):
            idx = perm[s:s + args.batch].to(dev)
            _, _, _, _, ce = rollout(model, w, w.demo_x[idx], w.demo_od[idx], w.demo_budget[idx], True,
                                     forced=demo_batch(w, idx), gen=gen, shuffle=args.shuffle_prefix)
            loss = ce.mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            tot += loss.item()
        log(phase="imitation", epoch=epoch, loss=tot / max(1, math.ceil(n_demo / args.batch)),
            elapsed=round(time.time() - start, 1))
    vgen = lambda: torch.Generator(device=dev).manual_seed(args.seed + 2)  # same shuffles every evaluation
    imit = validate(model, w, factors, args.shuffle_prefix, vgen())
    best, best_state = sum(imit) / 3, copy.deepcopy(model.state_dict())
    imit_state = copy.deepcopy(model.state_dict())
    curve.append({"iteration": 0, "validation": imit, "elapsed": round(time.time() - start, 1)})
    log(phase="imitation-done", validation=imit, elapsed=round(time.time() - start, 1))

    # Phase 2: the generalized policy gradient.
    for g in opt.param_groups:
        g["lr"] = args.pg_lr
    it, t_pg = 0, time.time()
    while time.time() - t_pg < args.minutes * 60:
        it += 1
        od = torch.randint(len(w.ods), (args.batch,), generator=gen, device=dev)
        f = lo + (hi - lo) * torch.rand(args.batch, generator=gen, device=dev)
        x = w.sample(args.batch, gen)
        ok, logp, ent, steps, _ = rollout(model, w, x, od, w.let[od] * f, greedy=False, gen=gen,
                                          shuffle=args.shuffle_prefix)
        if args.vpg:
            # Every decision is one sample weighted by its return (the terminal outcome).
            loss = -(ok * logp).sum() / steps.sum().clamp(min=1)
        else:
            base = torch.zeros(len(w.ods), device=dev).index_add_(0, od, ok) / \
                torch.bincount(od, minlength=len(w.ods)).clamp(min=1)
            loss = -((ok - base[od]) * logp).mean() - args.entropy * ent.mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if it % args.eval_every == 0:
            v = validate(model, w, factors, args.shuffle_prefix, vgen())
            curve.append({"iteration": it, "validation": v, "train_on_time": ok.mean().item(),
                          "elapsed": round(time.time() - start, 1)})
            if sum(v) / 3 > best:
                best, best_state = sum(v) / 3, copy.deepcopy(model.state_dict())
            log(phase="pg", iteration=it, on_time=round(ok.mean().item(), 4), validation=v,
                best=round(best, 4), elapsed=round(time.time() - start, 1))
    model.cpu()
    example = (torch.zeros(3, 2, dtype=torch.long), torch.ones(3, 2), torch.zeros(3, 2, dtype=torch.bool),
               torch.zeros(3, dtype=torch.long), torch.zeros(3, dtype=torch.long), torch.ones(3),
               torch.full((3,), 2, dtype=torch.long), w.amask[torch.zeros(3, dtype=torch.long)].cpu())
    # The imitation-only checkpoint is exported too, so that the gain of the
    # policy-gradient phase over the teacher's imitation can be measured.
    base = os.path.splitext(args.out)[0]
    model.load_state_dict(imit_state)
    export(model, base + ".imitation.onnx", example)
    model.load_state_dict(best_state)
    export(model, args.out, example)
    card = {
        "network": spec["network"], "fingerprint": spec["fingerprint"], "correlation": spec["correlation"],
        "ods": spec["od_names"], "budget_factors": [lo, hi], "step_cap": spec["step_cap"],
        "model": {"d": args.d, "encoder_layers": args.enc, "decoder_layers": args.dec, "heads": args.heads,
                  "parameters": param_count(model), "history": not args.no_history,
                  "history_cross_attention": not args.no_ha, "transformer_decoder": not args.linear_decoder,
                  "prefix_order": "shuffled" if args.shuffle_prefix else "realized"},
        "ablation": args.ablation,
        "training": {"teacher": spec["teacher"], "demonstrations": n_demo,
                     "imitation_epochs": args.imitation_epochs, "pg_minutes": args.minutes,
                     "pg_iterations": it, "batch": args.batch, "lr": args.lr, "pg_lr": args.pg_lr,
                     "seed": args.seed,
                     "estimator": ("vanilla per-step policy gradient, no baseline, no entropy" if args.vpg else
                                   "generalized policy gradient over episodes"),
                     "baseline": "none" if args.vpg else "batch mean outcome per OD pair",
                     "entropy_bonus": 0 if args.vpg else args.entropy,
                     "torch": torch.__version__, "device": str(dev)},
        "imitation_validation": imit, "best_validation": best, "validation_factors": factors,
        "curve": curve, "seconds": round(time.time() - start, 1), "command": args.command,
    }
    card["imitation_model"] = os.path.basename(base + ".imitation.onnx")
    with open(base + ".card.json", "w") as f:
        json.dump(card, f, indent=1)
    log(phase="done", best=best, imitation=imit, seconds=card["seconds"], out=args.out)


if __name__ == "__main__":
    main()

"""The PyTorch side of GPG-HT training. `ontime train` (engine/train) drives it one step at a
time; each command reads the spec Go wrote, loads and saves checkpoints, and prints progress as
JSON lines on stdout:

    python3 train.py imitate  --spec S --out C0.pt --data demos --epochs E --lr R --d 64 ...  new model, imitation
    python3 train.py collect  --spec S --state C.pt --tasks T --out T.json       sampled episodes
    python3 train.py fit      --spec S --state C.pt --data D1 --data D2 --steps N --lr R --out C1.pt  labels -> model
    python3 train.py pg       --spec S --state C.pt --iterations K --lr R --entropy H --out C2.pt  policy gradient
    python3 train.py validate --spec S --state C.pt --out C.val [--actions A.json] greedy, per episode
    python3 train.py export   --spec S --state C.pt --out model.onnx

Episode sets are NAME.f32 (rows: OD index, budget, the realization of every link) and NAME.json
({"taken": [[link, ...], ...], "labels": [[link, ...], ...]}: the links an episode took and the
links it should have taken at those states; labels default to taken, as in a demonstration).
Go decides everything that is a rule (episodes, labels, the checkpoint rule, the card); this
script only fits, plays and exports. Every command seeds itself from --seed. Runs on CPU (PyTorch
1.13) or CUDA (a current PyTorch): --device cuda.
"""
import argparse
import json
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
    """The network, its link-time law and the episode rule (spec.step_cap, written by Go from
    sim.StepCap) on a device."""

    def __init__(self, spec, spec_dir, device):
        self.spec, self.dir, self.dev = spec, spec_dir, device
        self.E, self.N = len(spec["links"]), spec["nodes"]
        self.cap = spec["step_cap"]
        self.head = torch.tensor([l[1] for l in spec["links"]], device=device)
        self.mean = torch.tensor(spec["mean"], dtype=torch.float32, device=device)
        self.sd = torch.tensor(spec["sd"], dtype=torch.float32, device=device)
        self.factor = (torch.tensor(spec["factor"], dtype=torch.float32, device=device)
                       if spec.get("factor") else None)
        # the spatial factor model: each link's own deviation beside the factors
        self.idio = (torch.tensor(spec["idio"], dtype=torch.float32, device=device)
                     if spec.get("idio") else None)
        # the link-time law: the latent normal's mean and each link's floor
        # (absent under the paper's law: the stated mean, one floor for all)
        self.latent = (torch.tensor(spec["latent_mean"], dtype=torch.float32, device=device)
                       if spec.get("latent_mean") else self.mean)
        self.floor = (torch.tensor(spec["floors"], dtype=torch.float32, device=device)
                      if spec.get("floors") else torch.full_like(self.mean, spec["floor"]))
        # a skewed law's warped links: exp of the piecewise-linear function through
        # (z_grid, warp_log_time[i]) of the standardized latent, extended linearly (linktime.Warp)
        self.warp_links = None
        if spec.get("warp_links"):
            self.warp_links = torch.tensor(spec["warp_links"], dtype=torch.long, device=device)
            self.zgrid = torch.tensor(spec["z_grid"], dtype=torch.float32, device=device)
            self.warp_lt = torch.tensor(spec["warp_log_time"], dtype=torch.float32, device=device)
        amask = torch.zeros(self.N, self.E, dtype=torch.bool)
        for i, out in enumerate(spec["out_links"]):
            for e in out:
                amask[i, e] = True
        self.amask = amask.to(device)
        self.ods = torch.tensor(spec["ods"], device=device)
        self.let = torch.tensor(spec["let_time"], dtype=torch.float32, device=device)

    def blob(self, b):
        a = np.fromfile(os.path.join(self.dir, b["file"]), dtype="<f4").reshape(b["rows"], b["cols"])
        return torch.from_numpy(a.copy()).to(self.dev)

    def episodes(self, name):
        """An episode set: OD indices, budgets, realizations, taken and label actions [rows, cap]."""
        a = np.fromfile(name + ".f32", dtype="<f4").reshape(-1, 2 + self.E)
        rows = torch.from_numpy(a.copy()).to(self.dev)
        taken = labels = None
        if os.path.exists(name + ".json"):
            with open(name + ".json") as f:
                acts = json.load(f)
            taken = self._pad(acts["taken"])
            labels = self._pad(acts.get("labels") or acts["taken"])
        return rows[:, 0].long(), rows[:, 1], rows[:, 2:], taken, labels

    def _pad(self, seqs):
        out = torch.full((len(seqs), self.cap), -1, dtype=torch.long)
        for i, s in enumerate(seqs):
            out[i, :len(s)] = torch.tensor(s[:self.cap], dtype=torch.long)
        return out.to(self.dev)

    def sample(self, n, gen):
        z_dim = self.factor.shape[1] if self.factor is not None else self.E
        z = torch.randn(n, z_dim, generator=gen, device=self.dev)
        x = self.latent + (z @ self.factor.T if self.factor is not None else z * self.sd)
        if self.idio is not None:
            x = x + torch.randn(n, self.E, generator=gen, device=self.dev) * self.idio
        return self.times(x)

    def times(self, x):
        """Link times of latent draws x (rows × links): warped links through their tables,
        then every link floored (a warped link's floor is 0)."""
        if self.warp_links is not None:
            w = self.warp_links
            z = (x[:, w] - self.latent[w]) / self.sd[w]
            g = self.zgrid
            step = g[1] - g[0]
            k = torch.clamp(torch.floor((z - g[0]) / step).long(), 0, g.shape[0] - 2)
            table = self.warp_lt.unsqueeze(0).expand(x.shape[0], -1, -1)
            l0 = table.gather(2, k.unsqueeze(2)).squeeze(2)
            l1 = table.gather(2, (k + 1).unsqueeze(2)).squeeze(2)
            x = x.clone()
            x[:, w] = torch.exp(l0 + (z - g[k]) * (l1 - l0) / (g[k + 1] - g[k]))
        return torch.maximum(x, self.floor)


def shuffled(edges, times, gen):
    """The prefix with its order shuffled per row (the gpght-shuffled control): the model sees
    which links were taken and their times, but not in which order."""
    if edges.shape[1] < 2:
        return edges, times
    perm = torch.argsort(torch.rand(edges.shape, generator=gen, device=edges.device), dim=1)
    return edges.gather(1, perm), times.gather(1, perm)


def rollout(model, w, x, od, budget, greedy, gen=None, taken=None, labels=None, shuffle=False):
    """Plays B episodes stepping together under the simulator's episode rule. Returns on-time
    flags, summed log-probabilities of the actions, summed entropies, the number of decisions,
    the actions taken [B, cap] (-1 after the end) and, when taken actions drive the episodes,
    the cross-entropy terms of the label actions at the states they reach."""
    B, dev = x.shape[0], x.device
    node = w.ods[od, 0].clone()
    dest = w.ods[od, 1]
    rem = budget.clone()
    edges = torch.zeros(B, w.cap, dtype=torch.long, device=dev)
    times = torch.zeros(B, w.cap, device=dev)
    acts = torch.full((B, w.cap), -1, dtype=torch.long, device=dev)
    active = torch.ones(B, dtype=torch.bool, device=dev)
    ok = torch.zeros(B, device=dev)
    logp = torch.zeros(B, device=dev)
    ent = torch.zeros(B, device=dev)
    steps = torch.zeros(B, device=dev)
    ce = []
    for t in range(w.cap):
        active = active & w.amask[node].any(1)  # a dead end fails
        if taken is not None:
            active = active & (taken[:, t] >= 0)  # Go's replay may end a step earlier (float32)
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
        if taken is not None:
            a = taken[idx, t]
            lab = labels[idx, t]
            has = lab >= 0
            if bool(has.any()):
                ce.append(-lsm[has].gather(1, lab[has][:, None])[:, 0])
        elif greedy:
            a = lsm.argmax(1)
        else:
            a = torch.multinomial(lsm.exp(), 1, generator=gen)[:, 0]
        acts[idx, t] = a
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
    return ok, logp, ent, steps, acts, (torch.cat(ce) if ce else None)


# ---- checkpoints ----

def new_model(args, spec, w):
    cfg = {"d": args.d, "enc": args.enc, "dec": args.dec, "heads": args.heads, "history": not args.no_history,
           "transformer_decoder": not args.linear_decoder, "cross_time": not args.no_ha,
           "shuffle": args.shuffle_prefix}
    return build(cfg, spec, w), cfg


def build(cfg, spec, w):
    scale = float(max(spec["let_time"]) * spec["budget_hi"])
    let_to = [[0.0] * w.N for _ in range(w.N)]
    for dest, times in spec["let_to"].items():
        for i, t in enumerate(times):
            let_to[i][int(dest)] = t
    return GPGHT(w.E, w.N, d=cfg["d"], enc_layers=cfg["enc"], dec_layers=cfg["dec"], heads=cfg["heads"],
                 max_steps=w.cap, time_scale=scale, history=cfg["history"],
                 transformer_decoder=cfg["transformer_decoder"], cross_time=cfg["cross_time"],
                 link_mean=spec["mean"], link_sd=spec["sd"], let_to=let_to,
                 slack_scale=spec["slack_scale"]).to(w.dev)


def load(path, spec, w):
    ck = torch.load(path, map_location=w.dev)
    model = build(ck["cfg"], spec, w)
    model.load_state_dict(ck["model"])
    return model, ck["cfg"], ck.get("opt")


def save(path, model, cfg, opt):
    tmp = path + ".tmp"
    torch.save({"cfg": cfg, "model": model.state_dict(), "opt": opt.state_dict() if opt else None}, tmp)
    os.replace(tmp, path)


def optimizer(model, lr, state=None):
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    if state:
        opt.load_state_dict(state)
        for g in opt.param_groups:
            g["lr"] = lr
    return opt


# ---- commands ----

def fit_sets(model, cfg, w, sets, steps, batch, lr, opt_state, gen, seed, phase):
    """Cross-entropy on the label actions along the taken actions: `steps` minibatches, epochs
    over the union of the episode sets in seeded shuffles."""
    pgen = torch.Generator().manual_seed(seed + 3)
    od = torch.cat([s[0] for s in sets])
    budget = torch.cat([s[1] for s in sets])
    x = torch.cat([s[2] for s in sets])
    taken = torch.cat([s[3] for s in sets])
    labels = torch.cat([s[4] for s in sets])
    n = len(od)
    opt = optimizer(model, lr, opt_state)
    model.train()
    start, tot, k = time.time(), 0.0, 0
    per_epoch = max(1, (n + batch - 1) // batch)
    perm = torch.randperm(n, generator=pgen)
    for s in range(steps):
        j = s % per_epoch
        if j == 0 and s > 0:
            perm = torch.randperm(n, generator=pgen)
        idx = perm[j * batch:(j + 1) * batch].to(w.dev)
        *_, ce = rollout(model, w, x[idx], od[idx], budget[idx], True, gen=gen, taken=taken[idx],
                         labels=labels[idx], shuffle=cfg["shuffle"])
        if ce is None:
            continue
        loss = ce.mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        tot, k = tot + loss.item(), k + 1
        if (s + 1) % per_epoch == 0 or s + 1 == steps:
            log(phase=phase, step=s + 1, steps=steps, loss=round(tot / max(k, 1), 5), episodes=n,
                elapsed=round(time.time() - start, 1))
            tot, k = 0.0, 0
    return opt


def cmd_imitate(args, spec, w, gen):
    model, cfg = new_model(args, spec, w)
    log(phase="start", params=param_count(model), device=str(w.dev), links=w.E, nodes=w.N)
    sets = [w.episodes(d) for d in args.data]
    n = sum(len(s[0]) for s in sets)
    steps = args.epochs * max(1, (n + args.batch - 1) // args.batch)
    opt = fit_sets(model, cfg, w, sets, steps, args.batch, args.lr, None, gen, args.seed, "imitation")
    save(args.out, model, cfg, opt)


def cmd_fit(args, spec, w, gen):
    model, cfg, opt_state = load(args.state, spec, w)
    sets = [w.episodes(d) for d in args.data]
    opt = fit_sets(model, cfg, w, sets, args.steps, args.batch, args.lr, opt_state, gen, args.seed, "fit")
    save(args.out, model, cfg, opt)


def cmd_collect(args, spec, w, gen):
    """The student's own episodes (actions sampled from its policy) on Go's realizations."""
    model, cfg, _ = load(args.state, spec, w)
    od, budget, x, _, _ = w.episodes(args.tasks)
    model.eval()
    taken = []
    with torch.no_grad():
        for s in range(0, len(od), args.batch):
            sl = slice(s, s + args.batch)
            ok, _, _, _, acts, _ = rollout(model, w, x[sl], od[sl], budget[sl], greedy=False, gen=gen,
                                           shuffle=cfg["shuffle"])
            for row in acts.tolist():
                taken.append([a for a in row if a >= 0])
    with open(args.out + ".tmp", "w") as f:
        json.dump({"taken": taken}, f)
    os.replace(args.out + ".tmp", args.out)
    log(phase="collect", episodes=len(taken), decisions=sum(len(t) for t in taken))


def cmd_validate(args, spec, w, gen):
    """Greedy on-time flags on the validation pool: factor-major, then validation OD pair, then
    realization (uint8), the order Go's checkpoint rule pairs them in."""
    model, cfg, _ = load(args.state, spec, w)
    val = w.blob(spec["validation"])
    model.eval()
    flags, means, actions = [], [], []
    with torch.no_grad():
        for f in spec["validation_factors"]:
            rates = []
            for k in spec["validation_ods"]:
                for s in range(0, val.shape[0], args.batch):
                    xv = val[s:s + args.batch]
                    od = torch.full((xv.shape[0],), k, dtype=torch.long, device=w.dev)
                    vgen = torch.Generator(device=w.dev).manual_seed(args.seed + s)  # same shuffles every time
                    ok, _, _, _, acts, _ = rollout(model, w, xv, od, w.let[od] * f, greedy=True, gen=vgen, shuffle=cfg["shuffle"])
                    flags.append(ok.to(torch.uint8).cpu().numpy())
                    rates.append(ok.sum().item())
                    if args.actions:
                        actions.extend([a for a in row if a >= 0] for row in acts.tolist())
            means.append(sum(rates) / (len(spec["validation_ods"]) * val.shape[0]))
    np.concatenate(flags).tofile(args.out + ".tmp")
    os.replace(args.out + ".tmp", args.out)
    if args.actions:  # each episode's links, in the flags' order (Go's episode-rule check)
        with open(args.actions + ".tmp", "w") as f:
            json.dump(actions, f)
        os.replace(args.actions + ".tmp", args.actions)
    log(phase="validate", validation=means)


def cmd_law(args, spec, w, gen):
    """The law check Go runs (trainspec's cross-language test): the times of the latent rows in
    --latent (float32, rows × links) written to --out, and --draws draws of this sampler to
    --out.draws, both float32 rows × links."""
    lat = torch.from_numpy(np.fromfile(args.latent, dtype=np.float32).reshape(-1, w.E)).to(w.dev)
    w.times(lat).cpu().numpy().astype(np.float32).tofile(args.out)
    w.sample(args.draws, gen).cpu().numpy().astype(np.float32).tofile(args.out + ".draws")
    log(phase="law", rows=lat.shape[0], draws=args.draws)


def cmd_pg(args, spec, w, gen):
    """The generalized policy gradient (the paper's estimator): the mean over sampled episodes of
    (1{G <= T} - b) * sum_k grad log pi(a_k | h_k, c_k), b the batch's mean outcome for the same
    OD pair, plus an entropy bonus; or, for the vpg control, every decision weighted by its return
    with no baseline and no bonus. Budgets uniform in the spec's range; episodes on the trainer's
    own draws from the link-time law (never a test pool)."""
    model, cfg, opt_state = load(args.state, spec, w)
    opt = optimizer(model, args.lr, opt_state)
    model.train()
    lo, hi = spec["budget_lo"], spec["budget_hi"]
    weights = torch.tensor(spec["od_weights"], dtype=torch.float, device=w.dev)
    start = time.time()
    for it in range(1, args.iterations + 1):
        od = torch.multinomial(weights, args.batch, replacement=True, generator=gen)
        f = lo + (hi - lo) * torch.rand(args.batch, generator=gen, device=w.dev)
        x = w.sample(args.batch, gen)
        ok, logp, ent, steps, _, _ = rollout(model, w, x, od, w.let[od] * f, greedy=False, gen=gen,
                                             shuffle=cfg["shuffle"])
        if args.vpg:
            loss = -(ok * logp).sum() / steps.sum().clamp(min=1)
        else:
            base = torch.zeros(len(w.ods), device=w.dev).index_add_(0, od, ok) / \
                torch.bincount(od, minlength=len(w.ods)).clamp(min=1)
            loss = -((ok - base[od]) * logp).mean() - args.entropy * ent.mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if it % 25 == 0 or it == args.iterations:
            log(phase="pg", iteration=it, on_time=round(ok.mean().item(), 4), elapsed=round(time.time() - start, 1))
    save(args.out, model, cfg, opt)


def cmd_export(args, spec, w, gen):
    model, cfg, _ = load(args.state, spec, w)
    model.cpu()
    example = (torch.zeros(3, 2, dtype=torch.long), torch.ones(3, 2), torch.zeros(3, 2, dtype=torch.bool),
               torch.zeros(3, dtype=torch.long), torch.zeros(3, dtype=torch.long), torch.ones(3),
               torch.full((3,), 2, dtype=torch.long), w.amask[torch.zeros(3, dtype=torch.long)].cpu())
    tmp = args.out + ".tmp.onnx"
    export(model, tmp, example)
    os.replace(tmp, args.out)
    log(phase="export", out=args.out, params=param_count(model), torch=torch.__version__, device=str(w.dev))


def main():
    # Every training setting is stated once, in Go (engine/train: DefaultRequest,
    # Settings, Rates), and passed on each call: nothing here has a default of its own.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--spec", required=True)
    common.add_argument("--out", required=True)
    common.add_argument("--state")
    common.add_argument("--seed", type=int, default=0)
    common.add_argument("--threads", type=int, default=2)
    common.add_argument("--device", default="cpu")
    common.add_argument("--batch", type=int, default=512)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    im = sub.add_parser("imitate", parents=[common])
    im.add_argument("--data", action="append", required=True)
    im.add_argument("--epochs", type=int, required=True)
    im.add_argument("--lr", type=float, required=True)
    im.add_argument("--d", type=int, required=True)
    im.add_argument("--enc", type=int, required=True)
    im.add_argument("--dec", type=int, required=True)
    im.add_argument("--heads", type=int, required=True)
    im.add_argument("--no-history", action="store_true")
    im.add_argument("--no-ha", action="store_true")
    im.add_argument("--linear-decoder", action="store_true")
    im.add_argument("--shuffle-prefix", action="store_true", help="control: the prefix order shuffled")
    fi = sub.add_parser("fit", parents=[common])
    fi.add_argument("--data", action="append", required=True)
    fi.add_argument("--steps", type=int, required=True)
    fi.add_argument("--lr", type=float, required=True)
    co = sub.add_parser("collect", parents=[common])
    co.add_argument("--tasks", required=True)
    pg = sub.add_parser("pg", parents=[common])
    pg.add_argument("--iterations", type=int, required=True)
    pg.add_argument("--lr", type=float, required=True)
    pg.add_argument("--entropy", type=float, required=True)
    pg.add_argument("--vpg", action="store_true", help="control: plain per-step vanilla policy gradient")
    va = sub.add_parser("validate", parents=[common])
    va.add_argument("--actions", help="also write each episode's links (JSON) for Go's episode-rule check")
    sub.add_parser("export", parents=[common])
    la = sub.add_parser("law", parents=[common])
    la.add_argument("--latent", required=True)
    la.add_argument("--draws", type=int, required=True)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    dev = torch.device("cuda" if args.device == "cuda" and torch.cuda.is_available() else "cpu")
    if args.device == "cuda" and dev.type != "cuda":
        log(phase="warning", message="--device cuda asked, but this PyTorch has no CUDA: running on the CPU")
    with open(os.path.join(args.spec, "spec.json")) as f:
        spec = json.load(f)
    w = World(spec, args.spec, dev)
    torch.manual_seed(args.seed)
    gen = torch.Generator(device=dev).manual_seed(args.seed + 1)
    {"imitate": cmd_imitate, "fit": cmd_fit, "collect": cmd_collect, "pg": cmd_pg, "validate": cmd_validate,
     "export": cmd_export, "law": cmd_law}[args.cmd](args, spec, w, gen)


if __name__ == "__main__":
    main()

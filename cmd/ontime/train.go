package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/train"
)

// runTrain trains a GPG-HT model for a network (engine/train) and checks
// that the exported model loads.
func runTrain(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var nf netFlags
	nf.register(fs)
	teachers := fs.String("teachers", "cgr,cdot", "imitation candidates: the best per (OD pair, budget factor) on the validation pool demonstrates")
	demos := fs.Int("demos", 8000, "teacher demonstrations")
	budgets := fs.String("budgets", "0.9,1.1", "budget factor range LO,HI the model covers")
	cover := fs.String("cover", "bench", "OD pairs the model covers: bench (the network's), all (every reachable pair), or bench+N (N more, drawn once with the seed; zone to zone when the network names its zones)")
	imitation := fs.Int("imitation-epochs", 30, "imitation epochs over the demonstrations")
	rounds := fs.Int("rounds", 6, "expert-iteration rounds (the student's own states labelled by rollout)")
	roundEpisodes := fs.Int("round-episodes", 4000, "student episodes labelled per round")
	roundSteps := fs.Int("round-steps", 300, "trainer minibatches per round, over every label so far")
	rolloutBase := fs.String("rollout-base", train.TeachersBase, "the labeller's base policy: teachers (the chosen teacher of each pair and budget factor), dot, cdot or cgr")
	rolloutSamples := fs.Int("rollout-samples", 0, "the labeller's draws a decision (0: 128 on the teachers, else rollout's default for its base)")
	labelAny := fs.Bool("label-any-gain", false, "label with the link that won most on the labeller's draws, without the significance rule rollout uses to act")
	pgChunks := fs.Int("pg-chunks", 0, "policy-gradient phase (the paper's estimator): chunks, each validated")
	pgIterations := fs.Int("pg-iterations", 100, "policy-gradient iterations a chunk")
	valSize := fs.Int("validation-size", 20000, "validation pool size (the checkpoint rule's; disjoint from test pools)")
	batch := fs.Int("batch", 512, "episodes per trainer minibatch")
	seed := fs.Uint64("seed", 0, "benchmark instance and training seed (every draw derives from it)")
	out := fs.String("out", "", "model file (default models/NETWORK.onnx)")
	python := fs.String("python", "/usr/bin/python3", "Python with PyTorch 1.13+ and onnx")
	script := fs.String("trainer", "", "models/train/train.py (default: found above the binary or the working directory, or $"+train.ScriptEnv+")")
	size := fs.String("size", "64,2,1,4", "d,encoder layers,decoder layers,heads (the paper's is 256,4,1,8)")
	device := fs.String("device", "cpu", "cpu or cuda")
	ablation := fs.String("ablation", "", "control variant: "+strings.Join(policy.Ablations, ", ")+" (default --out models/NETWORK-VARIANT.onnx)")
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	net, model, err := nf.load(fs, getenv)
	if err != nil {
		return err
	}
	if *ablation != "" && !slices.Contains(policy.Ablations, *ablation) {
		return engine.Errorf(engine.EINVALID, "--ablation %q: use one of %s", *ablation, strings.Join(policy.Ablations, ", "))
	}
	if *ablation == "indep" {
		// The control trained as if links were independent: its teachers,
		// labels, validation pool and training stream all use independent
		// links with the same means and variances.
		net.Correlation = engine.Correlation{Model: "independent"}
		if model, err = linktime.New(net); err != nil {
			return err
		}
	}
	lohi, err := parseBudgets(*budgets)
	if err != nil || len(lohi) != 2 || lohi[0] > lohi[1] {
		return engine.Errorf(engine.EINVALID, "--budgets: give LO,HI factors, e.g. 0.9,1.1")
	}
	var dims [4]int
	parts := splitList(*size)
	for i := range dims {
		if len(parts) != 4 {
			break
		}
		dims[i], err = strconv.Atoi(parts[i])
		if err != nil || dims[i] <= 0 {
			break
		}
	}
	if len(parts) != 4 || slices.Contains(dims[:], 0) {
		return engine.Errorf(engine.EINVALID, "--size %q: give d,encoder,decoder,heads as positive integers", *size)
	}
	ods, err := coverODs(net, *cover, *seed)
	if err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join("models", policy.ModelFile(net.Name, *ablation))
	}
	cfg := train.Config{Net: net, Model: model, Out: *out, ODs: ods, BudgetLo: lohi[0], BudgetHi: lohi[1],
		ValidationSize: *valSize, Teachers: splitList(*teachers), Demos: *demos, ImitationEpochs: *imitation,
		Rounds: *rounds, RoundEpisodes: *roundEpisodes, RoundSteps: *roundSteps, RolloutBase: *rolloutBase,
		RolloutSamples: *rolloutSamples, LabelAnyGain: *labelAny, PGChunks: *pgChunks, PGIterations: *pgIterations, Batch: *batch, Size: dims,
		Ablation: *ablation, Seed: *seed, Command: "ontime train " + strings.Join(args, " "),
		Trainer: train.Trainer{Python: *python, Script: *script, Device: *device}, Log: stderr,
		Progress: func(e train.Event) { printEvent(stderr, net.Name, e) }}
	if cfg.Trainer.Script == "" {
		if cfg.Trainer.Script, err = train.FindScript(getenv); err != nil {
			return err
		}
	}
	card, err := train.Run(ctx, cfg)
	if err != nil {
		return err
	}
	p, err := policy.NewONNXPolicy(net, *out, policy.ONNXOptions{Shuffle: *ablation == "shuffled"})
	if err != nil {
		return fmt.Errorf("the exported model does not load: %w", err)
	}
	p.Close()
	fmt.Fprintf(stdout, "trained %s: %s (card %s): best %s, validation %.4f (imitation %v), %.0f s\n", net.Name, *out,
		strings.TrimSuffix(*out, ".onnx")+".card.json", card.Best, card.BestValidation, card.ImitationValidation, card.Seconds)
	return nil
}

// printEvent writes one progress line; the trainer's own lines are shown
// only at their ends (loss per epoch, validations).
func printEvent(w io.Writer, name string, e train.Event) {
	if e.Phase == "trainer" {
		if ph, _ := e.Trainer["phase"].(string); ph == "pg" || ph == "fit" || ph == "imitation" {
			if st, _ := e.Trainer["step"].(float64); st != 0 {
				if steps, _ := e.Trainer["steps"].(float64); st != steps {
					return
				}
			}
		}
		fmt.Fprintf(w, "train %s:   %v\n", name, e.Trainer)
		return
	}
	fmt.Fprintf(w, "train %s: [%4.0f s] %s", name, e.Elapsed, e.Phase)
	if e.Message != "" {
		fmt.Fprintf(w, " %s", e.Message)
	}
	if e.Means != nil {
		fmt.Fprintf(w, " validation %.4f (best %s)", e.Means, e.Best)
	}
	fmt.Fprintln(w)
}

// coverODs lists the pairs a model covers: the network's benchmark pairs,
// every pair with a route, or the benchmark's plus n drawn once with seed
// (among zone-to-zone pairs when the network names its zones).
func coverODs(net *engine.Network, cover string, seed uint64) ([]engine.OD, error) {
	bench := append([]engine.OD(nil), net.ODs...)
	if cover == "bench" {
		return bench, nil
	}
	routed := func(od engine.OD) bool {
		return od.Origin != od.Destination && !math.IsInf(net.LET(od.Destination).Time[od.Origin], 1) &&
			len(net.Out(od.Origin)) > 0 && !slices.Contains(bench, od)
	}
	var all []engine.OD
	for d := range net.Nodes {
		for o := range net.Nodes {
			if od := (engine.OD{Origin: o, Destination: d}); routed(od) {
				all = append(all, od)
			}
		}
	}
	if cover == "all" {
		return append(bench, all...), nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(cover, "bench+"))
	if !strings.HasPrefix(cover, "bench+") || err != nil || n < 0 {
		return nil, engine.Errorf(engine.EINVALID, "--cover %q: use bench, all or bench+N", cover)
	}
	if len(net.Zones) > 0 {
		all = all[:0]
		for _, dz := range net.Zones {
			for _, oz := range net.Zones {
				o, ok1 := net.OriginIndex(oz)
				d, ok2 := net.NodeIndex(dz)
				if od := (engine.OD{Origin: o, Destination: d}); ok1 && ok2 && routed(od) {
					all = append(all, od)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0xc0fe))
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return append(bench, all[:min(n, len(all))]...), nil
}

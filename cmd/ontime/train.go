package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
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
	q := train.DefaultRequest()
	teachers := fs.String("teachers", strings.Join(q.Teachers, ","), "imitation candidates: the best per (OD pair, budget factor) on the validation pool demonstrates")
	budgets := fs.String("budgets", fmt.Sprintf("%g,%g", q.Budgets[0], q.Budgets[1]), "budget factor range LO,HI the model covers")
	fs.StringVar(&q.Cover, "cover", q.Cover, "OD pairs the model covers: bench (the network's), all (every reachable pair), bench+N (N more, drawn once with the seed; zone to zone when the network names its zones) or demand+N (N more drawn in proportion to the network's demand table)")
	fs.StringVar(&q.RolloutBase, "rollout-base", q.RolloutBase, "the labeller's base policy: teachers (the chosen teacher of each pair and budget factor) or "+engine.JoinOr(policy.RolloutBases()))
	fs.BoolVar(&q.LabelAnyGain, "label-any-gain", q.LabelAnyGain, "label with the link that won most on the labeller's draws, without the significance rule rollout uses to act")
	for _, st := range train.Settings {
		fs.IntVar(st.Of(&q), st.Flag, st.Default(), fmt.Sprintf("%s (%d to %d)", st.Help, st.Min, st.Max))
	}
	fs.Uint64Var(&q.Seed, "seed", q.Seed, "benchmark instance and training seed (every draw derives from it)")
	out := fs.String("out", "", "model file (default models/NETWORK.onnx; for a stored network STATE/models/NAME.onnx, where the dashboard reads it)")
	python := fs.String("python", "/usr/bin/python3", "Python with PyTorch 1.13+ and onnx")
	script := fs.String("trainer", "", "models/train/train.py (default: $"+train.ScriptEnv+", else found above the ontime binary)")
	size := fs.String("size", sizeText(q.Size), "d,encoder layers,decoder layers,heads (the paper's is 256,4,1,8)")
	device := fs.String("device", "cpu", "cpu or cuda")
	fs.StringVar(&q.Ablation, "ablation", "", "control variant: "+strings.Join(policy.Ablations, ", ")+" (default --out models/NETWORK-VARIANT.onnx)")
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	net, model, err := nf.load(fs, getenv)
	if err != nil {
		return err
	}
	q.Teachers = engine.SplitList(*teachers)
	lohi, err := parseBudgets(*budgets)
	if err != nil || len(lohi) != 2 {
		return engine.Errorf(engine.EINVALID, "--budgets: give LO,HI factors, e.g. 0.9,1.1")
	}
	q.Budgets = [2]float64{lohi[0], lohi[1]}
	parts := engine.SplitList(*size)
	for i := range q.Size {
		q.Size[i] = 0
		if len(parts) == 4 {
			q.Size[i], _ = strconv.Atoi(parts[i])
		}
	}
	cfg, err := q.Config(net, model)
	if err != nil {
		return flagError(err)
	}
	net = cfg.Net
	if nf.stored() && *out == "" && !nf.corr.given() {
		return trainAsJob(ctx, &nf, q, train.Trainer{Python: *python, Script: *script, Device: *device}, getenv, stdout, stderr)
	}
	if *out == "" {
		*out = filepath.Join("models", policy.ModelFile(net.Name, q.Ablation))
		if nf.stored() {
			// A stored network's model goes beside it, where the dashboard reads it.
			*out = filepath.Join(stateDir(nf.state, getenv), "models", policy.ModelFile(net.Name, q.Ablation))
		}
	}
	cfg.Out, cfg.Command, cfg.Log = *out, "ontime train "+strings.Join(withoutOut(args), " "), stderr
	cfg.Trainer = train.Trainer{Python: *python, Script: *script, Device: *device}
	cfg.Progress = func(e train.Event) { printEvent(stderr, net.Name, e) }
	if cfg.Trainer.Script == "" {
		if cfg.Trainer.Script, err = train.FindScript(getenv); err != nil {
			return err
		}
	}
	card, err := train.Run(ctx, cfg)
	if err != nil {
		return err
	}
	p, err := policy.NewONNXPolicy(net, *out, policy.ONNXOptions{Shuffle: q.Ablation == "shuffled"})
	if err != nil {
		return fmt.Errorf("the exported model does not load: %w", err)
	}
	p.Close()
	fmt.Fprintf(stdout, "trained %s: %s (card %s): best %s, validation %.4f (imitation %v), %.0f s\n", net.Name, *out,
		strings.TrimSuffix(*out, ".onnx")+".card.json", card.Best, card.BestValidation, card.ImitationValidation, card.Seconds)
	return nil
}

// printEvent writes one progress line; the trainer's own step lines are
// shown every tenth of their phase and at its end.
func printEvent(w io.Writer, name string, e train.Event) {
	if e.Phase == "trainer" {
		if ph, _ := e.Trainer["phase"].(string); ph == "pg" || ph == "fit" || ph == "imitation" {
			// Every tenth of a phase, so a long one shows it is moving.
			if st, _ := e.Trainer["step"].(float64); st != 0 {
				if steps, _ := e.Trainer["steps"].(float64); st != steps && int(st)%max(int(steps)/10, 1) != 0 {
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

// flagError names the flag a request field comes from ("demos: …" reads
// "--demos: …" on the command line).
func flagError(err error) error {
	var e *engine.Error
	if errors.As(err, &e) && e.Code == engine.EINVALID {
		return engine.Errorf(engine.EINVALID, "--%s", e.Message)
	}
	return err
}

// withoutOut drops --out from the recorded command: where a model was
// written is not how it was made, and make models gives its own.
func withoutOut(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--out" || a == "-out":
			i++
		case strings.HasPrefix(a, "--out=") || strings.HasPrefix(a, "-out="):
		default:
			out = append(out, a)
		}
	}
	return out
}

// sizeText writes a model size as --size reads it.
func sizeText(s [4]int) string { return fmt.Sprintf("%d,%d,%d,%d", s[0], s[1], s[2], s[3]) }

// trainAsJob trains a stored network's model as a job of the state
// directory's jobs service (see asjob.go); the model goes where the
// dashboard reads it.
func trainAsJob(ctx context.Context, nf *netFlags, q train.Request, t train.Trainer, getenv func(string) string, stdout, stderr io.Writer) error {
	if t.Script == "" {
		var err error
		if t.Script, err = train.FindScript(getenv); err != nil {
			return err
		}
	}
	l, n, err := stateLab(ctx, nf, getenv, lab.Options{Trainer: t}, stderr)
	if err != nil {
		return err
	}
	defer l.Close()
	st, err := l.StartTraining(n, q, "cli")
	if err != nil {
		return flagError(err)
	}
	if _, err := awaitJob(ctx, l, st, stderr, true); err != nil {
		return err
	}
	var res lab.TrainResult
	if err := l.Jobs().Result(st.ID, &res); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "trained %s (job %s): %s in %s: best %s, validation %.4f (imitation %v), %.0f s\n", n.Net.Name, st.ID, res.Model,
		l.ModelsDirFor(n.Net.Name), res.Best, res.Validation, res.Imitation, res.Seconds)
	return nil
}

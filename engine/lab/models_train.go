package lab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/jobs"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/train"
)

const trainKind = "train"

// TrainJob is what a training job stores as its spec.
type TrainJob struct {
	Request train.Request `json:"request"`
	Command string        `json:"command"` // the same run on the command line
}

// CurvePoint is one point of a training job's learning curve: a validated
// checkpoint's on-time rate at each validation factor, or (Kind "teacher")
// the chosen teachers' level the curve is drawn against.
type CurvePoint struct {
	Kind    string    `json:"kind"` // teacher, imitation, expert iteration, policy gradient
	Name    string    `json:"name,omitempty"`
	Rates   []float64 `json:"rates"`   // at each of Factors
	Factors []float64 `json:"factors"` // the validation budget factors
	Mean    float64   `json:"mean"`
	Best    string    `json:"best,omitempty"`
	Elapsed float64   `json:"elapsed"`
}

// TrainResult is a finished training job's model.
type TrainResult struct {
	Model       string    `json:"model"` // file in the network's models directory
	Best        string    `json:"best"`
	Validation  float64   `json:"validation"`
	Imitation   []float64 `json:"imitation"`
	Seconds     float64   `json:"seconds"`
	Fingerprint string    `json:"fingerprint"`
}

// TrainingAvailable says why this lab cannot train for a network, or "".
func (l *Lab) TrainingAvailable(name string) string {
	if builtin.IsBuiltin(name) {
		return "built-in networks are not trained from the dashboard; add a network of your own to train for it"
	}
	if l.stateModels() == "" {
		return "training from the dashboard needs a state directory (ontime serve --state DIR)"
	}
	return ""
}

// StartTraining queues a GPG-HT training run for a stored network. The
// model, its imitation checkpoint and card are written to a temporary
// directory and moved into the network's models directory only when the
// run succeeds: a canceled or failed job leaves no model behind. owner is
// who asked, for the jobs' per-client bound.
func (l *Lab) StartTraining(n *Net, q train.Request, owner string) (jobs.Status, error) {
	if why := l.TrainingAvailable(n.Net.Name); why != "" {
		return jobs.Status{}, engine.Errorf(engine.EINVALID, "%s", why)
	}
	cfg, err := q.Config(n.Net, n.Model)
	if err != nil {
		return jobs.Status{}, err
	}
	spec := TrainJob{Request: q, Command: strings.Join(append([]string{"ontime", "train", "--network", n.Net.Name}, q.Args()...), " ")}
	raw, _ := json.Marshal(spec)
	h := sha256.Sum256(fmt.Appendf(raw, "|%s|%s", n.Net.Name, n.Net.PoolKey()))
	dir := n.ModelsDir()
	task := jobs.Task{ID: "t" + hex.EncodeToString(h[:6]), Kind: trainKind, Network: n.Net.Name, Spec: spec, Owner: owner,
		Run: func(ctx context.Context, p *jobs.Progress) (any, error) {
			return l.runTraining(ctx, p, n, cfg, spec.Command, dir)
		}}
	return l.Jobs().Submit(task)
}

func (l *Lab) runTraining(ctx context.Context, p *jobs.Progress, n *Net, cfg train.Config, command, dir string) (*TrainResult, error) {
	cfg.Trainer = l.opts.Trainer
	if err := checkTrainer(ctx, &cfg.Trainer); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(dir, ".train-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	file := policy.ModelFile(n.Net.Name, cfg.Ablation)
	cfg.Out, cfg.Command, cfg.Log = filepath.Join(tmp, file), command, p.Log()
	cfg.Defaults() // the validation factors, for the curve
	prog := newTrainProgress(cfg)
	cfg.Progress = func(e train.Event) {
		if e.Trainer != nil {
			fmt.Fprintf(p.Log(), "  trainer %s\n", trainLine(e))
		} else {
			line := trainLine(e)
			if !strings.HasPrefix(line, e.Phase) {
				line = e.Phase + " " + line
			}
			fmt.Fprintf(p.Log(), "[%5.0f s] %s\n", e.Elapsed, line)
		}
		stage, f := prog.update(e)
		p.Report(stage, prog.done, prog.total, f)
		if pt, ok := curvePoint(e, cfg.ValidationFactors); ok {
			p.Event(pt)
		}
	}
	card, err := train.Run(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// The card goes last: a model is offered once its card is there.
	base := strings.TrimSuffix(file, ".onnx")
	for _, f := range []string{base + ".imitation.onnx", file, base + ".card.json"} {
		if err := os.Rename(filepath.Join(tmp, f), filepath.Join(dir, f)); err != nil {
			return nil, fmt.Errorf("installing the model: %w", err)
		}
	}
	n.ForgetModel()
	return &TrainResult{Model: file, Best: card.Best, Validation: card.BestValidation, Imitation: card.ImitationValidation,
		Seconds: card.Seconds, Fingerprint: card.Fingerprint}, nil
}

// checkTrainer finds train.py and checks the interpreter has PyTorch and
// onnx, saying exactly what to install when not.
func checkTrainer(ctx context.Context, t *train.Trainer) error {
	if t.Python == "" {
		t.Python = "/usr/bin/python3"
	}
	if t.Script == "" {
		var err error
		if t.Script, err = train.FindScript(os.Getenv); err != nil {
			return err
		}
	}
	out, err := exec.CommandContext(ctx, t.Python, "-c", "import torch, onnx").CombinedOutput()
	if err != nil {
		return engine.Errorf(engine.EINVALID, "training needs PyTorch 1.13+ and onnx for %s (%s): on Debian `apt-get install python3-torch python3-onnx`, elsewhere `%s -m pip install torch onnx`",
			t.Python, strings.TrimSpace(lastLine(string(out), err)), t.Python)
	}
	return nil
}

func lastLine(out string, err error) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if l := lines[len(lines)-1]; l != "" {
		return l
	}
	return err.Error()
}

// trainLine is an event's text for the job's log.
func trainLine(e train.Event) string {
	switch {
	case e.Trainer != nil:
		b, _ := json.Marshal(e.Trainer)
		return string(b)
	case e.Means != nil:
		return fmt.Sprintf("%s validation %.4f (best %s)", e.Message, e.Means, e.Best)
	}
	return e.Message
}

// curvePoint turns a validation event into a point of the learning curve.
func curvePoint(e train.Event, factors []float64) (CurvePoint, bool) {
	rates := e.Means
	kind := e.Phase
	if e.Phase == "teachers" {
		rates, kind = e.Teacher, "teacher"
	}
	if len(rates) == 0 || e.Phase == "done" {
		return CurvePoint{}, false
	}
	pt := CurvePoint{Kind: kind, Rates: rates, Factors: factors, Best: e.Best, Elapsed: e.Elapsed}
	for _, r := range rates {
		pt.Mean += r / float64(len(rates))
	}
	if i := strings.Index(e.Message, ":"); i > 0 && kind != "teacher" {
		pt.Name = e.Message[:i]
	} else if kind == "imitation" {
		pt.Name = "imitation"
	}
	return pt, true
}

// trainProgress turns the trainer's events into a stage and the fraction
// of the run done: setup 5%, imitation 30%, expert-iteration rounds 50%,
// policy-gradient chunks 15% (the rest is validation and export).
type trainProgress struct {
	rounds, chunks int
	done, total    int
	f              float64
}

func newTrainProgress(c train.Config) *trainProgress {
	return &trainProgress{rounds: c.Rounds, chunks: c.PGChunks, total: 1 + c.Rounds + c.PGChunks}
}

func (t *trainProgress) update(e train.Event) (string, float64) {
	stage := e.Phase
	switch e.Phase {
	case "spec", "teachers", "demos":
		t.f = 0.05
	case "trainer":
		ph, _ := e.Trainer["phase"].(string)
		step, _ := e.Trainer["step"].(float64)
		steps, _ := e.Trainer["steps"].(float64)
		stage = ph
		if ph == "imitation" && steps > 0 {
			t.f = max(t.f, 0.05+0.30*step/steps)
		}
	case "imitation":
		t.done, t.f = 1, 0.35
	case "expert iteration":
		t.done++
		t.f = 0.35 + 0.50*float64(t.done-1)/float64(max(t.rounds, 1))
	case "policy gradient":
		t.done++
		t.f = 0.85 + 0.15*float64(t.done-1-t.rounds)/float64(max(t.chunks, 1))
	case "done":
		t.done, t.f = t.total, 1
	}
	if t.rounds == 0 && t.chunks == 0 && t.done == 1 {
		t.f = max(t.f, 0.95)
	}
	return stage, min(t.f, 0.99)
}

const learnersKind = "learners"

// StartLearners queues a job that trains the network's learners (pql, ctd,
// segac, …: every offered method trained on the training stream) for its
// benchmark destinations, so no request waits for one to train; each is
// kept like a learner trained on first use (and cached on disk).
func (l *Lab) StartLearners(n *Net, owner string) (jobs.Status, error) {
	var names []string
	for _, m := range policy.Methods {
		if m.Offered && m.Kind == policy.Learner {
			names = append(names, m.Name)
		}
	}
	h := sha256.Sum256([]byte(n.Net.Name + "|" + n.Net.PoolKey() + "|" + strings.Join(names, ",")))
	task := jobs.Task{ID: "l" + hex.EncodeToString(h[:6]), Kind: learnersKind, Network: n.Net.Name, Spec: map[string]any{"learners": names}, Owner: owner,
		Run: func(ctx context.Context, p *jobs.Progress) (any, error) {
			built := map[string]string{}
			for i, name := range names {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				p.Report(name, i, len(names), float64(i)/float64(len(names)))
				fmt.Fprintf(p.Log(), "training %s for %s's benchmark destinations\n", name, n.Net.Name)
				if _, err := n.Policy(name); err != nil {
					built[name] = err.Error()
					fmt.Fprintf(p.Log(), "  %s: %v\n", name, err)
					continue
				}
				built[name] = "ready"
			}
			return built, nil
		}}
	return l.Jobs().Submit(task)
}

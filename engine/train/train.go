// Package train is the Go side of GPG-HT training: it writes the trainer's
// spec, chooses the imitation teachers, plays the demonstrations, and runs
// expert iteration in rounds with the PyTorch trainer (models/train):
// the student plays its own (sampled) episodes on the training stream, Go
// labels every state they reach with the rollout policy's choice, the
// trainer fits the aggregate, and a fixed checkpoint rule on a large
// validation pool keeps the best model. An optional phase of the paper's
// generalized policy gradient follows. Everything stops on counts (rounds,
// steps, iterations), never on wall time, and is seeded from Seed.
package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/trainspec"
)

// Event is one line of progress.
type Event struct {
	Phase   string    `json:"phase"` // spec, teachers, demos, imitation, expert iteration, policy gradient, check, done; trainer: a line of the trainer's own
	Round   int       `json:"round,omitempty"`
	Message string    `json:"message,omitempty"`
	Means   []float64 `json:"validation,omitempty"`
	// Teacher is the chosen teachers' on-time rate at each validation factor
	// (mean over the validation pairs, on the realizations they were chosen
	// on): the level a learning curve is drawn against.
	Teacher []float64      `json:"teacher,omitempty"`
	Best    string         `json:"best,omitempty"`
	Elapsed float64        `json:"elapsed"`
	Trainer map[string]any `json:"trainer,omitempty"`
}

// run is one training run's state.
type run struct {
	cfg       Config
	start     time.Time
	sess      *session
	dir       string
	let       []float64 // LET time of each covered pair
	valODs    []int     // indices of the validation pairs in cfg.ODs
	weights   []float64
	weightSum float64
	val       *sim.Pool
	stream    *sim.Stream
	env       *policy.Env
	teachers  []engine.Policy
	labeller  engine.Policy
	labels    int // labelled states so far
	differ    int // of the last round's, those where the label is not the student's link
	// mismatched: of the last round's episodes, those Go's replay ended at
	// another step than the trainer did
	mismatched int
}

// Run trains a model and writes it, its imitation checkpoint and its card.
func Run(ctx context.Context, c Config) (*Card, error) {
	c.Defaults()
	if c.Trainer.Script == "" {
		p, err := FindScript(os.Getenv)
		if err != nil {
			return nil, err
		}
		c.Trainer.Script = p
	}
	r := &run{cfg: c, start: time.Now()}
	if err := r.setup(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ontime-train-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	r.dir = dir
	r.sess = &session{t: c.Trainer, spec: dir, progress: c.Progress, log: c.Log}
	return r.train(ctx)
}

// setup checks the configuration and indexes the pairs.
func (r *run) setup() error {
	c := &r.cfg
	if c.Net == nil || c.Model == nil {
		return engine.Errorf(engine.EINVALID, "train: no network")
	}
	if len(c.ODs) == 0 {
		return engine.Errorf(engine.EINVALID, "network %s: no OD pairs to train for", c.Net.Name)
	}
	if !(c.BudgetLo > 0 && c.BudgetLo <= c.BudgetHi) {
		return engine.Errorf(engine.EINVALID, "budget range %v–%v: give 0 < LO ≤ HI", c.BudgetLo, c.BudgetHi)
	}
	for _, od := range c.ValidationODs {
		k := slices.Index(c.ODs, od)
		if k < 0 {
			return engine.Errorf(engine.EINVALID, "validation pair %s is not among the covered pairs", c.Net.ODString(od))
		}
		r.valODs = append(r.valODs, k)
	}
	// Half of the episodes go to the validation pairs, half to the rest.
	rest := len(c.ODs) - len(r.valODs)
	for k := range c.ODs {
		w := 1.0
		if rest > 0 {
			if slices.Contains(r.valODs, k) {
				w = 0.5 / float64(len(r.valODs))
			} else {
				w = 0.5 / float64(rest)
			}
		}
		r.weights = append(r.weights, w)
		r.weightSum += w
		r.let = append(r.let, c.Net.LET(c.ODs[k].Destination).Time[c.ODs[k].Origin])
	}
	for _, t := range c.Teachers {
		if _, err := policy.Lookup(t); err != nil {
			return err
		}
	}
	return nil
}

func (r *run) emit(e Event) {
	e.Elapsed = time.Since(r.start).Seconds()
	if r.cfg.Progress != nil {
		r.cfg.Progress(e)
	}
}

// tasks lists one task per pair and factor.
func (r *run) tasks(ods []engine.OD, factors []float64) []sim.Task {
	return sim.Tasks(r.cfg.Net, ods, factors)
}

func (r *run) ckpt(name string) string { return filepath.Join(r.dir, name+".pt") }

// validate scores a checkpoint on the validation pool with the same
// shuffle seed every time.
func (r *run) validate(ctx context.Context, name string) (*checkpoint, error) {
	return r.sess.validate(ctx, name, r.ckpt(name), len(r.cfg.ValidationFactors), len(r.valODs)*r.val.Size, r.cfg.Seed+2)
}

// seedFor derives a trainer command's seed from the run's.
func (r *run) seedFor(step int) string { return fmt.Sprint(r.cfg.Seed*1000 + uint64(step)) }

// train runs the phases.
func (r *run) train(ctx context.Context) (*Card, error) {
	c := r.cfg
	card := newCard(&c)
	r.emit(Event{Phase: "spec", Message: fmt.Sprintf("%d covered pairs, validation on %d × %d factors × %d realizations", len(c.ODs), len(c.ValidationODs), len(c.ValidationFactors), c.ValidationSize)})
	r.val = sim.NewPool(c.Model, c.Net.PoolKey(), sim.Validation, 0, c.ValidationSize, c.Seed, nil)
	spec, err := trainspec.Write(r.dir, c.Net, c.Model, trainspec.Options{ODs: c.ODs, ODWeights: r.weights, ValidationODs: r.valODs,
		ValidationFactors: c.ValidationFactors, BudgetLo: c.BudgetLo, BudgetHi: c.BudgetHi, Seed: c.Seed, Validation: r.val})
	if err != nil {
		return nil, err
	}
	card.Fingerprint, card.Correlation, card.StepCap = spec.Fingerprint, spec.Correlation, spec.StepCap
	r.stream = sim.NewStream(c.Model, c.Net.PoolKey(), c.Seed)
	rng := rand.New(rand.NewPCG(c.Seed, 0x7ea1))

	t0 := time.Now()
	if card.Training.Labeller, err = r.policies(); err != nil {
		return nil, err
	}
	choice, err := r.chooseTeachers(ctx)
	if err != nil {
		return nil, err
	}
	mix := r.mix(choice)
	if r.labeller == nil {
		card.Training.Labeller = r.teacherLabeller(mix)
	}
	card.Training.TeacherChoice = summarizeChoice(choice, c.Teachers)
	for _, k := range r.valODs {
		card.Training.TeacherChoices = append(card.Training.TeacherChoices, choice[k])
	}
	r.emit(Event{Phase: "teachers", Message: fmt.Sprintf("teachers chosen in %.0f s: %s", time.Since(t0).Seconds(), describe(card.Training.TeacherChoice)),
		Teacher: r.teacherLevel(choice)})

	t0 = time.Now()
	demos := r.draw(c.Demos, rng)
	if err := r.demonstrate(ctx, demos, mix); err != nil {
		return nil, err
	}
	if err := demos.Write(filepath.Join(r.dir, "demos")); err != nil {
		return nil, err
	}
	r.emit(Event{Phase: "demos", Message: fmt.Sprintf("%d demonstrations in %.0f s", c.Demos, time.Since(t0).Seconds())})

	args := []string{"--out", r.ckpt("imitation"), "--data", filepath.Join(r.dir, "demos"), "--epochs", fmt.Sprint(c.ImitationEpochs),
		"--batch", fmt.Sprint(c.Batch), "--seed", r.seedFor(0), "--d", fmt.Sprint(c.Size[0]), "--enc", fmt.Sprint(c.Size[1]),
		"--dec", fmt.Sprint(c.Size[2]), "--heads", fmt.Sprint(c.Size[3]), "--lr", fmt.Sprint(Rates.Imitation)}
	args = append(args, ablationArgs[c.Ablation]...)
	t0 = time.Now()
	if _, err := r.sess.run(ctx, "imitate", args...); err != nil {
		return nil, err
	}
	best, err := r.validate(ctx, "imitation")
	if err != nil {
		return nil, err
	}
	imitation := best
	addRound(card, Round{Name: "imitation", Kind: "imitation", Labels: r.decisions(demos), Validation: best.Means, Mean: best.Mean(),
		Kept: true, Seconds: time.Since(t0).Seconds()})
	r.emit(Event{Phase: "imitation", Means: best.Means, Best: best.Name, Message: "checkpoint"})

	data := []string{filepath.Join(r.dir, "demos")}
	cur := "imitation"
	for round := 1; round <= c.Rounds; round++ {
		t0 := time.Now()
		name := fmt.Sprintf(roundName, round)
		set := filepath.Join(r.dir, name)
		eps := r.draw(c.RoundEpisodes, rng)
		if err := eps.Write(set); err != nil {
			return nil, err
		}
		if _, err := r.sess.run(ctx, "collect", "--state", r.ckpt(cur), "--tasks", set, "--out", set+".taken.json",
			"--seed", r.seedFor(round), "--batch", "2048"); err != nil {
			return nil, err
		}
		taken, err := trainspec.ReadTaken(set + ".taken.json")
		if err != nil {
			return nil, err
		}
		if len(taken) != eps.Len() {
			return nil, fmt.Errorf("round %d: the trainer played %d episodes of %d", round, len(taken), eps.Len())
		}
		tl := time.Now()
		before := r.labels
		if err := r.label(ctx, eps, taken); err != nil {
			return nil, err
		}
		labelSec := time.Since(tl).Seconds()
		if err := eps.Write(set); err != nil {
			return nil, err
		}
		data = append(data, set)
		fit := []string{"--state", r.ckpt(cur), "--out", r.ckpt(name), "--steps", fmt.Sprint(c.RoundSteps),
			"--batch", fmt.Sprint(c.Batch), "--seed", r.seedFor(round), "--lr", fmt.Sprint(Rates.Fit)}
		for _, d := range data {
			fit = append(fit, "--data", d)
		}
		if _, err := r.sess.run(ctx, "fit", fit...); err != nil {
			return nil, err
		}
		round := Round{Name: name, Kind: "expert iteration", Labels: r.labels - before,
			Disagree: float64(r.differ) / float64(max(r.labels-before, 1)), LabelSeconds: labelSec, Mismatched: r.mismatched}
		if best, err = r.judge(ctx, card, best, round, t0); err != nil {
			return nil, err
		}
		cur = name
	}

	// The paper's generalized policy gradient, from the best checkpoint.
	cur = best.Name
	for chunk := 1; chunk <= c.PGChunks; chunk++ {
		t0 := time.Now()
		name := fmt.Sprintf("pg%d", chunk)
		args := []string{"--state", r.ckpt(cur), "--out", r.ckpt(name), "--iterations", fmt.Sprint(c.PGIterations),
			"--batch", fmt.Sprint(c.PGBatch), "--seed", r.seedFor(100 + chunk), "--lr", fmt.Sprint(Rates.PG), "--entropy", fmt.Sprint(Rates.Entropy)}
		if c.Ablation == "vpg" {
			args = append(args, "--vpg")
		}
		if _, err := r.sess.run(ctx, "pg", args...); err != nil {
			return nil, err
		}
		if best, err = r.judge(ctx, card, best, Round{Name: name, Kind: "policy gradient", Iterations: c.PGIterations}, t0); err != nil {
			return nil, err
		}
		cur = name
	}
	return r.finish(ctx, card, best, imitation)
}

// judge validates the checkpoint a round wrote, applies the checkpoint rule
// against the best so far, records the round and returns the new best.
func (r *run) judge(ctx context.Context, card *Card, best *checkpoint, round Round, start time.Time) (*checkpoint, error) {
	next, err := r.validate(ctx, round.Name)
	if err != nil {
		return nil, err
	}
	cmp, against := compare(next, best), best.Name
	if beats(cmp) {
		best = next
	}
	round.Validation, round.Mean, round.VersusBest, round.Kept = next.Means, next.Mean(), &cmp, best == next
	round.Seconds = time.Since(start).Seconds()
	addRound(card, round)
	r.emit(Event{Phase: round.Kind, Round: len(card.Rounds) - 1, Means: next.Means, Best: best.Name,
		Message: fmt.Sprintf("%s: %+.4f ± %.4f against %s", round.Name, cmp.Diff, cmp.SE, against)})
	return best, nil
}

// teacherLevel is the chosen teachers' mean rate over the validation pairs
// at each validation factor.
func (r *run) teacherLevel(choice [][]TeacherChoice) []float64 {
	out := make([]float64, len(r.cfg.ValidationFactors))
	for i, f := range r.cfg.ValidationFactors {
		for _, k := range r.valODs {
			for _, ch := range choice[k] {
				if math.Abs(ch.Factor-f) < 1e-9 {
					out[i] += ch.Rates[ch.Teacher] / float64(len(r.valODs))
				}
			}
		}
	}
	return out
}

// decisions counts the labelled states of an episode set.
func (r *run) decisions(e *trainspec.Episodes) int {
	n := 0
	for _, t := range e.Taken {
		n += len(t)
	}
	return n
}

// finish exports the best and the imitation checkpoints next to each other
// (each written to a temporary file and renamed) and writes the card.
func (r *run) finish(ctx context.Context, card *Card, best, imitation *checkpoint) (*Card, error) {
	c := r.cfg
	if err := os.MkdirAll(filepath.Dir(c.Out), 0o755); err != nil {
		return nil, err
	}
	base := c.Out[:len(c.Out)-len(filepath.Ext(c.Out))]
	if _, err := r.sess.run(ctx, "export", "--state", imitation.Path, "--out", base+".imitation.onnx"); err != nil {
		return nil, err
	}
	last, err := r.sess.run(ctx, "export", "--state", best.Path, "--out", c.Out)
	if err != nil {
		return nil, err
	}
	finishCard(card, last, best, imitation, time.Since(r.start).Seconds())
	if card.EpisodeRule, err = r.checkEpisodeRule(ctx, best, c.Out); err != nil {
		return nil, fmt.Errorf("episode-rule check: %w", err)
	}
	if ch := card.EpisodeRule; ch != nil {
		r.emit(Event{Phase: "check", Message: fmt.Sprintf("episode rule, Go and the trainer on %d of the %d validation episodes (one in %d): links differ on %d, on-time flags on %d %s",
			ch.Episodes, ch.Of, ch.Every, ch.ActionsDiffer, ch.FlagsDiffer, ch.First)})
	}
	card.ImitationModel = filepath.Base(base + ".imitation.onnx")
	if err := writeCard(card, base+".card.json"); err != nil {
		return nil, err
	}
	r.emit(Event{Phase: "done", Means: best.Means, Best: best.Name, Message: c.Out})
	return card, nil
}

// ablationArgs are the trainer's switches for each control ("indep" changes
// the link-time model instead, "vpg" the policy-gradient estimator).
var ablationArgs = map[string][]string{"nohist": {"--no-history"}, "noha": {"--no-ha"}, "nodt": {"--linear-decoder"},
	"shuffled": {"--shuffle-prefix"}}

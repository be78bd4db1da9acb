package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/split"
	"github.com/ontime-routing/ontime/engine/trainspec"
)

// chooseTeachers picks, per covered pair and per factor of three across the
// budget range, the candidate with the best on-time rate on the first
// realizations of the validation pool (more for the validation pairs;
// ties go to the first candidate). A single candidate is scored on the
// validation pairs only.
func (r *run) chooseTeachers(ctx context.Context) ([][]TeacherChoice, error) {
	c := r.cfg
	factors := r.teacherFactors()
	out := make([][]TeacherChoice, len(c.ODs))
	for k := range out {
		out[k] = make([]TeacherChoice, len(factors))
	}
	isVal := map[int]bool{}
	for _, k := range r.valODs {
		isVal[k] = true
	}
	err := split.Each(ctx, len(c.ODs)*len(factors), runtime.GOMAXPROCS(0), "training worker", func(_, j int) error {
		k, fi := j/len(factors), j%len(factors)
		n := min(c.TeacherRealizations, r.val.Size)
		if isVal[k] {
			n = min(c.TeacherRealizationsValidation, r.val.Size)
		}
		ch := TeacherChoice{OD: c.Net.ODString(c.ODs[k]), Factor: factors[fi], Teacher: c.Teachers[0]}
		if len(r.teachers) == 1 && !isVal[k] {
			// Nothing to choose: only the validation pairs are scored (the
			// teacher's level, a reference for the learning curve).
			out[k][fi] = ch
			return nil
		}
		pool := &sim.Pool{Purpose: sim.Validation, Size: n, Dim: r.val.Dim, X: r.val.X[:n*r.val.Dim]}
		task := []sim.Task{{OD: c.ODs[k], Budget: factors[fi] * r.let[k], Cap: c.Net.StepCap}}
		ch.Rates, ch.Pool = map[string]float64{}, n
		best := -1.0
		for ti, p := range r.teachers {
			rate, err := sim.OnTimeRate(c.Net, p, task, pool)
			if err != nil {
				return err
			}
			ch.Rates[c.Teachers[ti]] = rate
			if rate > best {
				best, ch.Teacher = rate, c.Teachers[ti]
			}
		}
		out[k][fi] = ch
		return nil
	})
	return out, err
}

// teacherFactors are the budget factors teachers are chosen at: the
// range's ends and middle and the validation factors inside it (an episode
// follows the teacher of the nearest one, so a benchmark budget gets the
// teacher chosen at that budget).
func (r *run) teacherFactors() []float64 {
	lo, hi := r.cfg.BudgetLo, r.cfg.BudgetHi
	fs := []float64{lo, (lo + hi) / 2, hi}
	for _, f := range r.cfg.ValidationFactors {
		if f >= lo && f <= hi && !slices.ContainsFunc(fs, func(x float64) bool { return math.Abs(x-f) < 1e-9 }) {
			fs = append(fs, f)
		}
	}
	slices.Sort(fs)
	return fs
}

// draw fills an episode set with n tasks from the training stream: a pair
// drawn by its weight, a budget factor uniform in the range.
func (r *run) draw(n int, rng *rand.Rand) *trainspec.Episodes {
	c := r.cfg
	pool := r.stream.Next(n)
	e := &trainspec.Episodes{}
	for i := range n {
		k := r.pick(rng)
		f := c.BudgetLo + (c.BudgetHi-c.BudgetLo)*rng.Float64()
		e.Add(k, f*r.let[k], pool.Row(i))
	}
	return e
}

// pick draws a covered pair by weight.
func (r *run) pick(rng *rand.Rand) int {
	u := rng.Float64() * r.weightSum
	for k, w := range r.weights {
		if u -= w; u < 0 {
			return k
		}
	}
	return len(r.weights) - 1
}

// teacherMix follows the chosen teacher of an episode's pair at the
// nearest teacher factor; the pair and the original budget are read from
// the observation (the prefix's first node and the time spent), so it also
// serves as rollout's base on continuations.
type teacherMix struct {
	net     *engine.Network
	factors []float64
	let     []float64
	index   map[engine.OD]int
	choice  [][]engine.Policy // per pair and factor
	first   engine.Policy     // for a pair not covered
}

func (r *run) mix(choice [][]TeacherChoice) *teacherMix {
	byName := map[string]engine.Policy{}
	for i, name := range r.cfg.Teachers {
		byName[name] = r.teachers[i]
	}
	m := &teacherMix{net: r.cfg.Net, factors: r.teacherFactors(), let: r.let, index: map[engine.OD]int{}, first: r.teachers[0]}
	for k, od := range r.cfg.ODs {
		m.index[od] = k
		row := make([]engine.Policy, len(choice[k]))
		for fi, ch := range choice[k] {
			row[fi] = byName[ch.Teacher]
		}
		m.choice = append(m.choice, row)
	}
	return m
}

func (m *teacherMix) Act(o *engine.Observation) int {
	origin, budget := o.Node, o.Remaining
	if len(o.Prefix) > 0 {
		origin = m.net.Links[o.Prefix[0].Link].From
		for _, s := range o.Prefix {
			budget += s.Time
		}
	}
	k, ok := m.index[engine.OD{Origin: origin, Destination: o.Destination}]
	if !ok {
		return m.first.Act(o)
	}
	f := budget / m.let[k]
	best := 0
	for fi, x := range m.factors {
		if math.Abs(x-f) < math.Abs(m.factors[best]-f) {
			best = fi
		}
	}
	return m.choice[k][best].Act(o)
}

// demonstrate plays the chosen teachers on the episodes.
func (r *run) demonstrate(ctx context.Context, e *trainspec.Episodes, mix *teacherMix) error {
	e.Taken = make([][]int, e.Len())
	return split.Each(ctx, e.Len(), runtime.GOMAXPROCS(0), "training worker", func(_, i int) error {
		e.Taken[i], _ = r.play(mix, e.OD[i], e.Budget[i], e.X[i])
		return nil
	})
}

// label replays each episode along its taken links and labels every state
// it reached with the labeller's (rollout's) choice there; r.differ counts
// the states where the label is not the link the student took.
func (r *run) label(ctx context.Context, e *trainspec.Episodes, taken [][]int) error {
	e.Taken = make([][]int, e.Len())
	e.Labels = make([][]int, e.Len())
	var decisions, differ, mismatched atomic.Int64
	err := split.Each(ctx, e.Len(), runtime.GOMAXPROCS(0), "training worker", func(_, i int) error {
		var labels []int
		e.Taken[i], _ = r.play(&replay{links: taken[i], labeller: r.labeller, labels: &labels}, e.OD[i], e.Budget[i], e.X[i])
		e.Labels[i] = labels
		if len(e.Taken[i]) != len(taken[i]) {
			mismatched.Add(1)
		}
		decisions.Add(int64(len(labels)))
		for j, l := range labels {
			if l != e.Taken[i][j] {
				differ.Add(1)
			}
		}
		return nil
	})
	r.labels += int(decisions.Load())
	r.differ = int(differ.Load())
	r.mismatched = int(mismatched.Load())
	if r.mismatched > 0 {
		fmt.Fprintf(r.cfg.Log, "replay: %d of %d episodes ended at another step under Go's episode rule than in the trainer (float32 budgets met exactly at a step's end); replayed to the shorter end\n", r.mismatched, e.Len())
	}
	return err
}

// replay follows recorded links and asks the labeller at every state.
type replay struct {
	links    []int
	labeller engine.Policy
	labels   *[]int
}

func (p *replay) Act(o *engine.Observation) int {
	if o.Step >= len(p.links) {
		return -1 // the trainer's float32 episode ended earlier: stop here
	}
	*p.labels = append(*p.labels, p.labeller.Act(o))
	return p.links[o.Step]
}

// play runs one episode of p under the simulator's episode rule and returns
// the links it took and whether it arrived on time (a policy that answers
// −1 ends the episode there, late).
func (r *run) play(p engine.Policy, k int, budget float64, x []float64) (links []int, onTime bool) {
	c := r.cfg
	task := sim.Task{OD: c.ODs[k], Budget: budget, Cap: c.Net.StepCap}
	capN := sim.StepCap(c.Net, task.Cap)
	o := &engine.Observation{Node: task.OD.Origin, Destination: task.OD.Destination, Remaining: budget}
	for {
		if _, stuck := sim.Stuck(c.Net, task, o); stuck {
			return links, false
		}
		e := p.Act(o)
		if e < 0 {
			return links, false
		}
		links = append(links, e)
		if res, done := sim.Advance(c.Net, task, capN, o, e, x[e]); done {
			return links, res.OnTime
		}
	}
}

package bench

import (
	"context"
	"errors"
	"testing"

	"github.com/ontime-routing/ontime/engine/testenv"
)

// A benchmark canceled while a learner trains stops training (a canceled
// job on the dashboard, or a server shutting down), and reports the
// cancellation, not a result. Counted, not timed: a learner checks its
// context before each unit of work (a sweep, an iteration), so a run is
// canceled at its tenth check past those its start makes, and must then
// return making at most two more checks (the loop that saw it, and the
// one around it), where a learner that went on would make one for every
// unit left. Its start is counted by runs of what it starts from: pql and
// ctd nothing before their sweeps (as let), segac its teacher dot's
// tables, solved for the asked budgets and then up to the largest it
// trains on.
func TestCancelStopsLearnerTraining(t *testing.T) {
	net, model := testenv.Network(t, "ringtown", "")
	cfg := Config{Net: net, Model: model, Budgets: []float64{1}, ODs: net.ODs, Pools: 2, PoolSize: 50}
	type start struct {
		method string
		budget float64
	}
	type learner struct {
		name   string
		starts []start
	}
	learners := []learner{{"pql", []start{{"let", 1}}}, {"ctd", []start{{"let", 1}}}, {"segac", []start{{"dot", 1}, {"dot", 1.1}}}}
	// -short (the race run): the learners that need no dot tables, solved
	// four times over for segac's count.
	for _, c := range testenv.Sized(learners, learners[:2]) {
		at := 10
		for _, s := range c.starts {
			pre := cfg
			pre.Methods, pre.Budgets = []string{s.method}, []float64{s.budget}
			count := testenv.CancelAtCheck(0)
			if _, err := Run(count, pre); err != nil {
				t.Fatalf("%s: %v", s.method, err)
			}
			count.Stop()
			at += count.Checks()
		}
		cfg.Methods = []string{c.name}
		ctx := testenv.CancelAtCheck(at)
		_, err := Run(ctx, cfg)
		ctx.Stop()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v (%d checks), want the cancellation at check %d", c.name, err, ctx.Checks(), at)
		} else if n := ctx.AfterCancel(); n > 2 {
			t.Errorf("%s: %d checks after the cancel at check %d: training went on", c.name, n, at)
		}
	}
}

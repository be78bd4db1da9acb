package policy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ontime-routing/ontime/engine"
)

// A table answers every read of a bin it holds. The plan asks the table's
// own least budget up to its largest budget (a whole number of bins, just
// below that budget), then plays episodes at that budget: they read the
// same bins, so the table must not be solved again a bin larger (Delaware:
// a second 43-s solve, with both tables in memory while it ran). The answer
// is the one a table solved for that budget gives.
func TestDOTReadsOfHeldBinsSolveNothing(t *testing.T) {
	net, m := twoStage()
	rng := rand.New(rand.NewPCG(47, 1))
	for range 40 {
		delta := 0.05 + 0.2*rng.Float64()
		max := 17 + 10*rng.Float64()
		d := NewDOT(net, m, delta)
		if _, ok := d.LeastBudget(2, 0, 0.9, max); !ok {
			t.Fatalf("Δ %v, up to %v: no least budget", delta, max)
		}
		held := d.tabs[2]
		if b := int(math.Floor(max/delta + 1e-9)); b > held.n-1 {
			t.Fatalf("Δ %v, up to %v: bin %d read, the table holds %d", delta, max, b, held.n)
		}
		o := &engine.Observation{Node: 0, Destination: 2, Remaining: max}
		got := d.Act(o)
		v := d.Value(2, 0, max, d.cap)
		if d.tabs[2] != held {
			t.Fatalf("Δ %v, up to %v: solved again (%d bins, then %d)", delta, max, held.n, d.tabs[2].n)
		}
		fresh := NewDOT(net, m, delta)
		fresh.Solve(2, max)
		if want, wv := fresh.Act(o), fresh.Value(2, 0, max, fresh.cap); got != want || v != wv {
			t.Errorf("Δ %v, at %v: link %d value %v, a table solved for it: link %d value %v", delta, max, got, v, want, wv)
		}
	}
}

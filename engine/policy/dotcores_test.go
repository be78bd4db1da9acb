package policy_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
)

// An uncapped table's bins are filled a part a core where a bin holds
// enough nodes: every value is the one a single core computes, bit for
// bit, on random street grids (links shorter than a step among them),
// under both roundings.
func TestDOTTableOnEveryCoreIsOneCores(t *testing.T) {
	defer func(limit int64) { policy.DOTTableLimit = limit }(policy.DOTTableLimit)
	policy.DOTTableLimit = 0 // uncapped: the sweep that runs a part a core
	defer policy.SplitTableBins()()
	rng := rand.New(rand.NewPCG(47, 2))
	for range 20 {
		net := randomStreets(rng)
		m, err := linktime.New(net)
		if err != nil {
			t.Fatal(err)
		}
		od := net.ODs[0]
		budget := 1.5 * net.LET(od.Destination).Time[od.Origin]
		for _, rounding := range []string{"up", "mean"} {
			solve := func(procs int) []float32 {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				d := policy.NewDOTRounding(net, m, budget/500, rounding)
				d.Solve(od.Destination, budget)
				u := d.TableData(od.Destination)
				if len(u) != 1 {
					t.Fatalf("%d levels, want an uncapped table", len(u))
				}
				return u[0]
			}
			if one, four := solve(1), solve(4); !slices.Equal(one, four) {
				t.Fatalf("%d nodes, rounding %s: the table on four cores differs from one core's", len(net.Nodes), rounding)
			}
		}
	}
}

// An uncapped table is the fixed point of the capped recursion: with at
// least as many links left as the table has bins (each link takes one bin
// or more), the capped table's top level holds the same values, bit for
// bit. On grids whose laws span few of the table's bins (the uncapped
// sweep then keeps its work values for those bins only) and many.
func TestDOTUncappedIsTheCappedTopLevel(t *testing.T) {
	for _, w := range []int{5, 8} {
		for _, bins := range []int{40, 47, 63, 300} {
			net := spatialGrid(w)
			m, err := linktime.New(net)
			if err != nil {
				t.Fatal(err)
			}
			od := net.ODs[0]
			budget := 1.3 * net.LET(od.Destination).Time[od.Origin]
			delta := budget / float64(bins)
			saved := policy.DOTTableLimit
			policy.DOTTableLimit = 0
			uncapped := policy.NewDOT(net, m, delta)
			uncapped.Solve(od.Destination, budget)
			policy.DOTTableLimit = saved
			net.StepCap = bins + 2
			capped := policy.NewDOT(net, m, delta)
			capped.Solve(od.Destination, budget)
			if levels := len(capped.TableData(od.Destination)); levels != bins+3 {
				t.Fatalf("%d levels, want %d", levels, bins+3)
			}
			for i := range net.Nodes {
				for b := range bins {
					got, want := uncapped.Value(od.Destination, i, float64(b)*delta, 0), capped.Value(od.Destination, i, float64(b)*delta, net.StepCap)
					if got != want {
						t.Fatalf("%d × %d grid, %d bins: node %d bin %d: uncapped %v, capped top level %v", w, w, bins, i, b, got, want)
					}
				}
			}
		}
	}
}

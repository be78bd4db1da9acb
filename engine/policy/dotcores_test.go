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

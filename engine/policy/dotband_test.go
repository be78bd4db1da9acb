package policy_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
	"github.com/ontime-routing/ontime/engine/verify"
)

// bandCase is a network the band is checked on, with its tasks.
type bandCase struct {
	name  string
	net   *engine.Network
	model *linktime.Gaussian
	tasks []sim.Task
	// rounding, when set, is DOT's rule (else the one its grid picks)
	rounding string
}

// newBandCase is net with its model and its OD pairs' tasks.
func newBandCase(t *testing.T, name string, net *engine.Network) bandCase {
	model, err := linktime.New(net)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return bandCase{name, net, model, letTasks(net), ""}
}

func builtinBandCase(t *testing.T, name, dataDir string) bandCase {
	net, err := builtin.Load(name, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	return newBandCase(t, name, net)
}

// The band leaves out only bins whose value the table stores as 0: on
// every generated network and the built-in ones, the table solved on the
// band equals the whole table bit for bit at every level, node and bin,
// and dot and cdot make the same decisions (the same outcome on every
// episode of a pool).
func TestDOTBandEqualsFullTable(t *testing.T) {
	bandLargeOnly := map[string]bool{
		"long-trips": true, // a minute
		// 40 s that check the band on laws the other cases already hold:
		// a warped law (asymmetric), a fitted one (hour-units), and a
		// correlation of low rank (the band reads marginal laws only)
		"skewed": true, "fitted": true, "rank-deficient": true,
	}
	for _, c := range verify.Generated(false) {
		if bandLargeOnly[c.Name] && !testenv.IsLarge() {
			continue // with the large cases (CI, make verify)
		}
		checkBand(t, newBandCase(t, c.Name, c.Net))
		// Times split (no generated case's grid picks it): a normal law's,
		// and with the large cases (CI, make verify) a warped law's, whose
		// 50 s checked the band under the split rule a second time.
		if c.Name == "short-links" || c.Name == "skewed" && testenv.IsLarge() {
			mean := newBandCase(t, c.Name+" split", c.Net)
			mean.rounding = "mean"
			checkBand(t, mean)
		}
	}
	checkBand(t, builtinBandCase(t, "twobranch", ""))
}

// The same on the paper's networks and a real city's.
func TestDOTBandEqualsFullTableOnSharedNetworks(t *testing.T) {
	dir := testenv.DataDir(t)
	// Anaheim's 14 s with the large cases: Sioux Falls is the paper's
	// network the band is checked on in make test.
	for _, name := range testenv.Tiered([]string{"sfn", "anaheim"}, []string{"sfn"}, []string{"sfn"}) {
		checkBand(t, builtinBandCase(t, name, dir))
	}
}

func checkBand(t *testing.T, c bandCase) {
	t.Helper()
	t.Run(c.name, func(t *testing.T) {
		t.Parallel() // each case its own tables: two cases solve beside each other
		budgets := map[int]float64{}
		for _, task := range c.tasks {
			budgets[task.OD.Destination] = math.Max(budgets[task.OD.Destination], task.Budget)
		}
		env := &policy.Env{Net: c.net, Model: c.model, Tasks: c.tasks, DOTRounding: c.rounding}
		g := env.DOTGrid() // the band holds for either rounding: it reads the binned laws
		band := policy.NewDOTRounding(c.net, c.model, g.Delta, g.Rounding)
		whole := policy.NewDOTRounding(c.net, c.model, g.Delta, g.Rounding)
		whole.SolveWhole()
		for d, b := range budgets {
			whole.Solve(d, b)
		}
		held, all := 0, 0
		for d, b := range budgets {
			band.Solve(d, b)
			h, a := band.TableCells(d)
			held, all = held+h, all+a
			levels, bins := whole.TableLevels(d)
			if l, n := band.TableLevels(d); l != levels || n != bins {
				t.Fatalf("dest %d: band %d levels × %d bins, whole %d × %d", d, l, n, levels, bins)
			}
			diff := 0
			for h := range levels {
				for i := range c.net.Nodes {
					for b := range bins {
						if w, g := whole.TableValue(d, h, i, b), band.TableValue(d, h, i, b); w != g {
							if diff++; diff <= 3 {
								t.Errorf("dest %d level %d node %d bin %d: band %g, whole %g", d, h, i, b, g, w)
							}
						}
					}
				}
			}
			if diff > 3 {
				t.Errorf("dest %d: %d values differ", d, diff)
			}
		}
		t.Logf("%s (%s rounding, step %.4g): the band holds %d of %d values (%.0f%%)", c.name, g.Rounding, g.Delta, held, all, 100*float64(held)/float64(all))
		for _, name := range []string{"dot", "cdot"} {
			want := outcomes(t, c, name, true)
			if got := outcomes(t, c, name, false); !slices.Equal(got, want) {
				t.Errorf("%s: outcomes differ between the band and the whole table", name)
			}
		}
	})
}

// outcomes plays method on a pool of 200 episodes of each task (with the
// whole tables or the band) and lists each episode's time and end.
func outcomes(t *testing.T, c bandCase, method string, whole bool) []string {
	env := &policy.Env{Net: c.net, Model: c.model, Tasks: c.tasks, DOTRounding: c.rounding}
	if whole {
		env.SolveWholeTables()
	}
	var out []string
	for _, r := range playPool(t, env, method, sim.NewPool(c.model, c.net.PoolKey(), sim.Test, 0, testenv.Sized(200, 50), 0, nil)) {
		out = append(out, fmt.Sprintf("%v %v %d", r.Time, r.OnTime, r.End))
	}
	return out
}

// The paper's networks keep the paper's grid: rounding up at a thousandth
// of the largest budget, which adds under DOTExcessLimit along their pairs'
// LET paths (so their published rates stand).
func TestDOTGridOnThePapersNetworks(t *testing.T) {
	dir := testenv.DataDir(t)
	// Anaheim's 14 s with the large cases: Sioux Falls is the paper's
	// network the band is checked on in make test.
	for _, name := range testenv.Tiered([]string{"sfn", "anaheim"}, []string{"sfn"}, []string{"sfn"}) {
		net, model := testenv.Network(t, name, dir)
		env := &policy.Env{Net: net, Model: model, Tasks: sim.Tasks(net, net.ODs, []float64{0.95, 1, 1.05})}
		hi := 0.0
		for _, b := range env.MaxBudget() {
			hi = math.Max(hi, b)
		}
		if g := env.DOTGrid(); g.Rounding != "up" || g.Delta != hi/1000 || g.Excess > policy.DOTExcessLimit {
			t.Errorf("%s: %s rounding at step %v adding %v, want up at %v", name, g.Rounding, g.Delta, g.Excess, hi/1000)
		}
	}
}

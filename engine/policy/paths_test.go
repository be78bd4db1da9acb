package policy_test

import (
	"fmt"
	"testing"

	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
)

// A fixed-route method asked for a budget off its network's grid (a page's
// slider) plans that task by its own rule: the path is the one it chooses
// when the budget is one of its tasks from the start. Before, it followed
// the LET path there and reported LET's rate under its own name (ringtown
// at 1.10×: bestpath 0.63 between 0.74 at 1.05× and 0.99 at 1.15×).
func TestPathMethodsPlanBudgetsOffTheGrid(t *testing.T) {
	net, err := builtin.Load(builtin.Ringtown, "")
	if err != nil {
		t.Fatal(err)
	}
	model, err := linktime.New(net)
	if err != nil {
		t.Fatal(err)
	}
	od := net.ODs[0]
	let := net.LET(od.Destination)
	grid := sim.Tasks(net, net.ODs[:1], net.BudgetFactors())
	for _, name := range []string{"bestpath", "fma", "mlr"} {
		m, err := policy.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		build := func(tasks []sim.Task) *policy.PathPolicy {
			p, _, err := m.New(&policy.Env{Net: net, Model: model, Tasks: tasks})
			if err != nil {
				t.Fatal(err)
			}
			return p.(*policy.PathPolicy)
		}
		onGrid := build(grid)
		for _, f := range []float64{1.02, 1.10, 1.20} {
			task := sim.Task{OD: od, Budget: f * let.Time[od.Origin], Cap: net.EpisodeCap()}
			got := onGrid.Path(od, task.Budget)
			want := build([]sim.Task{task}).Path(od, task.Budget)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s at %.2f× off the grid: path %v, planned as a task %v", name, f, got, want)
			}
			if name == "bestpath" {
				if pb, pl := policy.PathOnTime(model, got, task.Budget), policy.PathOnTime(model, let.Path(od.Origin, net), task.Budget); pb < pl-1e-12 {
					t.Errorf("bestpath at %.2f×: P %.4f below the LET path's %.4f", f, pb, pl)
				}
			}
		}
	}
}

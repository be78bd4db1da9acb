package policy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
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

// bestpath enumerates Yen's 200 shortest paths only up to its link limit;
// above it the build fails at once, saying why and what plans instead (a
// 249,000-link grid ran for hours), while a network at the limit builds.
func TestBestPathRefusesNetworksOverItsLimit(t *testing.T) {
	m, _ := policy.Lookup("bestpath")
	line := func(links int) *engine.Network {
		net := &engine.Network{Name: "line"}
		for i := 0; i <= links; i++ {
			net.Nodes = append(net.Nodes, engine.Node{ID: fmt.Sprint(i), X: float64(i)})
		}
		for i := 0; i < links; i++ {
			net.Links = append(net.Links, engine.Link{From: i, To: i + 1, Mean: 1, Var: 0.1})
		}
		net.Index()
		return net
	}
	big := line(policy.BestPathLinkLimit + 1)
	_, _, err := m.New(&policy.Env{Net: big})
	if engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(err.Error(), fmt.Sprintf("up to %d links", policy.BestPathLinkLimit)) {
		t.Fatalf("over the limit: %v, want an invalid-request error naming the limit", err)
	}
	at := line(policy.BestPathLinkLimit)
	at.ODs = []engine.OD{{Origin: 0, Destination: len(at.Nodes) - 1}}
	model, err := linktime.New(at)
	if err != nil {
		t.Fatal(err)
	}
	env := &policy.Env{Net: at, Model: model, Tasks: sim.Tasks(at, at.ODs, []float64{1})}
	if _, _, err := m.New(env); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
}

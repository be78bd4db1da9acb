package policy_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/internal/testenv"
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

// Over its link limit bestpath plans in the corridor where the pair's
// shortest paths lie (it refused such networks before): a network of one
// more link than the limit builds, says so in its settings, and follows
// the only path there is.
func TestBestPathPlansOverItsLimit(t *testing.T) {
	m, _ := policy.Lookup("bestpath")
	line := func(links int) *engine.Network {
		net := &engine.Network{Name: "line"}
		for i := 0; i <= links; i++ {
			net.Nodes = append(net.Nodes, engine.Node{ID: fmt.Sprint(i), X: float64(i)})
		}
		for i := 0; i < links; i++ {
			net.Links = append(net.Links, engine.Link{From: i, To: i + 1, Mean: 1, Var: 0.1})
		}
		net.ODs = []engine.OD{{Origin: 0, Destination: links}}
		net.StepCap = links + 1
		net.Index()
		return net
	}
	for _, n := range []int{policy.BestPathLinkLimit, policy.BestPathLinkLimit + 1} {
		net := line(n)
		model, err := linktime.New(net)
		if err != nil {
			t.Fatal(err)
		}
		env := &policy.Env{Net: net, Model: model, Tasks: sim.Tasks(net, net.ODs, []float64{1})}
		pol, settings, err := m.New(env)
		if err != nil {
			t.Fatalf("%d links: %v", n, err)
		}
		if _, ok := settings["corridor"]; ok != (n > policy.BestPathLinkLimit) {
			t.Errorf("%d links: settings %v", n, settings)
		}
		if got := pol.(*policy.PathPolicy).Path(net.ODs[0], net.LET(n).Time[0]); len(got) != n {
			t.Errorf("%d links: a path of %d links, want the line", n, len(got))
		}
	}
}

// The corridor's paths are Yen's on the whole network (the invariant that
// lets a city be searched in it): with room for every link, the same paths
// in the same order, on seeded random grids (means drawn from a continuum,
// so no two paths tie); with a limit that stops its widening, a prefix of
// them, said to be incomplete. The step cap drops the same paths from both.
func TestCorridorFindsYensPaths(t *testing.T) {
	for seed := range uint64(testenv.Sized(40, 10)) {
		net := randomGrid(seed)
		rng := rand.New(rand.NewPCG(seed, 0x636f72)) // "cor"
		for range 3 {
			o, d := rng.IntN(len(net.Nodes)), rng.IntN(len(net.Nodes))
			if seed == 0 {
				d = o // a pair whose least time is 0: the empty path, as Yen's
			}
			for _, k := range []int{1, 7, 60} {
				maxLinks := 0
				if k == 60 {
					maxLinks = len(net.Nodes) / 2
				}
				want := policy.KShortest(net, o, d, k, maxLinks)
				got, complete := policy.Corridor(net, o, d, k, maxLinks, len(net.Links))
				if !complete || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s %d→%d, k %d: corridor %v (complete %v), Yen %v", net.Name, o, d, k, got, complete, want)
				}
				limit := len(net.Links) / 4
				got, complete = policy.Corridor(net, o, d, k, maxLinks, limit)
				if complete && !reflect.DeepEqual(got, want) || len(got) > len(want) || len(got) > 0 && !reflect.DeepEqual(got, want[:len(got)]) {
					t.Fatalf("%s %d→%d, k %d, limit %d: corridor %v (complete %v), Yen %v", net.Name, o, d, k, limit, got, complete, want)
				}
			}
		}
	}
}

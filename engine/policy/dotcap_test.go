package policy_test

import (
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// spatialGrid is a w × w grid of two-way streets (1 to 3 minutes, σ = 0.3
// μ) under strong spatial correlation, its step cap the fewest links of
// its corner-to-corner trip plus two: a network where going behind
// schedule is common and a detour leaves no links to arrive.
func spatialGrid(w int) *engine.Network {
	net := &engine.Network{Name: "spatial-grid", Coords: engine.CoordPlanar, Law: linktime.MatchedLaw,
		Correlation: engine.Correlation{Model: "spatial", Strength: 0.8, Length: 400}}
	grid := testenv.GridNetwork("", w, w, 100, func(a, _ int) (float64, float64) {
		x, y := a%w, a/w // the street's first node sets both directions' time
		m := 1 + float64((x*7+y*3)%5)/2
		return m, 0.09 * m * m
	})
	net.Nodes, net.Links = grid.Nodes, grid.Links
	net.Project()
	net.Index()
	net.ODs = []engine.OD{{Origin: 0, Destination: w*w - 1}}
	net.StepCap = 2*(w-1) + 2
	return net
}

// Above the table limit DOT drops the links-left dimension; its policy must
// still never walk into the step cap. Forcing the uncapped table on a small
// grid: no episode ends at the cap, and dot keeps up with let (before the
// rule, an uncapped DOT behind schedule gambled on detours: on Chicago
// Regional a third of its episodes ended at the cap).
func TestUncappedDOTRespectsTheCap(t *testing.T) {
	saved := policy.DOTTableLimit
	policy.DOTTableLimit = 0
	defer func() { policy.DOTTableLimit = saved }()
	net := spatialGrid(7)
	model, err := linktime.New(net)
	if err != nil {
		t.Fatal(err)
	}
	let := net.LET(net.ODs[0].Destination).Time[net.ODs[0].Origin]
	for _, f := range []float64{0.9, 1, 1.1} {
		task := sim.Task{OD: net.ODs[0], Budget: f * let, Cap: net.StepCap}
		env := &policy.Env{Net: net, Model: model, Tasks: []sim.Task{task}}
		rates := map[string]float64{}
		for _, name := range []string{"let", "dot", "cdot"} {
			m, _ := policy.Lookup(name)
			p, _, err := m.New(env)
			if err != nil {
				t.Fatal(err)
			}
			if !env.DOT().CapIgnored {
				t.Fatal("the table kept the cap: the test needs the uncapped path")
			}
			pool := sim.NewPool(model, net.PoolKey(), sim.Test, 0, 2000, 0, nil)
			out := make([]sim.Result, pool.Size)
			if err := (&sim.Runner{Net: net}).Run(p, task, pool, out); err != nil {
				t.Fatal(err)
			}
			capped := 0
			for _, r := range out {
				if r.End == sim.CapHit {
					capped++
				}
				if r.OnTime {
					rates[name]++
				}
			}
			rates[name] /= float64(len(out))
			if capped > 0 {
				t.Errorf("factor %.2f: %s ended %d of %d episodes at the step cap", f, name, capped, len(out))
			}
		}
		// 4 standard errors of a paired difference of two rates on 2,000
		// episodes, plus DOT's grid allowance
		if rates["dot"] < rates["let"]-0.01-4*0.5/44.7 {
			t.Errorf("factor %.2f: dot %.4f below let %.4f", f, rates["dot"], rates["let"])
		}
	}
}

// A network that states no step cap still has one rule for it: the planners
// report and plan with the cap the episodes end at (before, they planned
// uncapped while the episode rule capped at 4 × nodes).
func TestPlannersUseTheEpisodeCap(t *testing.T) {
	net := spatialGrid(4)
	net.StepCap = 0
	model, err := linktime.New(net)
	if err != nil {
		t.Fatal(err)
	}
	want := sim.StepCap(net, 0)
	if want != 4*len(net.Nodes) || net.EpisodeCap() != want {
		t.Fatalf("episode cap %d, network's %d: want 4 × %d nodes", want, net.EpisodeCap(), len(net.Nodes))
	}
	let := net.LET(net.ODs[0].Destination).Time[net.ODs[0].Origin]
	env := &policy.Env{Net: net, Model: model, Tasks: []sim.Task{{OD: net.ODs[0], Budget: let}}}
	for _, name := range []string{"dot", "clairvoyant"} {
		m, _ := policy.Lookup(name)
		_, info, err := m.New(env)
		if err != nil {
			t.Fatal(err)
		}
		if got := info["step_cap"]; got != want {
			t.Errorf("%s plans with step cap %v, episodes end at %d", name, got, want)
		}
	}
}

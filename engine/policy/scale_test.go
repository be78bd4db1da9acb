package policy_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// randomGrid is a seeded w × h street grid with links both ways, means
// drawn over a decade, σ = cv·μ, under one of the laws and correlations an
// import gives, its OD pairs two corners and a middle pair.
func randomGrid(seed uint64) *engine.Network {
	rng := rand.New(rand.NewPCG(seed, 0x7363616c65)) // "scale"
	w, h := 3+rng.IntN(5), 3+rng.IntN(5)
	laws := []string{linktime.MatchedLaw, linktime.LogNormalLaw}
	corrs := []engine.Correlation{{Model: "independent"}, {Model: "random-psd", Seed: seed}, {Model: "spatial", Strength: 0.6, Length: 150}}
	net := &engine.Network{Name: fmt.Sprintf("grid-%d", seed), Coords: engine.CoordPlanar,
		Law: laws[rng.IntN(len(laws))], Correlation: corrs[rng.IntN(len(corrs))]}
	cv := 0.1 + 0.5*rng.Float64()
	grid := testenv.GridNetwork("", w, h, 100, func(a, b int) (float64, float64) {
		m := math.Exp(math.Log(0.2) + math.Log(10)*rng.Float64())
		return m, cv * cv * m * m
	})
	net.Nodes, net.Links = grid.Nodes, grid.Links
	net.Project()
	net.Index()
	net.ODs = []engine.OD{{Origin: 0, Destination: w*h - 1}, {Origin: w - 1, Destination: (h - 1) * w}, {Origin: w + 1, Destination: w*h - 1}}
	net.StepCap = w + h + 4
	return net
}

// scaled is net with every time multiplied by k (means by k, variances by
// k²): the same network in another unit.
func scaled(net *engine.Network, k float64) *engine.Network {
	c := *net
	c.Links = append([]engine.Link(nil), net.Links...)
	for e := range c.Links {
		c.Links[e].Mean *= k
		c.Links[e].Var *= k * k
	}
	c.Index()
	return &c
}

// DOT's grid follows the network's time scale: the same network in
// seconds instead of minutes (every time × 60) gets the same decisions from
// every planner built on the grid, episode by episode on the same pool, so
// the same rates. Under the paper's absolute 0.1-min floor the step was
// capped in minutes and a network in seconds solved sixty times the bins.
func TestDOTGridFollowsTheTimeScale(t *testing.T) {
	for seed := range uint64(testenv.Tiered(8, 4, 2)) {
		net := randomGrid(seed + 1)
		big := scaled(net, 60)
		t.Run(net.Name, func(t *testing.T) {
			t.Parallel() // each grid its own network and tables
			for _, name := range []string{"dot", "cdot", "cgr"} {
				a, da := scaleOutcomes(t, net, name)
				b, db := scaleOutcomes(t, big, name)
				if math.Abs(db/da-60) > 1e-9*60 {
					t.Fatalf("%s: DOT's step %g, in seconds %g: not 60 times", name, da, db)
				}
				diff := 0
				for i := range a {
					same := a[i].OnTime == b[i].OnTime && a[i].End == b[i].End && a[i].Links == b[i].Links &&
						math.Abs(b[i].Time-60*a[i].Time) <= 1e-9*math.Abs(60*a[i].Time)
					if !same {
						if diff++; diff <= 3 {
							t.Errorf("%s (%s, %s) episode %d: minutes %+v, seconds %+v", name, net.Law, net.Correlation.Model, i, a[i], b[i])
						}
					}
				}
				if diff > 3 {
					t.Errorf("%s: %d of %d episodes differ", name, diff, len(a))
				}
			}
		})
	}
}

// scaleOutcomes plays method on 100 episodes of each OD pair at budgets
// 0.95, 1 and 1.05 × LET; it returns the results and DOT's step.
func scaleOutcomes(t *testing.T, net *engine.Network, method string) ([]sim.Result, float64) {
	model, err := linktime.New(net)
	if err != nil {
		t.Fatal(err)
	}
	tasks := letTasks(net)
	env := &policy.Env{Net: net, Model: model, Tasks: tasks}
	return playPool(t, env, method, sim.NewPool(model, "scale", sim.Test, 0, 100, 0, nil)), env.DefaultDOTDelta()
}

// letTasks are each OD pair of net at budgets 0.95, 1 and 1.05 × its LET
// time (the reachable pairs).
func letTasks(net *engine.Network) []sim.Task {
	var tasks []sim.Task
	for _, od := range net.ODs {
		let := net.LET(od.Destination).Time[od.Origin]
		if math.IsInf(let, 1) {
			continue
		}
		for _, f := range []float64{0.95, 1, 1.05} {
			tasks = append(tasks, sim.Task{OD: od, Budget: f * let, Cap: net.EpisodeCap()})
		}
	}
	return tasks
}

// playPool builds method on env and plays it on pool for each of env's
// tasks, the results one task after another.
func playPool(t *testing.T, env *policy.Env, method string, pool *sim.Pool) []sim.Result {
	t.Helper()
	m, err := policy.Lookup(method)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := m.New(env)
	if err != nil {
		t.Fatal(err)
	}
	var out []sim.Result
	for _, task := range env.Tasks {
		res := make([]sim.Result, pool.Size)
		if err := (&sim.Runner{Net: env.Net}).Run(p, task, pool, res); err != nil {
			t.Fatal(err)
		}
		out = append(out, res...)
	}
	return out
}

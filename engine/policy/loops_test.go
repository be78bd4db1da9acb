package policy_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// randomStreets is a w × h grid of two-way streets with seeded random
// means (0.05 to 3 minutes: short city links beside long ones; one street
// in five 0.002 to 0.012 minutes, shorter than DOT's grid step, like the
// links inside Winnipeg's junctions) and CVs,
// independent links, each node's links listed in a shuffled order (so a
// U-turn is often the first way out, as on an OpenStreetMap import).
func randomStreets(rng *rand.Rand) *engine.Network {
	w, h := 3+rng.IntN(5), 3+rng.IntN(5)
	net := &engine.Network{Name: "random-streets", Coords: engine.CoordPlanar, Law: linktime.MatchedLaw,
		Correlation: engine.Correlation{Model: linktime.Independent}}
	nodes, streets := testenv.Grid(w, h, 100)
	net.Nodes = nodes
	rng.Shuffle(len(streets), func(i, j int) { streets[i], streets[j] = streets[j], streets[i] })
	for _, s := range streets {
		m := 0.05 + 2.95*rng.Float64()*rng.Float64()
		if rng.IntN(5) == 0 {
			m = 0.002 + 0.01*rng.Float64()
		}
		cv := 0.05 + 0.3*rng.Float64()
		net.Links = append(net.Links, engine.Link{From: s[0], To: s[1], Mean: m, Var: cv * cv * m * m},
			engine.Link{From: s[1], To: s[0], Mean: m, Var: cv * cv * m * m})
	}
	net.Project()
	net.Index()
	net.ODs = []engine.OD{{Origin: 0, Destination: w*h - 1}, {Origin: w - 1, Destination: w * (h - 1)}}
	net.StepCap = 2 * (w + h) // room for detours; a small DOT table
	return net
}

// Under independent links a loop only spends time: DOT's value never falls
// as the time left grows, so no planner that scores links by on-time
// probability should drive a link twice. Where the scores saturate (a
// generous budget: every way out is on time with probability 1 to float
// precision; a hopeless one: 0) the old rule took the first link listed,
// often the U-turn, and looped; the planners now take the least expected
// time ahead among equal scores. Tried on 12 generated street grids at a
// hopeless, a tight and a generous budget (-short: 3 grids, 50 draws).
func TestPlannersDriveNoLoopsUnderIndependence(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 7))
	for g := range testenv.Sized(12, 3) {
		net := randomStreets(rng)
		model, err := linktime.New(net)
		if err != nil {
			t.Fatal(err)
		}
		tasks := sim.Tasks(net, net.ODs, []float64{0.4, 1, 3})
		env := &policy.Env{Net: net, Model: model, Tasks: tasks}
		pool := sim.NewPool(model, net.PoolKey(), sim.Test, 0, testenv.Sized(200, 50), 0, nil)
		for _, name := range []string{"dot", "cdot", "cgr", "condrule"} {
			m, _ := policy.Lookup(name)
			p, _, err := m.New(env)
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range tasks {
				if loops, _ := episodeCounts(t, net, p, task, pool); loops > 0 {
					t.Errorf("grid %d (%d nodes), %s, OD %s at T = %.2f: %d of %d episodes drive a link twice",
						g, len(net.Nodes), name, net.ODString(task.OD), task.Budget, loops, pool.Size)
				}
			}
		}
	}
}

// Under positive spatial correlation a slow start makes every unseen link
// look slow to cdot, while a link it already drove fast is known: when that
// link was scored by its known time then DOT's marginal table at its head,
// cdot went round the same loop again and again (Delaware's OpenStreetMap
// import, spatial-factor correlation: 113 of 200 episodes of this pair at
// budget 1.00 drove a link twice, and 60 were on time against dot's 86).
// dot and cgr drive no link twice. cdot scores a driven link by the unseen
// ways out it leads to, so it may go back once for a way out it passed up
// (its marginal table behind an unseen link can promise more than the node
// then offers), but it no longer circles: at most one episode in four
// drives a link twice, and it is on time about as often as dot. (One in
// ten held while DOT's grid rounded up here, adding 12% of the pair's LET
// time: 16 of 200, 87 on time. With the grid split at half the step, dot
// went from 85 to 93 on time, cdot from 87 to 86, and 40 of cdot's
// episodes drive a link twice: cdot wanders round a junction's short links,
// each cheap under the conditioned law while DOT's marginal table beyond
// each promises nearly the same; docs/findings.md has the trace and two
// bounds on a way back that did not pay. The circling this test caught was
// 113.)
func TestPlannersDriveNoLoopsUnderCorrelation(t *testing.T) {
	// 25 s of a 200-draw pool on Delaware (its smallest meaningful case):
	// with the large cases (CI); make test checks dot, cdot and cgr for loops
	// on generated streets under independence.
	testenv.Large(t)
	t.Parallel() // one goroutine: beside the other long cases
	net, err := netfile.OpenFile(testenv.OSMExtract(t, "delaware-latest.osm.pbf"), netfile.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	model, err := linktime.New(net)
	if err != nil {
		t.Fatal(err)
	}
	od, err := net.ParseOD("4339145682-178623092")
	if err != nil {
		t.Fatal(err)
	}
	tasks := sim.Tasks(net, []engine.OD{od}, []float64{1})
	env := &policy.Env{Net: net, Model: model, Tasks: tasks}
	pool := sim.NewPool(model, net.PoolKey(), sim.Test, 0, 200, 0, nil)
	onTime := map[string]int{}
	for _, name := range []string{"dot", "cdot", "cgr"} {
		m, _ := policy.Lookup(name)
		p, _, err := m.New(env)
		if err != nil {
			t.Fatal(err)
		}
		loops, on := episodeCounts(t, net, p, tasks[0], pool)
		onTime[name] = on
		t.Logf("%s: %d of %d episodes on time, %d drive a link twice", name, on, pool.Size, loops)
		if allowed := map[string]int{"cdot": pool.Size / 4}[name]; loops > allowed {
			t.Errorf("%s: %d of %d episodes drive a link twice (at most %d)", name, loops, pool.Size, allowed)
		}
	}
	if onTime["cdot"] < onTime["dot"]-pool.Size/20 {
		t.Errorf("cdot on time in %d of %d episodes, dot in %d", onTime["cdot"], pool.Size, onTime["dot"])
	}
}

// episodeCounts is how many of p's episodes on the pool drive a link
// twice, and how many arrive on time.
func episodeCounts(t *testing.T, net *engine.Network, p engine.Policy, task sim.Task, pool *sim.Pool) (loops, onTime int) {
	t.Helper()
	out := make([]sim.Result, pool.Size)
	if err := (&sim.Runner{Net: net}).Run(p, task, pool, out); err != nil {
		t.Fatal(err)
	}
	for _, r := range out {
		if r.Revisit {
			loops++
		}
		if r.OnTime {
			onTime++
		}
	}
	return loops, onTime
}

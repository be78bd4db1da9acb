package policy_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
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

// tiedGrid is a w × w grid whose link means take a few values in a
// repeating pattern (as the 249,000-link grid of the city tests does), so
// that many paths share each mean and the narrowest corridor can hold more
// links than a limit.
func tiedGrid(seed uint64) *engine.Network {
	rng := rand.New(rand.NewPCG(seed, 0x746965)) // "tie"
	w, values, step := 6+rng.IntN(7), 2+rng.IntN(3), 1+rng.IntN(5)
	net := &engine.Network{Name: fmt.Sprintf("tied-%d", seed), Coords: engine.CoordPlanar}
	grid := testenv.GridNetwork("", w, w, 100, func(a, b int) (float64, float64) {
		x, y := a%w, a/w
		if b < a {
			x, y = b%w, b/w // the way back: the same street, the same time
		}
		phase := x*step + y // a street to the right
		if max(a, b)-min(a, b) == w {
			phase = y*step + x + 3 // downward
		}
		m := 0.5 + float64(phase%values)/10
		return m, 0.09 * m * m
	})
	net.Nodes, net.Links = grid.Nodes, grid.Links
	net.Project()
	net.Index()
	return net
}

// Where even the narrowest corridor holds more links than the limit (a
// grid of repeating means: many paths tie), the corridor fills a region up
// to the limit, nearest the LET path first, and its paths are still the
// network's shortest: complete, they have the means of Yen's k on the
// whole network, one by one (which of the tied paths is Yen's choice
// alone); incomplete, those of a prefix. Every path is loopless, from o to
// d, within maxLinks. The cases where the narrowest corridor is over the
// limit are counted: the LET path alone was the answer there before; now
// some must give all k, and some incomplete ones more than the LET path.
func TestCorridorOverItsLimitKeepsTheShortestMeans(t *testing.T) {
	over, completeOver, moreOver := 0, 0, 0
	for seed := range uint64(testenv.Sized(40, 12)) {
		net := tiedGrid(seed)
		rng := rand.New(rand.NewPCG(seed, 0x666974)) // "fit"
		means := make([]float64, len(net.Links))
		for e, l := range net.Links {
			means[e] = l.Mean
		}
		from := make([]float64, len(net.Nodes))
		for range 3 {
			o, d := rng.IntN(len(net.Nodes)), rng.IntN(len(net.Nodes))
			if o == d {
				continue
			}
			net.CostsFrom(o, means, from)
			to := net.LET(d).Time
			bound := to[o] * (1 + 1.0/1000) * (1 + 1e-12)
			narrowest := 0 // links of the corridor's first bound
			for _, l := range net.Links {
				if from[l.From]+to[l.From] <= bound && from[l.To]+to[l.To] <= bound {
					narrowest++
				}
			}
			for _, k := range []int{5, 40} {
				maxLinks := 0
				if k == 40 {
					maxLinks = 3 * len(net.LET(d).Path(o, net))
				}
				want := policy.KShortest(net, o, d, k, maxLinks)
				limit := 2*len(net.LET(d).Path(o, net)) + rng.IntN(narrowest+1)
				got, complete := policy.Corridor(net, o, d, k, maxLinks, limit)
				where := fmt.Sprintf("%s %d→%d, k %d, limit %d (narrowest corridor %d links)", net.Name, o, d, k, limit, narrowest)
				if narrowest > limit {
					over++
					if complete {
						completeOver++
					}
					if len(got) > 1 {
						moreOver++
					}
				}
				if len(got) == 0 || complete && len(got) != len(want) || len(got) > len(want) {
					t.Fatalf("%s: %d paths (complete %v), Yen %d", where, len(got), complete, len(want))
				}
				for i, p := range got {
					if err := checkPath(net, o, d, p, maxLinks); err != nil {
						t.Fatalf("%s: path %d: %v", where, i, err)
					}
					if g, w := pathMean(net, p), pathMean(net, want[i]); math.Abs(g-w) > 1e-9*w {
						t.Fatalf("%s: path %d has mean %v, Yen's %v (complete %v)", where, i, g, w, complete)
					}
				}
			}
		}
	}
	t.Logf("%d cases with the narrowest corridor over the limit: %d complete, %d with more than the LET path", over, completeOver, moreOver)
	if completeOver == 0 || moreOver == completeOver {
		t.Errorf("%d cases over the limit, %d complete, %d with more than the LET path: want some complete, and some incomplete with more", over, completeOver, moreOver)
	}
}

func pathMean(net *engine.Network, p []int) float64 {
	s := 0.0
	for _, e := range p {
		s += net.Links[e].Mean
	}
	return s
}

// checkPath says what is wrong with a path from o to d, if anything: a
// link that does not follow on, a node visited twice, more than maxLinks.
func checkPath(net *engine.Network, o, d int, p []int, maxLinks int) error {
	at, seen := o, map[int]bool{o: true}
	for _, e := range p {
		l := net.Links[e]
		if l.From != at {
			return fmt.Errorf("link %d leaves %d, not %d", e, l.From, at)
		}
		if at = l.To; seen[at] {
			return fmt.Errorf("node %d twice", at)
		}
		seen[at] = true
	}
	if at != d {
		return fmt.Errorf("ends at %d, not %d", at, d)
	}
	if maxLinks > 0 && len(p) > maxLinks {
		return fmt.Errorf("%d links, over %d", len(p), maxLinks)
	}
	return nil
}

// Yen's k shortest paths are the same list at every call, on grids where
// many paths tie: the search reads neighbours in ID order, not in a map's
// (bestpath on twobranch took either of its two equal branches).
func TestKShortestIsTheSameListEveryRun(t *testing.T) {
	for seed := range uint64(8) {
		net := tiedGrid(seed)
		rng := rand.New(rand.NewPCG(seed, 0x79656e)) // "yen"
		o, d := rng.IntN(len(net.Nodes)), rng.IntN(len(net.Nodes))
		if o == d {
			continue
		}
		first := policy.KShortest(net, o, d, 30, 0)
		for run := range 5 {
			if again := policy.KShortest(net, o, d, 30, 0); fmt.Sprint(again) != fmt.Sprint(first) {
				t.Fatalf("%s %d→%d: run %d gave %v, the first %v", net.Name, o, d, run, again, first)
			}
		}
	}
}

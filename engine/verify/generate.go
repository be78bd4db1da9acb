package verify

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/fit"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/policy"
)

// grid is a w × h street grid (links both ways, 100 units apart) whose link
// means come from mean(rng) and standard deviations from cv × mean; every
// generated case is one, bent to the trap it tests.
type grid struct {
	name    string
	w, h    int
	mean    func(rng *rand.Rand) float64
	cv      float64
	corr    engine.Correlation
	oneWay  bool                // horizontal streets one-way, alternating by row
	link    func(e int) float64 // variance override (<0: keep)
	ods     [][2][2]int         // OD pairs as grid cells
	seed    uint64
	law     string
	offsetX float64
}

func (g grid) build() *engine.Network {
	rng := rand.New(rand.NewPCG(g.seed, 0x67656e)) // "gen"
	net := &engine.Network{Name: g.name, Coords: engine.CoordPlanar, Correlation: g.corr, Law: g.law}
	if net.Law == "" {
		net.Law = linktime.MatchedLaw
	}
	id := func(x, y int) string { return fmt.Sprintf("%d", y*g.w+x+1) }
	for y := range g.h {
		for x := range g.w {
			net.Nodes = append(net.Nodes, engine.Node{ID: id(x, y), Coord: [2]float64{float64(x)*100 + g.offsetX, float64(y) * 100}})
		}
	}
	add := func(a, b int) {
		m := g.mean(rng)
		sd := g.cv * m
		net.Links = append(net.Links, engine.Link{From: a, To: b, Mean: m, Var: sd * sd})
	}
	for y := range g.h {
		for x := range g.w {
			i := y*g.w + x
			if x+1 < g.w {
				if !g.oneWay || y%2 == 0 {
					add(i, i+1)
				}
				if !g.oneWay || y%2 == 1 {
					add(i+1, i)
				}
			}
			if y+1 < g.h {
				add(i, i+g.w)
				add(i+g.w, i)
			}
		}
	}
	if g.link != nil {
		for e := range net.Links {
			if v := g.link(e); v >= 0 {
				net.Links[e].Var = v
			}
		}
	}
	net.Project()
	net.Index()
	for _, od := range g.ods {
		o, _ := net.NodeIndex(id(od[0][0], od[0][1]))
		d, _ := net.NodeIndex(id(od[1][0], od[1][1]))
		net.ODs = append(net.ODs, engine.OD{Origin: o, Destination: d})
	}
	net.StepCap = netfile.DefaultStepCap(net)
	return net
}

func uniform(lo, hi float64) func(*rand.Rand) float64 {
	return func(rng *rand.Rand) float64 { return lo + (hi-lo)*rng.Float64() }
}

// corner pairs of a w × h grid: the two diagonals and a shorter one.
func corners(w, h int) [][2][2]int {
	return [][2][2]int{{{0, 0}, {w - 1, h - 1}}, {{0, h - 1}, {w - 1, 0}}, {{1, 1}, {w / 2, h - 2}}}
}

// Generated lists the adversarial networks: each is a trap a correct
// implementation walks through. big adds the one over the dense models'
// link limit (a minute or two more).
func Generated(big bool) []Case {
	psd := engine.Correlation{Model: "random-psd", Seed: 1}
	var cases []Case
	addGrid := func(g grid, note string) {
		cases = append(cases, Case{Name: g.name, Kind: "generated", Net: g.build(), Note: note})
	}
	addGrid(grid{name: "short-links", w: 6, h: 6, mean: uniform(0.01, 0.05), cv: 0.3, corr: psd, ods: corners(6, 6), seed: 1},
		"every link under the paper's 0.1-min floor (Winnipeg has 649 such)")
	addGrid(grid{name: "hour-units", w: 6, h: 6, mean: uniform(0.08, 0.24), cv: 0.3, corr: psd, ods: corners(6, 6), seed: 2},
		"times in hours read as minutes: trips of about a minute")
	zero := func(e int) float64 {
		if e%3 == 0 {
			return 0
		}
		return -1
	}
	addGrid(grid{name: "zero-variance", w: 6, h: 6, mean: uniform(1, 5), cv: 0.3, corr: psd, link: zero, ods: corners(6, 6), seed: 3},
		"a third of the links have fixed times")
	addGrid(grid{name: "rank-deficient", w: 8, h: 8, mean: uniform(1, 5), cv: 0.5, corr: engine.Correlation{Model: "random-psd", Seed: 7}, ods: corners(8, 8), seed: 4},
		"random-psd clips half the eigenvalues: the covariance has half rank; σ/μ = 0.5")
	addGrid(grid{name: "long-trips", w: 16, h: 16, mean: uniform(0.5, 2), cv: 0.3, corr: psd, ods: corners(16, 16), seed: 5},
		"corner-to-corner trips of 30 links and more")
	addGrid(grid{name: "asymmetric", w: 7, h: 7, mean: uniform(1, 3), cv: 0.4, oneWay: true,
		corr: engine.Correlation{Model: "spatial", Strength: 0.6, Length: 200}, ods: corners(7, 7), seed: 6},
		"one-way streets alternating by row, strong spatial correlation")
	addGrid(grid{name: "skewed", w: 7, h: 7, mean: uniform(1, 4), cv: 0.5, corr: engine.Correlation{Model: "random-psd", Seed: 3},
		law: linktime.LogNormalLaw, ods: corners(7, 7), seed: 12},
		"log-normal link times (σ/μ = 0.5: skew 1.6), random-psd correlation of the normal scores")
	cases = append(cases, fitted())
	cases = append(cases, disconnected())
	cases = append(cases, series())
	if big {
		g := grid{name: "over-dense-limit", w: 33, h: 33, mean: uniform(0.5, 2), cv: 0.3,
			corr: engine.Correlation{Model: linktime.SpatialFactor, Strength: 0.5, Length: 400, Factors: 64}, ods: corners(33, 33)[:2], seed: 8}
		addGrid(g, fmt.Sprintf("%d links: over the dense models' limit of %d (spatial-factor)", 4*33*32, linktime.DenseLinkLimit))
	}
	return cases
}

// fitted is a grid under the law fitted to 500 simulated days of a
// log-normal spatial truth, a fifth of the entries missing: gamma,
// log-normal, normal and empirical marginals side by side, fitted-factor
// correlation.
func fitted() Case {
	truth := grid{name: "fitted", w: 6, h: 6, mean: uniform(1, 4), cv: 0.4,
		corr: engine.Correlation{Model: "spatial", Strength: 0.7, Length: 250}, law: linktime.LogNormalLaw, ods: corners(6, 6), seed: 13}.build()
	obs, err := fit.Simulate(truth, 500, 0.2, 13)
	if err == nil {
		var net *engine.Network
		if net, _, err = fit.Fit(truth, obs); err == nil {
			return Case{Name: "fitted", Kind: "generated", Net: net, Note: "the fitted law of 500 simulated days (20% missing) of a log-normal spatial truth"}
		}
	}
	return Case{Name: "fitted", Kind: "generated", Net: truth, Note: "the fit failed: " + engine.ErrorMessage(err)}
}

// disconnected is two grids with no link between them; trips stay in one.
func disconnected() Case {
	a := grid{name: "disconnected", w: 5, h: 5, mean: uniform(1, 4), cv: 0.3, corr: psd1(), seed: 9}.build()
	b := grid{name: "b", w: 5, h: 5, mean: uniform(1, 4), cv: 0.3, corr: psd1(), seed: 10, offsetX: 1000}.build()
	n := len(a.Nodes)
	for _, nd := range b.Nodes {
		nd.ID = "b" + nd.ID
		a.Nodes = append(a.Nodes, nd)
	}
	for _, l := range b.Links {
		l.From += n
		l.To += n
		a.Links = append(a.Links, l)
	}
	a.Project()
	a.Index()
	a.ODs = []engine.OD{{Origin: 0, Destination: 24}, {Origin: n + 4, Destination: n + 20}}
	a.StepCap = netfile.DefaultStepCap(a)
	return Case{Name: "disconnected", Kind: "generated", Net: a, Note: "two parts with no link between them"}
}

func psd1() engine.Correlation { return engine.Correlation{Model: "random-psd", Seed: 1} }

// series is one road of 12 links: every policy takes it, so every method's
// rate is P(sum ≤ T), exactly Φ((T − Σμ)/σ) for links far above their
// floors (σ/μ = 0.15, the floor 6σ below the mean).
func series() Case {
	net := &engine.Network{Name: "series", Coords: engine.CoordPlanar, Correlation: engine.Correlation{Model: "random-psd", Seed: 5}, Law: linktime.MatchedLaw}
	rng := rand.New(rand.NewPCG(11, 0))
	for i := 0; i <= 12; i++ {
		net.Nodes = append(net.Nodes, engine.Node{ID: fmt.Sprintf("%d", i+1), Coord: [2]float64{float64(i) * 100, 0}})
	}
	for i := range 12 {
		m := 2 + 4*rng.Float64()
		net.Links = append(net.Links, engine.Link{From: i, To: i + 1, Mean: m, Var: math.Pow(0.15*m, 2)})
	}
	net.Project()
	net.Index()
	net.ODs = []engine.OD{{Origin: 0, Destination: 12}}
	net.StepCap = 18
	model, _ := linktime.New(net)
	path := make([]int, 12)
	for i := range path {
		path[i] = i
	}
	var closed []ClosedForm
	for _, m := range []string{"let", "dot", "cdot", "cgr", "bestpath"} {
		for _, f := range []float64{0.95, 1, 1.05} {
			total := 0.0
			for _, l := range net.Links {
				total += l.Mean
			}
			closed = append(closed, ClosedForm{Method: m, OD: 0, Factor: f, P: policy.PathOnTime(model, path, f*total), Why: "Φ((T − Σμ)/σ) of the one road"})
		}
	}
	return Case{Name: "series", Kind: "generated", Net: net, Model: model, Closed: closed, Note: "one road: every policy equals the exact probability"}
}

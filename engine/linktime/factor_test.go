package linktime

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/ontime-routing/ontime/engine"
)

// grid builds a side × side grid of nodes 1 km apart with links to the right
// and downward, seeded means and variances, and the given correlation.
func grid(side int, c engine.Correlation) *engine.Network {
	net := &engine.Network{Name: "grid", Coords: engine.CoordPlanar, Correlation: c}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range side * side {
		net.Nodes = append(net.Nodes, engine.Node{ID: string(rune('A' + i)), Coord: [2]float64{float64(i%side) * 1000, float64(i/side) * 1000}})
	}
	add := func(a, b int) {
		m := 2 + 3*rng.Float64()
		net.Links = append(net.Links, engine.Link{From: a, To: b, Mean: m, Var: m * m * 0.09})
	}
	for i := range side * side {
		if i%side < side-1 {
			add(i, i+1)
		}
		if i/side < side-1 {
			add(i, i+side)
		}
	}
	net.Project()
	return net
}

// factorAndDense returns the factor model of net and the dense explicit
// model with the same covariance, Σ = F Fᵀ + diag(Idio²) written out.
func factorAndDense(t *testing.T, net *engine.Network) (*Gaussian, *Gaussian) {
	t.Helper()
	f, err := New(net)
	if err != nil {
		t.Fatal(err)
	}
	n := f.Dim()
	cov := make([][]float64, n)
	for i := range n {
		cov[i] = make([]float64, n)
		for j := range n {
			cov[i][j] = f.Cov(i, j)
		}
	}
	dnet := *net
	dnet.Correlation = engine.Correlation{Model: "explicit", Covariance: cov}
	d, err := New(&dnet)
	if err != nil {
		t.Fatal(err)
	}
	return f, d
}

// The factor model's covariance has the links' variances on its diagonal,
// strength between coincident links, and decays with distance.
func TestSpatialFactorCovariance(t *testing.T) {
	net := grid(5, engine.Correlation{Model: SpatialFactor, Strength: 0.6, Length: 1500, Factors: 16})
	g, err := New(net)
	if err != nil {
		t.Fatal(err)
	}
	for e, l := range net.Links {
		if !scalar.EqualWithinRel(g.Cov(e, e), l.Var, 1e-12) {
			t.Fatalf("link %d: variance %v, want %v", e, g.Cov(e, e), l.Var)
		}
	}
	rho := func(i, j int) float64 { return g.Cov(i, j) / math.Sqrt(g.Cov(i, i)*g.Cov(j, j)) }
	near, far := rho(0, 1), rho(0, len(net.Links)-1)
	if !(near > 0.4 && near < 0.6) || !(far < near/2) {
		t.Errorf("ρ between neighbours %.3f (want near 0.6), across the grid %.3f (want far smaller)", near, far)
	}
	if g.Stats.Rank != 16+len(net.Links) || g.Stats.MaxAbs > 0.6+1e-9 || g.Stats.MeanAbs <= 0 {
		t.Errorf("stats %+v", g.Stats)
	}
}

// Conditioning the factor model gives the dense Gaussian regression's
// answer for the same Σ, to rounding: sums over unobserved paths, paths
// through observed links, and with nothing observed.
func TestSpatialFactorConditionalMatchesDense(t *testing.T) {
	net := grid(4, engine.Correlation{Model: SpatialFactor, Strength: 0.7, Length: 1200, Factors: 9})
	f, d := factorAndDense(t, net)
	observed, times := []int{0, 2, 5}, []float64{4.1, 2.2, 6.3}
	for _, tc := range []struct {
		name  string
		links []int
	}{{"unobserved path", []int{7, 9, 11}}, {"through an observed link", []int{2, 7, 9}}, {"one link", []int{20}}} {
		for _, obs := range [][]int{nil, observed} {
			fm, fs := f.Condition(obs, times).Sum(tc.links)
			dm, ds := d.Condition(obs, times).Sum(tc.links)
			if !scalar.EqualWithinAbs(fm, dm, 1e-9) || !scalar.EqualWithinAbs(fs, ds, 1e-7) {
				t.Errorf("%s given %v: factor N(%.10f, %.10f²), dense N(%.10f, %.10f²)", tc.name, obs, fm, fs, dm, ds)
			}
		}
	}
}

// Conditional draws of the factor model (Matheron's rule with the links'
// own variates) have the conditional law's mean and variance.
func TestSpatialFactorConditionalSamples(t *testing.T) {
	net := grid(3, engine.Correlation{Model: SpatialFactor, Strength: 0.8, Length: 1500, Factors: 4})
	g, err := New(net)
	if err != nil {
		t.Fatal(err)
	}
	c := g.Condition([]int{0, 3}, []float64{6, 1.5})
	const k = 100000
	n := g.Dim()
	x := c.Lazy(rand.New(rand.NewPCG(11, 0)), k).Rows()
	for _, e := range []int{1, 5, 11} {
		m, sd := c.Sum([]int{e})
		var sum, sq float64
		for s := range k {
			v := x[s*n+e]
			sum += v
			sq += v * v
		}
		mean := sum / k
		vr := sq/k - mean*mean
		// MC tolerances: 5 standard errors of the mean and of the variance
		// (the floor is far below these means).
		if !scalar.EqualWithinAbs(mean, m, 5*sd/math.Sqrt(k)) || !scalar.EqualWithinRel(vr, sd*sd, 5*math.Sqrt(2.0/k)) {
			t.Errorf("link %d: sample N(%.4f, %.4f), want N(%.4f, %.4f)", e, mean, vr, m, sd*sd)
		}
	}
	for s := range k {
		if x[s*n] != 6 || x[s*n+3] != 1.5 {
			t.Fatalf("sample %d: observed links are %v, %v", s, x[s*n], x[s*n+3])
		}
	}
}

// A pool drawn in chunks is the pool drawn at once: city pools can be drawn
// a slice at a time and stay the benchmark's pools.
func TestSpatialFactorChunkedDraws(t *testing.T) {
	net := grid(3, engine.Correlation{Model: SpatialFactor, Strength: 0.5, Length: 1000})
	g, err := New(net)
	if err != nil {
		t.Fatal(err)
	}
	n := g.Dim()
	all := g.SampleN(rand.New(rand.NewPCG(5, 6)), 10, nil)
	rng := rand.New(rand.NewPCG(5, 6))
	a := g.SampleN(rng, 4, nil)
	b := g.SampleN(rng, 6, nil)
	for i, v := range append(append([]float64{}, a...), b...) {
		if v != all[i] {
			t.Fatalf("value %d (row %d): chunked %v, at once %v", i, i/n, v, all[i])
		}
	}
}

// The factor model needs coordinates and sane settings, and the dense
// models stay refused above their limit with the scalable one named.
func TestSpatialFactorErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    engine.Correlation
	}{
		{"strength above 1", engine.Correlation{Model: SpatialFactor, Strength: 1.5, Length: 1}},
		{"no length", engine.Correlation{Model: SpatialFactor, Strength: 0.5}},
		{"too many factors", engine.Correlation{Model: SpatialFactor, Strength: 0.5, Length: 1, Factors: MaxFactors + 1}},
	} {
		if _, err := New(grid(2, tc.c)); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	net := grid(2, engine.Correlation{Model: SpatialFactor, Strength: 0.5, Length: 1})
	net.Coords = engine.CoordNone
	if _, err := New(net); err == nil {
		t.Error("no coordinates: no error")
	}
}

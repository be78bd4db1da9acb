package linktime

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/ontime-routing/ontime/engine"
)

// chain builds a network of n links in a line, with the given correlation.
func chain(n int, mean, variance float64, c engine.Correlation) *engine.Network {
	net := &engine.Network{Name: "chain", Coords: engine.CoordPlanar, Correlation: c}
	for i := 0; i <= n; i++ {
		net.Nodes = append(net.Nodes, engine.Node{ID: string(rune('a' + i%26)), Coord: [2]float64{float64(i) * 100, 0}})
	}
	for i := range n {
		net.Links = append(net.Links, engine.Link{From: i, To: i + 1, Mean: mean, Var: variance})
	}
	net.Project()
	return net
}

func empiricalCov(x []float64, k, n int) *mat.SymDense {
	mean := make([]float64, n)
	for s := range k {
		for e := range n {
			mean[e] += x[s*n+e] / float64(k)
		}
	}
	c := mat.NewSymDense(n, nil)
	for s := range k {
		row := x[s*n : (s+1)*n]
		for i := range n {
			for j := i; j < n; j++ {
				c.SetSym(i, j, c.At(i, j)+(row[i]-mean[i])*(row[j]-mean[j])/float64(k-1))
			}
		}
	}
	return c
}

// The empirical covariance of 200k draws matches the input Σ: the paper's
// five-node example (explicit and rank-deficient: two fixed links).
func TestSampleCovarianceExplicit(t *testing.T) {
	cov := [][]float64{{1, .5, 0, 0, 0}, {.5, 2, -1, 0, 0}, {0, -1, 2, 0, 0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}}
	net := chain(5, 100, 0, engine.Correlation{Model: "explicit", Covariance: cov})
	for e := range net.Links {
		net.Links[e].Var = cov[e][e]
	}
	g, err := New(net)
	if err != nil {
		t.Fatal(err)
	}
	if g.Stats.Rank != 3 {
		t.Errorf("rank %d, want 3", g.Stats.Rank)
	}
	const k = 200000
	x := g.SampleN(rand.New(rand.NewPCG(1, 2)), k, nil)
	emp := empiricalCov(x, k, 5)
	for i := range 5 {
		for j := range 5 {
			if !scalar.EqualWithinAbs(emp.At(i, j), cov[i][j], 0.02) {
				t.Errorf("cov[%d][%d] = %.4f, want %.4f", i, j, emp.At(i, j), cov[i][j])
			}
		}
	}
}

// The random-PSD recipe gives a valid correlation (unit diagonal, PSD) and
// sampling reproduces it.
func TestRandomPSDCorrelation(t *testing.T) {
	const n = 30
	net := chain(n, 50, 4, engine.Correlation{Model: "random-psd", Seed: 7})
	g, err := New(net)
	if err != nil {
		t.Fatal(err)
	}
	var C mat.SymDense
	C.SymOuterK(1, g.F)
	var eig mat.EigenSym
	eig.Factorize(&C, false)
	for _, v := range eig.Values(nil) {
		if v < -1e-9 {
			t.Fatalf("eigenvalue %v < 0", v)
		}
	}
	for i := range n {
		if !scalar.EqualWithinAbs(C.At(i, i), 4, 1e-9) { // σ² = 4 on the diagonal
			t.Fatalf("variance[%d] = %v, want 4", i, C.At(i, i))
		}
	}
	if g.Stats.Clipped == 0 || g.Stats.MaxAbs == 0 {
		t.Errorf("stats %+v: expected clipped eigenvalues and some correlation", g.Stats)
	}
	const k = 200000
	x := g.SampleN(rand.New(rand.NewPCG(3, 4)), k, nil)
	emp := empiricalCov(x, k, n)
	worst := 0.0
	for i := range n {
		for j := range n {
			worst = math.Max(worst, math.Abs(emp.At(i, j)-C.At(i, j))/4)
		}
	}
	if worst > 0.015 {
		t.Errorf("largest correlation error %.4f over 200k draws", worst)
	}
	// Same seed, same matrix; another seed, another.
	g2, _ := New(net)
	if !mat.Equal(g.F, g2.F) {
		t.Error("random-psd is not deterministic")
	}
	net.Correlation.Seed = 8
	g3, _ := New(net)
	if mat.Equal(g.F, g3.F) {
		t.Error("the seed does not change the matrix")
	}
}

// At Anaheim's size the paper's recipe leaves little correlation.
func TestRandomPSDWeakAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("1.5 s eigendecomposition")
	}
	g, err := New(chain(914, 1, 1, engine.Correlation{Model: "random-psd", Seed: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if g.Stats.MeanAbs < 0.025 || g.Stats.MeanAbs > 0.045 || g.Stats.MaxAbs > 0.25 {
		t.Errorf("n = 914: mean |ρ| %.4f, max |ρ| %.4f; want ≈ 0.03 and small", g.Stats.MeanAbs, g.Stats.MaxAbs)
	}
}

func TestSpatialCorrelationDecays(t *testing.T) {
	g, err := New(chain(6, 10, 1, engine.Correlation{Model: "spatial", Strength: 0.8, Length: 150}))
	if err != nil {
		t.Fatal(err)
	}
	near, far := g.Cov(0, 1), g.Cov(0, 5)
	if !scalar.EqualWithinAbs(near, 0.8*math.Exp(-100.0/150), 1e-9) || !(far < near) || far <= 0 {
		t.Errorf("cov near %v, far %v", near, far)
	}
	if _, err := New(chain(3, 1, 1, engine.Correlation{Model: "spatial", Strength: 2, Length: 1})); err == nil {
		t.Error("strength 2 accepted")
	}
}

func TestExplicitNotPSD(t *testing.T) {
	net := chain(2, 10, 1, engine.Correlation{Model: "explicit", Covariance: [][]float64{{1, 2}, {2, 1}}})
	_, err := New(net)
	if err == nil || !strings.Contains(err.Error(), "not positive semi-definite") {
		t.Fatalf("err = %v", err)
	}
}

// Draws below the floor are raised to it.
func TestFloor(t *testing.T) {
	g, _ := New(chain(1, 0.2, 1, engine.Correlation{Model: "independent"}))
	x := g.SampleN(rand.New(rand.NewPCG(5, 6)), 10000, nil)
	atFloor := 0
	for _, v := range x {
		if v < Floor {
			t.Fatalf("draw %v below the floor", v)
		}
		if v == Floor {
			atFloor++
		}
	}
	if atFloor < 4000 || atFloor > 5000 { // P(N(0.2,1) < 0.1) = 0.46
		t.Errorf("%d of 10000 draws at the floor, want ≈ 4600", atFloor)
	}
}

// Conditioning the five-node example on A→B = 5 + z gives B→C ~
// N(100 + z/2, 1.75) and leaves B→D ~ N(100, 2).
func TestConditional(t *testing.T) {
	cov := [][]float64{{1, .5, 0}, {.5, 2, -1}, {0, -1, 2}}
	net := chain(3, 100, 0, engine.Correlation{Model: "explicit", Covariance: cov})
	net.Links[0].Mean = 5
	for e := range net.Links {
		net.Links[e].Var = cov[e][e]
	}
	g, err := New(net)
	if err != nil {
		t.Fatal(err)
	}
	c := g.Condition([]int{0}, []float64{7})
	for _, tc := range []struct {
		links    []int
		mean, sd float64
	}{
		{[]int{1}, 101, math.Sqrt(1.75)},
		{[]int{0, 1}, 108, math.Sqrt(1.75)},
		// Cov(BC, BD | AB) = −1 − 0.5·0/1 = −1: Var = 1.75 + 2 − 2 = 1.75.
		{[]int{1, 2}, 100 + 1 + 100 + 0, math.Sqrt(1.75)},
	} {
		m, s := c.Sum(tc.links)
		if !scalar.EqualWithinAbs(m, tc.mean, 1e-9) || !scalar.EqualWithinAbs(s, tc.sd, 1e-6) {
			t.Errorf("links %v: N(%v, %v²), want N(%v, %v²)", tc.links, m, s, tc.mean, tc.sd)
		}
	}
	// Independent links carry no information.
	net.Correlation = engine.Correlation{Model: "independent"}
	gi, _ := New(net)
	m, s := gi.Condition([]int{0}, []float64{7}).Sum([]int{1})
	if m != 100 || !scalar.EqualWithinAbs(s, math.Sqrt(2), 1e-12) {
		t.Errorf("independent: N(%v, %v²)", m, s)
	}
}

// Conditional draws (Matheron's rule) have the conditional law's moments,
// and keep the observed links at their realized times.
func TestConditionalSamples(t *testing.T) {
	cov := [][]float64{{1, .5, 0}, {.5, 2, -1}, {0, -1, 2}}
	net := chain(3, 100, 0, engine.Correlation{Model: "explicit", Covariance: cov})
	for e := range net.Links {
		net.Links[e].Var = cov[e][e]
	}
	g, err := New(net)
	if err != nil {
		t.Fatal(err)
	}
	c := g.Condition([]int{0}, []float64{102})
	const k = 200000
	x := c.Lazy(rand.New(rand.NewPCG(7, 0)), k).Rows()
	for s := range k {
		if x[s*3] != 102 {
			t.Fatalf("sample %d: observed link is %v", s, x[s*3])
		}
	}
	emp := empiricalCov(x, k, 3)
	mean := func(e int) float64 {
		m := 0.0
		for s := range k {
			m += x[s*3+e]
		}
		return m / k
	}
	for _, tc := range []struct {
		links []int
	}{{[]int{1}}, {[]int{2}}} {
		m, sd := c.Sum(tc.links)
		e := tc.links[0]
		// MC tolerances: 5 standard errors of the mean and of the variance.
		if !scalar.EqualWithinAbs(mean(e), m, 5*sd/math.Sqrt(k)) || !scalar.EqualWithinRel(emp.At(e, e), sd*sd, 5*math.Sqrt(2.0/k)) {
			t.Errorf("link %d: sample N(%.4f, %.4f), want N(%.4f, %.4f)", e, mean(e), emp.At(e, e), m, sd*sd)
		}
	}
	// Cov(1, 2 | 0) = −1 − 0.5·0/1 = −1.
	if !scalar.EqualWithinAbs(emp.At(1, 2), -1, 0.02) {
		t.Errorf("conditional covariance %.4f, want −1", emp.At(1, 2))
	}
}

package linktime

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ontime-routing/ontime/engine"
)

// The Gauss–Hermite rule integrates the standard normal's moments exactly
// (up to degree 127) and its weights sum to 1.
func TestGaussHermite(t *testing.T) {
	for k, want := range []float64{1, 0, 1, 0, 3, 0, 15, 0, 105} {
		got := 0.0
		for i, x := range hermiteNodes {
			got += hermiteWeights[i] * math.Pow(x, float64(k))
		}
		if math.Abs(got-want) > 1e-10*(1+want) {
			t.Errorf("E[Z^%d] = %v, want %v", k, got, want)
		}
	}
}

// A warp is strictly increasing and LatentOf inverts TimeAt everywhere,
// beyond the grid's ends too; on many generated tables.
func TestWarpInverts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		lt := make([]float64, len(ZGrid))
		lt[0] = rng.NormFloat64()
		for k := 1; k < len(lt); k++ {
			lt[k] = lt[k-1] + 0.001 + rng.ExpFloat64()*0.2
		}
		w := &Warp{LogTime: lt}
		prev := 0.0
		for z := -7.0; z <= 7; z += 0.013 {
			x := w.TimeAt(z)
			if !(x > prev) {
				t.Fatalf("trial %d: TimeAt(%v) = %v not above %v", trial, z, x, prev)
			}
			prev = x
			if back := w.LatentOf(x); math.Abs(back-z) > 1e-9 {
				t.Fatalf("trial %d: LatentOf(TimeAt(%v)) = %v", trial, z, back)
			}
		}
	}
}

// The log-normal law has exactly each link's stated mean and SD (to the
// quadrature's precision), and its skew is the log-normal's.
func TestLogNormalLawMoments(t *testing.T) {
	for _, c := range []struct{ mu, sd float64 }{{10, 3}, {0.05, 0.05}, {120, 1}, {3, 9}} {
		net := &engine.Network{Name: "one", Law: LogNormalLaw, Nodes: []engine.Node{{ID: "a"}, {ID: "b"}},
			Links: []engine.Link{{From: 0, To: 1, Mean: c.mu, Var: c.sd * c.sd}}, Correlation: engine.Correlation{Model: Independent}}
		g, err := New(net)
		if err != nil {
			t.Fatal(err)
		}
		m := g.LinkMoments(0)
		mean, sd := m[1], math.Sqrt(m[2]-m[1]*m[1])
		if math.Abs(mean-c.mu) > 1e-6*c.mu || math.Abs(sd-c.sd) > 1e-4*c.sd {
			t.Errorf("μ %v σ %v: the law has mean %v SD %v", c.mu, c.sd, mean, sd)
		}
		cv2 := c.sd * c.sd / (c.mu * c.mu)
		wantSkew := (cv2 + 3) * math.Sqrt(cv2)
		skew := (m[3] - 3*mean*m[2] + 2*mean*mean*mean) / (sd * sd * sd)
		if math.Abs(skew-wantSkew) > 1e-3*wantSkew {
			t.Errorf("μ %v σ %v: skew %v, the log-normal's is %v", c.mu, c.sd, skew, wantSkew)
		}
	}
}

// Under every law, drawn times have each link's stated mean and SD within
// sampling error, and Draws (lazy, conditioned on nothing) and SampleN draw
// the same law; a warped link is never at or below zero.
func TestLawsSampleTheirMoments(t *testing.T) {
	for _, law := range []string{MatchedLaw, LogNormalLaw} {
		net := grid(4, engine.Correlation{Model: RandomPSD, Seed: 2})
		net.Law = law
		g, err := New(net)
		if err != nil {
			t.Fatal(err)
		}
		const k = 40000
		x := g.SampleN(rand.New(rand.NewPCG(5, 6)), k, nil)
		n := g.Dim()
		for e := range n {
			var s, s2 float64
			for i := range k {
				v := x[i*n+e]
				if v <= 0 {
					t.Fatalf("%s: link %d drew %v", law, e, v)
				}
				s += v
				s2 += v * v
			}
			mean := s / k
			sd := math.Sqrt(s2/k - mean*mean)
			want, wantSD := net.Links[e].Mean, net.Links[e].SD()
			if math.Abs(mean-want) > 5*wantSD/math.Sqrt(k) || math.Abs(sd-wantSD) > 0.05*wantSD {
				t.Errorf("%s link %d: mean %.4f SD %.4f, want %.4f %.4f", law, e, mean, sd, want, wantSD)
			}
		}
	}
}

// Conditioning on a warped link's time is exact in latent space: the
// conditional draws of another link, given link 0 at time t, have the mean
// that the simulator's joint draws show near t (rejection: draws whose link
// 0 is within 1% of t), under the log-normal law with correlation.
func TestWarpedConditioningMatchesTheSimulator(t *testing.T) {
	net := grid(2, engine.Correlation{Model: RandomPSD, Seed: 4})
	net.Law = LogNormalLaw
	g, err := New(net)
	if err != nil {
		t.Fatal(err)
	}
	n := g.Dim()
	other, best := 1, 0.0
	for e := 1; e < n; e++ {
		if r := math.Abs(g.Cov(0, e) / math.Sqrt(g.Cov(0, 0)*g.Cov(e, e))); r > best {
			other, best = e, r
		}
	}
	const k = 400000
	x := g.SampleN(rand.New(rand.NewPCG(9, 9)), k, nil)
	for _, q := range []float64{0.6, 1, 1.8} {
		t0 := q * net.Links[0].Mean
		var s float64
		var cnt int
		for i := range k {
			if math.Abs(x[i*n]-t0) < 0.01*t0 {
				s += x[i*n+other]
				cnt++
			}
		}
		empirical := s / float64(cnt)
		d := g.Condition([]int{0}, []float64{t0}).Lazy(rand.New(rand.NewPCG(3, 3)), 20000)
		var cs, cs2 float64
		for i := range d.Len() {
			v := d.At(i, other)
			cs += v
			cs2 += v * v
		}
		cm := cs / float64(d.Len())
		csd := math.Sqrt(cs2/float64(d.Len()) - cm*cm)
		if tol := 4 * csd / math.Sqrt(float64(cnt)); math.Abs(cm-empirical) > tol+0.005*cm {
			t.Errorf("link %d given link 0 at %.3f (ρ %.2f): conditional mean %.4f, the simulator's %.4f (%d draws near)", other, t0, best, cm, empirical, cnt)
		}
	}
}

// A skewed law's model read from the factor cache is the model built: the
// same realized-scale loadings that cgr and the path laws sum (a cached
// factor once came without them, and cgr summed latent loadings).
func TestCachedSkewedModelEqualsBuilt(t *testing.T) {
	net := grid(3, engine.Correlation{Model: RandomPSD, Seed: 6})
	net.Law = LogNormalLaw
	dir := t.TempDir()
	built, err := NewCached(net, dir)
	if err != nil {
		t.Fatal(err)
	}
	cached, err := NewCached(net, dir)
	if err != nil {
		t.Fatal(err)
	}
	for e := range net.Links {
		a, b := built.SumRow(e), cached.SumRow(e)
		for j := range a {
			if a[j] != b[j] {
				t.Fatalf("link %d: loading %d is %v built, %v cached", e, j, a[j], b[j])
			}
		}
		if built.SumSD(e) != cached.SumSD(e) || built.SumIdioVar(e) != cached.SumIdioVar(e) {
			t.Fatalf("link %d: SD %v/%v", e, built.SumSD(e), cached.SumSD(e))
		}
	}
}

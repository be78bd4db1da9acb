package linktime

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ontime-routing/ontime/engine"
)

// The matched law realizes the stated mean and SD exactly, at every time
// scale (seconds to hours as minutes) and every spread, and the paper's law
// is the Gaussian itself.
func TestMatchedLawMoments(t *testing.T) {
	law, err := LawByName(MatchedLaw)
	if err != nil {
		t.Fatal(err)
	}
	for _, scale := range []float64{0.001, 0.05, 1, 60, 3600} {
		for _, cv := range []float64{0, 0.01, 0.3, 0.5, 1, 3, 10} {
			mu, sd := scale, cv*scale
			m, s, f := law.Latent(mu, sd)
			if f != RelativeFloor*mu {
				t.Errorf("μ %v: floor %v", mu, f)
			}
			gotMean, gotSD := CensoredMoments(m, s, f)
			if !scalar.EqualWithinRel(gotMean, mu, 1e-9) || !scalar.EqualWithinAbsOrRel(gotSD, sd, 1e-12*scale, 1e-7) {
				t.Errorf("μ %v σ %v: realized N(%v, %v) (latent m %v, s %v)", mu, sd, gotMean, gotSD, m, s)
			}
		}
	}
	paper, _ := LawByName("")
	if m, s, f := paper.Latent(5, 2); m != 5 || s != 2 || f != Floor {
		t.Errorf("paper law: latent (%v, %v) floor %v", m, s, f)
	}
	if _, err := LawByName("lognormal-ish"); err == nil {
		t.Error("an unknown law was accepted")
	}
}

// Draws under the matched law have the stated mean and SD (five standard
// errors), on links far shorter than the paper's 0.1-minute floor.
func TestMatchedLawSamples(t *testing.T) {
	net := chain(3, 0.02, 0, engine.Correlation{Model: "independent"})
	net.Law = MatchedLaw
	net.Links[0].Var = math.Pow(0.3*0.02, 2)
	net.Links[1].Mean, net.Links[1].Var = 0.05, math.Pow(0.05, 2) // σ/μ = 1
	net.Links[2].Mean, net.Links[2].Var = 2, 0
	g, err := New(net)
	if err != nil {
		t.Fatal(err)
	}
	const k = 200000
	x := g.SampleN(rand.New(rand.NewPCG(3, 4)), k, nil)
	for e, l := range net.Links {
		var sum, sq float64
		for s := range k {
			v := x[s*3+e]
			if v < g.Floors[e] {
				t.Fatalf("link %d: draw %v below its floor %v", e, v, g.Floors[e])
			}
			sum += v
			sq += v * v
		}
		mean := sum / k
		sd := math.Sqrt(sq/k - mean*mean)
		if !scalar.EqualWithinAbs(mean, l.Mean, 5*l.SD()/math.Sqrt(k)+1e-12) || !scalar.EqualWithinAbs(sd, l.SD(), 5*l.SD()*math.Sqrt(2.0/k)+1e-9) {
			t.Errorf("link %d: sampled mean %v sd %v, stated %v, %v", e, mean, sd, l.Mean, l.SD())
		}
	}
}

// A time at the floor is a censored observation: with one, the conditional
// moments of another link are exactly those of Y1 given Y0 ≤ f (the first
// two moments of the truncated regression), not a Gaussian observation at f.
func TestConditionCensored(t *testing.T) {
	const rho = 0.8
	cov := [][]float64{{1, rho * 2}, {rho * 2, 4}}
	net := chain(2, 8, 0, engine.Correlation{Model: "explicit", Covariance: cov})
	net.Links[0].Mean, net.Links[0].Var = 1.2, 1
	net.Links[1].Var = 4
	g, err := New(net) // the paper's law: floor 0.1, latent = stated
	if err != nil {
		t.Fatal(err)
	}
	f := g.Floors[0]
	if !g.Censored(0, f) || g.Censored(0, f+1e-6) {
		t.Fatal("censoring misread")
	}
	c := g.Condition([]int{0}, []float64{f})
	m, s := c.Latent(1)
	beta := (f - 1.2) / 1
	lambda := distuv.UnitNormal.Prob(beta) / distuv.UnitNormal.CDF(beta)
	truncMean := 1.2 - lambda
	truncVar := 1 - beta*lambda - lambda*lambda
	b := rho * 2 / 1
	wantMean := 8 + b*(truncMean-1.2)
	wantVar := 4*(1-rho*rho) + b*b*truncVar
	if !scalar.EqualWithinAbs(m, wantMean, 1e-9) || !scalar.EqualWithinAbs(s*s, wantVar, 1e-9) {
		t.Errorf("given Y0 ≤ f: N(%v, %v), want N(%v, %v)", m, s*s, wantMean, wantVar)
	}
	// Matheron draws carry the same moments.
	const k = 200000
	x := c.Lazy(rand.New(rand.NewPCG(1, 2)), k).Rows()
	var sum, sq float64
	for i := range k {
		if x[i*2] != f {
			t.Fatalf("observed link drawn as %v", x[i*2])
		}
		sum += x[i*2+1]
		sq += x[i*2+1] * x[i*2+1]
	}
	mean, v := sum/k, sq/k-(sum/k)*(sum/k)
	if !scalar.EqualWithinAbs(mean, wantMean, 5*math.Sqrt(wantVar/k)) || !scalar.EqualWithinRel(v, wantVar, 5*math.Sqrt(2.0/k)) {
		t.Errorf("conditional draws N(%v, %v), want N(%v, %v)", mean, v, wantMean, wantVar)
	}
	// Against rejection sampling from the joint law: E[Y1 | Y0 ≤ f].
	rng := rand.New(rand.NewPCG(9, 9))
	acc, n := 0.0, 0
	for n < 20000 {
		z0, z1 := rng.NormFloat64(), rng.NormFloat64()
		y0 := 1.2 + z0
		if y0 > f {
			continue
		}
		acc += 8 + 2*(rho*z0+math.Sqrt(1-rho*rho)*z1)
		n++
	}
	if !scalar.EqualWithinAbs(acc/float64(n), wantMean, 5*math.Sqrt(wantVar/float64(n))) {
		t.Errorf("rejection sampling E[Y1 | Y0 ≤ f] = %v, formula %v", acc/float64(n), wantMean)
	}
}

// Conditioning stays finite and sensible on the hard cases: a rank-deficient
// random-psd covariance (half its eigenvalues clipped), a long trip of 160
// observed links, near-zero and zero variances, a factor model, and
// observations that all sit at their floors (inconsistent with the
// regression if they were read as exact).
func TestConditionRobust(t *testing.T) {
	for _, tc := range []struct {
		name string
		corr engine.Correlation
	}{
		{"random-psd", engine.Correlation{Model: "random-psd", Seed: 3}},
		{"spatial-factor", engine.Correlation{Model: SpatialFactor, Strength: 0.9, Length: 500, Factors: 16}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 400
			net := chain(n, 1, 0.09, tc.corr)
			net.Law = MatchedLaw
			net.Links[5].Var = 0
			net.Links[6].Var = 1e-20
			for e := 300; e < n; e++ {
				net.Links[e].Mean, net.Links[e].Var = 0.01, 1e-6
			}
			g, err := New(net)
			if err != nil {
				t.Fatal(err)
			}
			if tc.corr.Model == "random-psd" && g.Stats.Rank > n*3/4 {
				t.Fatalf("rank %d: the case is not rank-deficient", g.Stats.Rank)
			}
			x := g.SampleN(rand.New(rand.NewPCG(1, 1)), 1, nil)
			links := make([]int, 160)
			times := make([]float64, 160)
			for k := range links {
				links[k] = k
				times[k] = x[k]
			}
			// Sampled times move a link a few deviations; 160 links all at
			// their floors (each a 0.1% event) may move it further, but
			// not without bound.
			for i, obs := range [][]float64{times, floorsOf(g, links)} {
				bound := []float64{8, 40}[i]
				c := g.Condition(links, obs)
				for e := 160; e < n; e++ {
					m, s := c.Latent(e)
					if math.IsNaN(m) || math.IsInf(m, 0) || math.IsNaN(s) || s > g.SD[e]*(1+1e-9) {
						t.Fatalf("link %d: conditional N(%v, %v²), prior sd %v", e, m, s, g.SD[e])
					}
					if math.Abs(m-g.Latent[e]) > bound*g.SD[e]+1e-12 {
						t.Errorf("link %d: conditional mean %v moved %v prior sds", e, m, (m-g.Latent[e])/g.SD[e])
					}
				}
				if m, s := c.Sum([]int{200, 201, 350}); math.IsNaN(m) || math.IsNaN(s) || m <= 0 {
					t.Errorf("sum N(%v, %v²)", m, s)
				}
			}
		})
	}
}

func floorsOf(g *Gaussian, links []int) []float64 {
	out := make([]float64, len(links))
	for k, e := range links {
		out[k] = g.Floors[e]
	}
	return out
}

// A cached dense factor is the factor New builds, bit for bit; a damaged
// cache file is rebuilt.
func TestFactorCache(t *testing.T) {
	dir := t.TempDir()
	net := chain(60, 2, 0.36, engine.Correlation{Model: "random-psd", Seed: 2})
	net.Law = MatchedLaw
	want, err := New(net)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		got, err := NewCached(net, dir)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got.F, want.F) || got.Stats != want.Stats {
			t.Fatalf("round %d: cached model differs (stats %+v, want %+v)", round, got.Stats, want.Stats)
		}
		if round == 1 {
			files, _ := filepath.Glob(filepath.Join(dir, "linktime", "*.factor"))
			if len(files) != 1 {
				t.Fatalf("cache files %v", files)
			}
			data, _ := os.ReadFile(files[0])
			data[100] ^= 0xff
			os.WriteFile(files[0], data, 0o644)
		}
	}
	other := chain(60, 2, 0.36, engine.Correlation{Model: "random-psd", Seed: 3})
	got, _ := NewCached(other, dir)
	if mat.Equal(got.F, want.F) {
		t.Error("another seed read the first seed's factor")
	}
}

// BenchmarkModelCached: building a dense model against reading it back
// from the cache (1,000 links, random-psd); at Winnipeg's 2,836 links the
// build is about 150 s with gonum, 5 s with LAPACK, and the read about a
// second (BenchmarkDenseModel: 3,000 links).
func BenchmarkModelCached(b *testing.B) {
	net := chain(1000, 2, 0.36, engine.Correlation{Model: "random-psd", Seed: 1})
	dir := b.TempDir()
	b.Run("build", func(b *testing.B) {
		for range b.N {
			if _, err := New(net); err != nil {
				b.Fatal(err)
			}
		}
	})
	if _, err := NewCached(net, dir); err != nil {
		b.Fatal(err)
	}
	b.Run("cached", func(b *testing.B) {
		for range b.N {
			if _, err := NewCached(net, dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A link's raw moments under its law: a Gaussian's far above the floor, and
// the censored law's (checked by quadrature) where the floor carries mass.
func TestRawMoments(t *testing.T) {
	got := RawMoments(10, 1, 0.1)
	v := 1.0
	want := [5]float64{1, 10, 100 + v, 1000 + 30*v, 10000 + 600*v + 3*v*v} // N(10, 1)
	for k := range got {
		if !scalar.EqualWithinRel(got[k], want[k], 1e-9) {
			t.Errorf("far floor, moment %d: %v, want %v", k, got[k], want[k])
		}
	}
	m, s, f := 1.0, 1.0, 0.5
	got = RawMoments(m, s, f)
	d := distuv.Normal{Mu: m, Sigma: s}
	for k := range 5 {
		q := math.Pow(f, float64(k)) * d.CDF(f)
		const steps = 200000
		h := 12 * s / steps
		for i := range steps {
			y := f + (float64(i)+0.5)*h
			q += math.Pow(y, float64(k)) * d.Prob(y) * h
		}
		if !scalar.EqualWithinRel(got[k], q, 1e-6) {
			t.Errorf("moment %d: %v, quadrature %v", k, got[k], q)
		}
	}
}

package linktime

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/ontime-routing/ontime/engine"
)

// Conditioning a factor model in the factors' space gives the regression
// on the observed links, to rounding, on many generated cases: observed
// routes of up to 60 links (a few at their floor, so censored), the laws of
// single links, of paths, and conditional draws from the same random
// source.
func TestFactorSpaceMatchesLinkSpace(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 47))
		strength := 0.2 + 0.7*rng.Float64()
		net := grid(8, engine.Correlation{Model: SpatialFactor, Strength: strength, Length: 2000, Factors: 16})
		g, err := New(net)
		if err != nil {
			t.Fatal(err)
		}
		if !g.factorSpace() {
			t.Fatal("the factor model is not conditioned in its factors' space")
		}
		n := g.Dim()
		var links []int
		var times []float64
		for range 1 + rng.IntN(60) {
			e := rng.IntN(n)
			links = append(links, e)
			x := g.Latent[e] + g.SD[e]*rng.NormFloat64()
			if rng.IntN(8) == 0 {
				x = g.Floors[e] // censored
			}
			times = append(times, max(x, g.Floors[e]))
		}
		fs := g.Condition(links, times)
		linkSpaceOnly = true
		ls := g.Condition(links, times)
		linkSpaceOnly = false
		if !fs.fs || ls.fs || fs.m != ls.m {
			t.Fatalf("seed %d: factor space %v/%v, %d and %d observations", seed, fs.fs, ls.fs, fs.m, ls.m)
		}
		for e := range n {
			fm, fsd := fs.Latent(e)
			lm, lsd := ls.Latent(e)
			if !scalar.EqualWithinAbsOrRel(fm, lm, 1e-9, 1e-9) || !scalar.EqualWithinAbsOrRel(fsd, lsd, 1e-7, 1e-7) {
				t.Fatalf("seed %d link %d: factor space N(%v, %v²), link space N(%v, %v²)", seed, e, fm, fsd, lm, lsd)
			}
		}
		path := []int{rng.IntN(n), rng.IntN(n), rng.IntN(n), links[0]}
		fm, fsd := fs.Sum(path)
		lm, lsd := ls.Sum(path)
		if !scalar.EqualWithinAbsOrRel(fm, lm, 1e-9, 1e-9) || !scalar.EqualWithinAbsOrRel(fsd, lsd, 1e-7, 1e-7) {
			t.Errorf("seed %d path %v: factor space N(%v, %v²), link space N(%v, %v²)", seed, path, fm, fsd, lm, lsd)
		}
		_, k := g.F.Dims()
		wf, wl := make([]float64, k), make([]float64, k)
		fs.weights(rand.New(rand.NewPCG(seed, 1)), wf, make([]float64, 2*fs.m))
		ls.weights(rand.New(rand.NewPCG(seed, 1)), wl, make([]float64, 2*ls.m))
		for i := range wf {
			if !scalar.EqualWithinAbsOrRel(wf[i], wl[i], 1e-8, 1e-8) {
				t.Fatalf("seed %d: draw's factor weight %d: factor space %v, link space %v", seed, i, wf[i], wl[i])
			}
		}
	}
}

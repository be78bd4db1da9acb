package reliability

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/stat/distuv"
)

// On many days of a known law the indices approach the law's own: TTI =
// mean / q15, BI = (q95 − mean) / mean, PTI = q95 / q15; and they keep
// their order (PTI ≥ TTI ≥ 1, BI ≥ 0 for a right-skewed time).
func TestRouteIndicesOfAKnownLaw(t *testing.T) {
	law := distuv.LogNormal{Mu: math.Log(40), Sigma: 0.25}
	rng := rand.New(rand.NewPCG(3, 3))
	times := make([]float64, 200000)
	for i := range times {
		times[i] = math.Exp(law.Mu + law.Sigma*rng.NormFloat64())
	}
	ix := RouteIndices(times)
	mean := math.Exp(law.Mu + law.Sigma*law.Sigma/2)
	q95, q15 := law.Quantile(0.95), law.Quantile(ReferenceQuantile)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"mean", ix.Mean, mean},
		{"p95", ix.P95, q95},
		{"reference", ix.Reference, q15},
		{"TTI", ix.TTI, mean / q15},
		{"BI", ix.BI, (q95 - mean) / mean},
		{"PTI", ix.PTI, q95 / q15},
	} {
		if !scalar.EqualWithinRel(c.got, c.want, 0.01) {
			t.Errorf("%s: %.4f, the law's %.4f", c.name, c.got, c.want)
		}
	}
	if !(ix.PTI >= ix.TTI && ix.TTI >= 1 && ix.BI >= 0) || ix.N != len(times) {
		t.Errorf("order: %+v", ix)
	}
	if e := RouteIndices(nil); !math.IsNaN(e.TTI) || e.N != 0 {
		t.Errorf("no days: %+v", e)
	}
}

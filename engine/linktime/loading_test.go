package linktime

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ontime-routing/ontime/engine"
)

// A Loading scored under many conditionals (routes of a dense, a skewed
// and a factor model, some times at the floor) gives Loaded's law to the
// bit, its kept products reused from one conditional to the next; so does
// Latent, whose products of rows the model keeps.
func TestLoadedOfEqualsLoaded(t *testing.T) {
	skewed := grid(6, engine.Correlation{Model: RandomPSD, Seed: 4})
	skewed.Law = LogNormalLaw
	for _, net := range []*engine.Network{
		grid(6, engine.Correlation{Model: RandomPSD, Seed: 3}),
		grid(6, engine.Correlation{Model: Spatial, Strength: 0.6, Length: 1500}),
		skewed,
		grid(6, engine.Correlation{Model: SpatialFactor, Strength: 0.6, Length: 1500, Factors: 9}),
	} {
		g, err := New(net)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(8, 1))
		n := g.Dim()
		_, r := g.F.Dims()
		var sums []*Loading
		for range 12 {
			s := make([]float64, r)
			mean, own := 0.0, 0.0
			for range 1 + rng.IntN(8) {
				e := rng.IntN(n)
				for j, v := range g.SumRow(e) {
					s[j] += v
				}
				mean += g.Mean[e]
				own += g.SumIdioVar(e)
			}
			sums = append(sums, NewLoading(mean, s, own))
		}
		x := g.SampleN(rng, 40, nil)
		for route := range 40 {
			links := rng.Perm(n)[:rng.IntN(15)]
			times := make([]float64, len(links))
			for i, e := range links {
				times[i] = x[route*n+e]
				if rng.IntN(6) == 0 && !math.IsInf(g.Floors[e], -1) { // a skewed link's floor is its warp's
					times[i] = g.Floors[e] // censored
				}
			}
			c := g.Condition(links, times)
			for e := range n { // Latent's kept row products: Loaded of the link's row
				if _, seen := c.time(e); seen || c.m == 0 && g.Idio == nil { // the marginal itself
					continue
				}
				m1, s1 := c.Latent(e)
				m2, s2 := c.Loaded(g.Latent[e], g.F.RawRowView(e), g.IdioVar(e))
				if m1 != m2 || s1 != s2 {
					t.Fatalf("%s: route %d, link %d: Latent N(%v, %v), Loaded N(%v, %v)", net.Correlation.Model, route, e, m1, s1, m2, s2)
				}
			}
			for i, l := range sums {
				m1, s1 := c.LoadedOf(l)
				m2, s2 := c.Loaded(l.Mean, l.S, l.Own)
				if m1 != m2 || s1 != s2 {
					t.Fatalf("%s: route %d, sum %d: LoadedOf N(%v, %v), Loaded N(%v, %v)", net.Correlation.Model, route, i, m1, s1, m2, s2)
				}
			}
		}
	}
}

package linktime

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ontime-routing/ontime/engine"
)

// Observe extends a conditional by one traversal and must give what
// Condition gives from scratch for the longer route, bit for bit (cgr and
// cdot use either, and the same episode must decide alike whichever ran):
// tried on random routes (revisits, a law's impossible times, links at
// their floor) over a spatial-factor and a random-psd model. In the links'
// space (random-psd) a censored time is the one case it refuses, leaving
// the conditional as it was; in the factors' space (spatial-factor) it
// refuses nothing, censored times included.
func TestObserveEqualsConditionFromScratch(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 11))
	for _, corr := range []engine.Correlation{
		{Model: SpatialFactor, Strength: 0.7, Length: 1200, Factors: 9},
		{Model: RandomPSD, Seed: 3},
	} {
		net := grid(4, corr)
		g, err := New(net)
		if err != nil {
			t.Fatal(err)
		}
		probe := []int{1, 6, 13, len(net.Links) - 1}
		refusals, censoredSeen := 0, 0
		for trial := range 60 {
			var links []int
			var times []float64
			c := g.Condition(nil, nil)
			refused := false
			for step := range 30 {
				e := rng.IntN(len(net.Links))
				if step > 0 && rng.IntN(6) == 0 {
					e = links[rng.IntN(len(links))] // a link met again
				}
				t0 := g.Mean[e] + g.SD[e]*rng.NormFloat64()
				switch rng.IntN(40) {
				case 0:
					t0 = g.Latent[e] + 40*g.SD[e] // no draw of the law is there
				case 1:
					t0 = g.Floors[e] // at the floor: censored
				}
				links, times = append(links, e), append(times, max(t0, g.Floors[e]))
				if g.Censored(e, times[len(times)-1]) {
					censoredSeen++
				}
				if !refused && !c.Observe(e, times[len(times)-1]) {
					refused = true
					refusals++
					if !g.Censored(e, times[len(times)-1]) && !c.censored {
						t.Fatalf("%s trial %d: Observe refused an uncensored time", corr.Model, trial)
					}
				}
				if refused {
					continue
				}
				fresh := g.Condition(links, times)
				for _, k := range probe {
					m1, s1 := c.Latent(k)
					m2, s2 := fresh.Latent(k)
					if m1 != m2 || s1 != s2 {
						t.Fatalf("%s trial %d step %d, link %d: extended N(%v, %v²), from scratch N(%v, %v²)", corr.Model, trial, step, k, m1, s1, m2, s2)
					}
				}
				// the same observations, pseudo-ones included, in the same
				// order: conditional draws (Matheron's) read them in order
				if !slices.Equal(c.obsIdx, fresh.obsIdx) || !slices.Equal(c.obsVal, fresh.obsVal) || !slices.Equal(c.noise, fresh.noise) || !slices.Equal(c.known, fresh.known) || !slices.Equal(c.times, fresh.times) {
					t.Fatalf("%s trial %d step %d: observations differ: %v %v, from scratch %v %v", corr.Model, trial, step, c.obsIdx, c.noise, fresh.obsIdx, fresh.noise)
				}
				m1, s1 := c.Sum(probe)
				m2, s2 := fresh.Sum(probe)
				if m1 != m2 || s1 != s2 {
					t.Fatalf("%s trial %d step %d: sums differ", corr.Model, trial, step)
				}
			}
		}
		if fs := g.factorSpace(); refusals > 0 || censoredSeen < 20 {
			t.Errorf("%s (factors' space %v): %d refusals, %d censored times tried", corr.Model, fs, refusals, censoredSeen)
		}
	}
}

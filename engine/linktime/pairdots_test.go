package linktime

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/ontime-routing/ontime/engine"
)

// Conditioning from many goroutines at once on one dense model (whose
// products F_a·F_b they share through pairDots) and scoring the same
// Loadings (F_o·S shared) gives, bit for bit, what one goroutine gets on a
// fresh model and fresh Loadings; the race detector checks the sharing.
func TestConcurrentConditioningMatchesSequential(t *testing.T) {
	net := grid(6, engine.Correlation{Model: Spatial, Strength: 0.7, Length: 1500})
	fresh := func() *Gaussian {
		g, err := New(net)
		if err != nil {
			t.Fatal(err)
		}
		if g.factorSpace() {
			t.Fatal("a dense spatial model is conditioned in a factor space; pairDots is not exercised")
		}
		return g
	}
	type route struct {
		links []int
		times []float64
	}
	rng := rand.New(rand.NewPCG(7, 8))
	g := fresh()
	routes := make([]route, 30)
	for i := range routes {
		for range 1 + rng.IntN(12) {
			e := rng.IntN(g.Dim())
			routes[i].links = append(routes[i].links, e)
			routes[i].times = append(routes[i].times, max(g.Latent[e]+g.SD[e]*rng.NormFloat64(), g.Floors[e]))
		}
	}
	loadings := func(g *Gaussian) []*Loading {
		var ls []*Loading
		for i := range 5 {
			s := make([]float64, g.F.RawMatrix().Cols)
			mean, own := 0.0, 0.0
			for _, e := range routes[i].links {
				for j, v := range g.SumRow(e) {
					s[j] += v
				}
				mean += g.Mean[e]
				own += g.SumIdioVar(e)
			}
			ls = append(ls, NewLoading(mean, s, own))
		}
		return ls
	}
	answers := func(g *Gaussian, ls []*Loading, r route) []float64 {
		c := g.Condition(r.links, r.times)
		var out []float64
		for e := range g.Dim() {
			m, s := c.Latent(e)
			out = append(out, m, s)
		}
		for _, l := range ls {
			m, s := c.LoadedOf(l)
			out = append(out, m, s)
		}
		return out
	}
	want := make([][]float64, len(routes))
	alone := loadings(g)
	for i, r := range routes {
		want[i] = answers(g, alone, r)
	}
	shared := fresh()
	sharedLoadings := loadings(shared)
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			for k := range routes {
				i := (k*7 + w*5) % len(routes) // each goroutine in its own order
				got := answers(shared, sharedLoadings, routes[i])
				for j := range got {
					if math.Float64bits(got[j]) != math.Float64bits(want[i][j]) {
						t.Errorf("goroutine %d, route %d, value %d: %v, alone %v", w, i, j, got[j], want[i][j])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

package policy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// oneLink is a network of one link of the given mean and SD under law.
func oneLink(t *testing.T, law string, mean, sd float64) *linktime.Gaussian {
	t.Helper()
	net := &engine.Network{Name: "one", Law: law, Nodes: []engine.Node{{ID: "a"}, {ID: "b"}},
		Links: []engine.Link{{From: 0, To: 1, Mean: mean, Var: sd * sd}}, Correlation: engine.Correlation{Model: linktime.Independent}}
	net.Index()
	g, err := linktime.New(net)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Splitting times keeps each link's mean where none of its law lies under
// one step (the normal floored at a tenth of its mean with the step under
// the floor; the log-normal with the step a fiftieth of its mean): the
// binned mean is the law's within the ±6 sd truncation (and Simpson's
// rule, for a warped law). Every rule's bins are probabilities from step
// one on, summing to one; rounding up never shortens a link.
func TestMeanRoundingKeepsTheMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 2))
	for _, law := range []string{linktime.MatchedLaw, linktime.LogNormalLaw} {
		for range 200 {
			mean := math.Pow(10, -2+4*rng.Float64())
			sd := mean * (0.01 + 0.99*rng.Float64())
			g := oneLink(t, law, mean, sd)
			delta := mean / 50
			if law == linktime.MatchedLaw {
				delta = g.Floors[0] * (0.2 + 0.8*rng.Float64())
			}
			want := g.LinkMoments(0)[1]
			for _, r := range DOTRoundings {
				pm := r.normal(g.Latent[0], g.SD[0], g.Floors[0], delta)
				if g.Warped(0) {
					pm = r.warped(g, 0, g.Latent[0], g.SD[0], delta)
				}
				sum := 0.0
				for _, p := range pm.p {
					if p < 0 || pm.lo < 1 {
						t.Fatalf("%s μ %v σ %v Δ %v, %s: bins from %d: %v", law, mean, sd, delta, r.Name, pm.lo, pm.p)
					}
					sum += p
				}
				if math.Abs(sum-1) > 1e-6 {
					t.Errorf("%s μ %v σ %v Δ %v, %s: the bins sum to %v", law, mean, sd, delta, r.Name, sum)
				}
				got := pm.mean(delta)
				switch r.Name {
				case "up":
					if got < want*(1-1e-6) {
						t.Errorf("%s μ %v σ %v Δ %v: rounded up, the mean %v is under the law's %v", law, mean, sd, delta, got, want)
					}
				case "mean":
					if math.Abs(got-want) > 1e-6*want {
						t.Errorf("%s μ %v σ %v Δ %v: split, the mean %v, the law's %v", law, mean, sd, delta, got, want)
					}
				}
			}
		}
	}
}

// chain is a road of n links of mean m (SD a third of it).
func chain(n int, m float64) (*engine.Network, *linktime.Gaussian, []engine.OD) {
	net := &engine.Network{Name: "chain", Correlation: engine.Correlation{Model: linktime.Independent}}
	for i := range n + 1 {
		net.Nodes = append(net.Nodes, engine.Node{ID: string(rune('a' + i%26))})
	}
	for i := range n {
		net.Links = append(net.Links, engine.Link{From: i, To: i + 1, Mean: m, Var: m * m / 9})
	}
	net.Index()
	g, err := linktime.New(net)
	if err != nil {
		panic(err)
	}
	return net, g, []engine.OD{{Origin: 0, Destination: n}}
}

// The grid keeps the paper's rule where it adds little (a road of 5 long
// links), and splits times where a path of many links shorter than the
// step would gain more (2,000 links, each under the step): at the largest
// step, halving from the first, where the split adds at most
// DOTExcessLimit. A step asked for is never halved; a rounding asked for is
// kept; and the choice is the same, step for step, on the times × 60.
func TestDOTGridFor(t *testing.T) {
	for _, c := range []struct {
		n     int
		m     float64
		fixed bool
		want  string
	}{
		{5, 9, false, "up"},
		{2000, 0.3, false, "mean"},
		{2000, 0.3, true, "mean"},
	} {
		var steps []float64
		for _, scale := range []float64{1, 60} {
			net, g, ods := chain(c.n, c.m*scale)
			base := 1.05 * float64(c.n) * c.m * scale / 1000
			got := DOTGridFor(net, g, base, c.fixed, "", ods)
			steps = append(steps, got.Delta/scale)
			name := func() string { return fmt.Sprintf("%d links of %v (step fixed: %v)", c.n, c.m*scale, c.fixed) }
			if got.Rounding != c.want {
				t.Errorf("%s: %s rounding, want %s", name(), got.Rounding, c.want)
			}
			switch {
			case c.fixed || c.want == "up":
				if got.Delta != base {
					t.Errorf("%s: step %v, want %v", name(), got.Delta, base)
				}
			default:
				paths := letPaths(net, ods)
				if got.Delta >= base || got.Excess > DOTExcessLimit || gridExcess(g, paths, dotRounding("mean"), 2*got.Delta) <= DOTExcessLimit {
					t.Errorf("%s: step %v (from %v) adds %v; twice the step adds %v", name(), got.Delta, base, got.Excess, gridExcess(g, paths, dotRounding("mean"), 2*got.Delta))
				}
			}
			if up := DOTGridFor(net, g, base, c.fixed, "up", ods); up.Rounding != "up" || up.Delta != base {
				t.Errorf("%s: rounding up asked for, got %s at %v", name(), up.Rounding, up.Delta)
			}
		}
		if math.Abs(steps[0]-steps[1]) > 1e-9*steps[0] {
			t.Errorf("%d links: step %v, and %v × 60 on the times × 60", c.n, steps[0], steps[1])
		}
	}
}

// Issue 71, cause 6: a link law far past the grid (10⁶ minutes on a step
// of 0.01, beside links of 0.001 minutes: both accepted by an import) is
// binned up to dotMaxBins only, by every rule; it asked for terabytes.
func TestDOTBinsAreBounded(t *testing.T) {
	for _, r := range DOTRoundings {
		for _, c := range []struct{ mu, sd, floor float64 }{{1e6, 1e5, 1e5}, {1e6, 0, 1e5}, {5e5, 5e5, 0}, {1e300, 1e299, 0}} {
			pm := r.normal(c.mu, c.sd, c.floor, 0.01)
			if len(pm.p) > dotMaxBins+2 || pm.lo > dotMaxBins+1 || pm.lo < 1 {
				t.Errorf("%s %+v: bins %d from %d", r.Name, c, len(pm.p), pm.lo)
			}
		}
	}
}

package linktime

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/ontime-routing/ontime/engine"
)

// Lazy draws follow the conditional law where the conditional-sample tests
// (TestConditionalSamples, TestSpatialFactorConditionalSamples,
// TestConditionCensored) do not look: an independent model and a dense one
// with nothing observed. The sample moments of 100k draws match c.Sum's law
// for each unobserved link (5 standard errors), and observed links keep
// their times.
func TestLazyDrawsFollowTheLaw(t *testing.T) {
	cov := [][]float64{{1, .5, 0}, {.5, 2, -1}, {0, -1, 2}}
	explicit := chain(3, 100, 0, engine.Correlation{Model: "explicit", Covariance: cov})
	for e := range explicit.Links {
		explicit.Links[e].Var = cov[e][e]
	}
	for _, tc := range []struct {
		name  string
		net   *engine.Network
		obs   []int
		times []float64
		links []int
	}{
		{"independent", chain(4, 10, 4, engine.Correlation{Model: "independent"}), []int{1}, []float64{12}, []int{0, 2, 3}},
		{"no observation", explicit, nil, nil, []int{0, 1, 2}},
	} {
		g, err := New(tc.net)
		if err != nil {
			t.Fatal(err)
		}
		c := g.Condition(tc.obs, tc.times)
		const k = 100000
		d := c.Lazy(rand.New(rand.NewPCG(11, 0)), k)
		for j, e := range tc.obs {
			for s := range k {
				if d.At(s, e) != tc.times[j] {
					t.Fatalf("%s: draw %d: observed link %d is %v", tc.name, s, e, d.At(s, e))
				}
			}
		}
		for _, e := range tc.links {
			m, sd := c.Sum([]int{e})
			var sum, sq float64
			for s := range k {
				v := d.At(s, e)
				sum += v
				sq += v * v
			}
			mean := sum / k
			vr := sq/k - mean*mean
			if !scalar.EqualWithinAbs(mean, m, 5*sd/math.Sqrt(k)) || !scalar.EqualWithinRel(vr, sd*sd, 5*math.Sqrt(2.0/k)) {
				t.Errorf("%s: link %d: sample N(%.4f, %.4f), want N(%.4f, %.4f)", tc.name, e, mean, vr, m, sd*sd)
			}
		}
	}
}

// A link's value does not depend on the order links are read in, and Rows
// holds exactly what At gives.
func TestLazyDrawsOrderFree(t *testing.T) {
	net := grid(3, engine.Correlation{Model: SpatialFactor, Strength: 0.8, Length: 1500, Factors: 4})
	g, err := New(net)
	if err != nil {
		t.Fatal(err)
	}
	c := g.Condition([]int{2}, []float64{5})
	a := c.Lazy(rand.New(rand.NewPCG(3, 3)), 50)
	b := c.Lazy(rand.New(rand.NewPCG(3, 3)), 50)
	n := g.Dim()
	want := make([]float64, 50*n)
	for s := 49; s >= 0; s-- {
		for e := n - 1; e >= 0; e-- {
			want[s*n+e] = a.At(s, e)
		}
	}
	rows := b.Rows()
	for j := range want {
		if rows[j] != want[j] {
			t.Fatalf("draw %d link %d: %v read forwards, %v backwards", j/n, j%n, rows[j], want[j])
		}
	}
}

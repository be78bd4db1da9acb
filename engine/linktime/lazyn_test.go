package linktime

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/ontime-routing/ontime/engine"
)

// A LazyN's every link equals SampleN's to the bit, for each kind of
// model (independent, dense of a rank above and below gonum's block,
// factor, skewed) and for batch sizes on both sides of the rule that makes
// gonum's product sum in blocks; the rng is left where SampleN leaves it.
func TestLazyNMatchesSampleN(t *testing.T) {
	type model struct {
		name string
		net  *engine.Network
	}
	var models []model
	for _, side := range []int{3, 7, 12} { // 12, 84 and 264 links
		for _, c := range []engine.Correlation{
			{Model: Independent},
			{Model: RandomPSD, Seed: 5},
			{Model: Spatial, Strength: 0.5, Length: 1500},
			{Model: SpatialFactor, Strength: 0.5, Length: 1500, Factors: 8},
		} {
			models = append(models, model{fmt.Sprintf("%s/%d links", c.Model, 2*side*(side-1)), grid(side, c)})
		}
	}
	skewed := grid(7, engine.Correlation{Model: RandomPSD, Seed: 6})
	skewed.Law = LogNormalLaw
	models = append(models, model{"lognormal random-psd", skewed})
	for _, m := range models {
		g, err := New(m.net)
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		for _, k := range []int{1, 5, 64, 65, 130, 256} {
			seed := uint64(k)
			want := g.SampleN(rand.New(rand.NewPCG(seed, 9)), k, nil)
			rng := rand.New(rand.NewPCG(seed, 9))
			d := g.SampleLazyN(rng, k)
			after := rand.New(rand.NewPCG(seed, 9))
			g.SampleN(after, k, nil)
			if rng.Uint64() != after.Uint64() {
				t.Fatalf("%s, k=%d: the rng is not where SampleN leaves it", m.name, k)
			}
			n := g.Dim()
			for s := range k {
				for e := range n {
					if got := d.At(s, e); got != want[s*n+e] {
						t.Fatalf("%s, k=%d: realization %d link %d is %v lazily, %v from SampleN", m.name, k, s, e, got, want[s*n+e])
					}
				}
			}
		}
	}
}

// A factor model's rows drawn on several cores (a city's; here a small
// grid's, the split lowered to it, blocks of 1 to 40 rows) equal the lazy
// draw, which reads one row at a time, to the bit, skewed or not, and the
// rng is left where that draw leaves it.
func TestFactorRowsOnEveryCoreMatchLazyN(t *testing.T) {
	defer func(links, bytes int) { sampleSplitLinks, sampleBlockBytes = links, bytes }(sampleSplitLinks, sampleBlockBytes)
	sampleSplitLinks = 1
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	for _, law := range []string{"", LogNormalLaw} {
		net := grid(7, engine.Correlation{Model: SpatialFactor, Strength: 0.5, Length: 1500, Factors: 8})
		net.Law = law
		g, err := New(net)
		if err != nil {
			t.Fatal(err)
		}
		per := 8 * (8 + g.Dim())
		for _, rows := range []int{1, 2, 7, 40} {
			sampleBlockBytes = rows * per
			for _, k := range []int{1, 5, 64, 65} {
				rng := rand.New(rand.NewPCG(uint64(k), 9))
				got := g.SampleN(rng, k, nil)
				lazy := rand.New(rand.NewPCG(uint64(k), 9))
				d := g.SampleLazyN(lazy, k)
				if rng.Uint64() != lazy.Uint64() {
					t.Fatalf("law %q, blocks of %d, k=%d: the rng is not where the lazy draw leaves it", law, rows, k)
				}
				n := g.Dim()
				for s := range k {
					for e := range n {
						if want := d.At(s, e); got[s*n+e] != want {
							t.Fatalf("law %q, blocks of %d, k=%d: realization %d link %d is %v, lazily %v", law, rows, k, s, e, got[s*n+e], want)
						}
					}
				}
			}
		}
	}
}

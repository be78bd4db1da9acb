package policy_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
	"github.com/ontime-routing/ontime/engine/verify"
)

// readRecorder acts as p does and checks the bin each decision reads.
type readRecorder struct {
	p     engine.Policy
	check func(o *engine.Observation)
}

func (r readRecorder) Act(o *engine.Observation) int { r.check(o); return r.p.Act(o) }

// randomWalk takes a random link out of each node: it wanders where no
// reasonable policy would, into the corners of the reach.
type randomWalk struct {
	net *engine.Network
	rng *rand.Rand
}

func (w randomWalk) Act(o *engine.Observation) int {
	out := w.net.Out(o.Node)
	return out[w.rng.IntN(len(out))]
}

// fastestWorlds is pool with 20 realizations more, the k-th with each link
// at its least time (its floor; a link with none, a billionth of its mean)
// with chance (k+1)/20 and as drawn otherwise, the last all at the least:
// the worlds in which an episode reaches a node earliest, where the reach
// is tight.
func fastestWorlds(model *linktime.Gaussian, pool *sim.Pool) *sim.Pool {
	const extra = 20
	rng := rand.New(rand.NewPCG(1, 2))
	x := slices.Grow(slices.Clone(pool.X), extra*pool.Dim)
	for k := range extra {
		row := slices.Clone(pool.Row(k % pool.Size))
		for e := range row {
			if rng.Float64() < float64(k+1)/extra {
				row[e] = math.Max(model.Floors[e], model.Mean[e]*1e-9)
			}
		}
		x = append(x, row...)
	}
	fast := *pool
	fast.X, fast.Size = x, pool.Size+extra
	return &fast
}

// The origin's reach holds every read: on every generated network, an
// episode from the origin within the largest budget (dot's, and a random
// walk's, which goes everywhere), in drawn worlds and the fastest ones,
// never reads a bin above the reach at its node; and Reach's counts nest
// (kept ⊆ band ⊆ grid), with at least as many bins kept where no link has
// a floor.
func TestDOTOriginReachHoldsEveryRead(t *testing.T) {
	for _, c := range verify.Generated(false) {
		if c.Name == "long-trips" && !testenv.IsLarge() {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			bc := newBandCase(t, c.Name, c.Net)
			env := &policy.Env{Net: bc.net, Model: bc.model, Tasks: bc.tasks}
			d := env.NewDOT()
			dot, err := policy.Lookup("dot")
			if err != nil {
				t.Fatal(err)
			}
			dp, _, err := dot.New(env)
			if err != nil {
				t.Fatal(err)
			}
			pool := fastestWorlds(bc.model, sim.NewPool(bc.model, bc.net.PoolKey(), sim.Test, 0, testenv.Sized(200, 50), 0, nil))
			maxBudget := map[engine.OD]float64{}
			for _, task := range bc.tasks {
				maxBudget[task.OD] = math.Max(maxBudget[task.OD], task.Budget)
			}
			reads := 0
			for od, top := range maxBudget {
				hi := d.OriginReach(od.Origin, top, bc.model.Floors)
				check := func(o *engine.Observation) {
					reads++
					if b := d.ReadBin(o.Remaining); b > hi[o.Node] {
						t.Fatalf("OD %s budget ≤ %g: a read at node %d, bin %d (%.6g left), above its reach %d", bc.net.ODString(od), top, o.Node, b, o.Remaining, hi[o.Node])
					}
				}
				for _, task := range bc.tasks {
					if task.OD != od {
						continue
					}
					res := make([]sim.Result, pool.Size)
					walk := randomWalk{bc.net, rand.New(rand.NewPCG(uint64(od.Origin), 7))}
					for _, p := range []engine.Policy{dp, walk} {
						if err := (&sim.Runner{Net: bc.net}).Run(readRecorder{p, check}, task, pool, res); err != nil {
							t.Fatal(err)
						}
					}
				}
				r := d.Reach(od.Destination, od.Origin, top, bc.model.Floors)
				if r.Kept > r.Band || r.Band > r.Cells || r.Kept <= 0 {
					t.Fatalf("OD %s: reach %+v does not nest", bc.net.ODString(od), r)
				}
				none := make([]float64, len(bc.net.Links))
				if r0 := d.Reach(od.Destination, od.Origin, top, none); r0.Kept < r.Kept {
					t.Fatalf("OD %s: with no floors %d bins kept, fewer than %d with them", bc.net.ODString(od), r0.Kept, r.Kept)
				}
			}
			if reads == 0 {
				t.Fatal("no decision read")
			}
		})
	}
}

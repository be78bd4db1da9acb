package policy

import (
	"math"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/sim"
)

// CTD is cascaded temporal-difference learning for the mean–standard
// deviation shortest path (Guo, Hou & Peng, IEEE T-ITS 2022): two cascaded
// TD learners per (node, next link) and destination, the first for the mean
// cost-to-go Q₁ ≈ E[w + C(j)], the second for its second moment
// Q₂ ≈ E[w² + 2w·C(j) + C(j)²] (the cascade: Q₂'s target uses Q₁, with
// the link time independent of what follows). The continuation at the head
// j follows the link minimizing Q₁ + ζ·σ (ζ = Zeta). The SOTA policy then
// acts on the remaining budget b: the link with the highest
// Φ((b − Q₁)/σ), σ = √(Q₂ − Q₁²). Trained on the training stream only,
// one table pair per destination, by synchronous sweeps of sample-mean TD
// targets until no value moves by more than 1e-6 relative.
type CTD struct {
	net  *engine.Network
	Tabs map[int]*CTDTable
}

// CTDTable holds Q₁ and Q₂ per link for one destination.
type CTDTable struct {
	Q1, Q2 []float64
}

type ctdSettings struct {
	Samples, MaxSweeps int
	Zeta               float64
}

func newCTD(env *Env, s ctdSettings) (*CTD, bool, error) {
	tabs, hit, err := cached(env, "ctd", s, func() (map[int]*CTDTable, error) {
		samples := sim.NewStream(env.Model, env.Net.PoolKey(), env.Seed).Next(s.Samples)
		tabs := map[int]*CTDTable{}
		for d := range env.MaxBudget() {
			if err := env.Err(); err != nil {
				return nil, err
			}
			tabs[d] = trainCTD(env.Net, samples, d, s, env.Err)
		}
		if err := env.Err(); err != nil {
			return nil, err // a table cut short is not cached
		}
		return tabs, nil
	})
	return &CTD{net: env.Net, Tabs: tabs}, hit, err
}

// stop ends the sweeps early (a canceled run, whose result is discarded).
func trainCTD(net *engine.Network, samples *sim.Pool, dest int, s ctdSettings, stop func() error) *CTDTable {
	E := len(net.Links)
	t := &CTDTable{Q1: make([]float64, E), Q2: make([]float64, E)}
	// Start from +∞-like costs so unreachable continuations stay unattractive.
	const far = 1e9
	for e := range t.Q1 {
		t.Q1[e], t.Q2[e] = far, far*far
	}
	c1 := make([]float64, len(net.Nodes))
	c2 := make([]float64, len(net.Nodes))
	for sweep := 0; sweep < s.MaxSweeps && stop() == nil; sweep++ {
		for j := range net.Nodes {
			c1[j], c2[j] = far, far*far
			if j == dest {
				c1[j], c2[j] = 0, 0
				continue
			}
			best := math.Inf(1)
			for _, e := range net.Out(j) {
				if v := t.Q1[e] + s.Zeta*sdOf(t.Q1[e], t.Q2[e]); v < best {
					best, c1[j], c2[j] = v, t.Q1[e], t.Q2[e]
				}
			}
		}
		change := 0.0
		for e, l := range net.Links {
			if l.From == dest {
				continue
			}
			var m1, m2 float64
			for k := range samples.Size {
				w := samples.Row(k)[e]
				m1 += w + c1[l.To]
				m2 += w*w + 2*w*c1[l.To] + c2[l.To]
			}
			m1 /= float64(samples.Size)
			m2 /= float64(samples.Size)
			change = math.Max(change, math.Abs(m1-t.Q1[e])/(1+m1))
			t.Q1[e], t.Q2[e] = math.Min(m1, far), math.Min(m2, far*far)
		}
		if change < 1e-6 {
			break
		}
	}
	return t
}

func sdOf(q1, q2 float64) float64 { return math.Sqrt(math.Max(q2-q1*q1, 0)) }

// Act takes the link with the highest Φ((b − Q₁)/σ) (among equals, one
// to a node not yet visited, then the lowest Q₁; see choice).
func (p *CTD) Act(o *engine.Observation) int {
	t := p.Tabs[o.Destination]
	out := p.net.Out(o.Node)
	if t == nil {
		return out[0]
	}
	return argmaxLink(out, func(e int) float64 { return onTime(o.Remaining, t.Q1[e], sdOf(t.Q1[e], t.Q2[e])) }, freshHead(p.net, o),
		func(e int) float64 { return t.Q1[e] })
}

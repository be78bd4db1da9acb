package policy

import (
	"fmt"
	"math"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/sim"
)

// MLR is the sample-based path model of Yang & Zhou (2017, Transportation
// Research Part B 96:68–91), solved by Lagrangian relaxation. With K joint
// training realizations t^k (so it sees correlation), choose a path x and
// late flags z_k to maximize the fraction of samples on time, subject to
// Σ_e t^k_e x_e ≤ T + M z_k. Relaxing each sample constraint with a
// multiplier λ_k ≥ 0 separates the problem: the path part is a hop-capped
// shortest path on the weights Σ_k λ_k t^k_e, the z part is set by the sign
// of 1/K − M λ_k. Each iteration solves it and takes a subgradient step on λ
// (step s₀/√i). The candidate paths are each sample's own hop-capped shortest
// path (K searches) plus every path the iterations visit; the policy follows
// the candidate with the most samples on time (ties: lower mean).
type mlrSolver struct {
	env     *Env
	samples *sim.Pool
	iters   int
	search  *engine.CappedSearch
}

func newMLR(env *Env, k, iters int) *PathPolicy {
	m := &mlrSolver{env: env, samples: sim.NewStream(env.Model, env.Net.PoolKey(), env.Seed).Next(k), iters: iters,
		search: engine.NewCappedSearch(env.Net)}
	// Planning runs under the policy's lock, one task at a time, so the
	// per-pair candidates need none of their own.
	base := map[engine.OD]map[string][]int{}
	return newPathPolicy(env.Net, NewLET(env.Net, env.Destinations()...), env.Tasks, func(t sim.Task) []int {
		c, ok := base[t.OD]
		if !ok {
			c = m.sampleShortest(t.OD)
			base[t.OD] = c
		}
		return m.solve(t, c)
	})
}

func pathKey(links []int) string { return fmt.Sprint(links) }

func (m *mlrSolver) sampleShortest(od engine.OD) map[string][]int {
	c := map[string][]int{}
	for k := range m.samples.Size {
		if links, _ := m.search.Path(od.Origin, od.Destination, m.env.Net.EpisodeCap(), m.samples.Row(k)); links != nil {
			c[pathKey(links)] = links
		}
	}
	return c
}

func (m *mlrSolver) solve(t sim.Task, base map[string][]int) []int {
	K := m.samples.Size
	cands := make(map[string][]int, len(base))
	for k, v := range base {
		cands[k] = v
	}
	net := m.env.Net
	bigM := 2 * t.Budget // a late sample's slack; any bound on path time − T works
	lambda := make([]float64, K)
	for k := range lambda {
		lambda[k] = 1 / (float64(K) * bigM)
	}
	w := make([]float64, len(net.Links))
	step0 := 1 / (float64(K) * bigM * t.Budget)
	for i := 1; i <= m.iters; i++ {
		for e := range w {
			w[e] = 1e-9 * m.env.Model.Mean[e]
		}
		for k := range K {
			if lambda[k] == 0 {
				continue
			}
			row := m.samples.Row(k)
			for e := range w {
				w[e] += lambda[k] * row[e]
			}
		}
		x, _ := m.search.Path(t.OD.Origin, t.OD.Destination, net.EpisodeCap(), w)
		if x == nil {
			break
		}
		cands[pathKey(x)] = x
		step := step0 / math.Sqrt(float64(i))
		for k := range K {
			z := 0.0
			if 1/float64(K)-bigM*lambda[k] < 0 {
				z = 1
			}
			g := pathTime(m.samples.Row(k), x) - t.Budget - bigM*z
			lambda[k] = math.Max(0, lambda[k]+step*g)
		}
	}
	var best []int
	bestN, bestMean := -1, math.Inf(1)
	for _, links := range sortedPaths(cands) {
		n, sum := 0, 0.0
		for k := range K {
			tt := pathTime(m.samples.Row(k), links)
			sum += tt
			if tt <= t.Budget {
				n++
			}
		}
		if n > bestN || n == bestN && sum < bestMean {
			best, bestN, bestMean = links, n, sum
		}
	}
	return best
}

func pathTime(x []float64, links []int) float64 {
	s := 0.0
	for _, e := range links {
		s += x[e]
	}
	return s
}

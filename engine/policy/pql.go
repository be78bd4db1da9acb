package policy

import (
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/sim"
)

// PQL is Q-learning for SOTA (Cao, Guo, Song et al., "Using Reinforcement
// Learning to Minimize the Probability of Delay Occurrence in
// Transportation", IEEE TVT 69(3), 2020): Q(i, b, e) estimates the on-time
// probability of taking link e at node i with remaining budget b; the
// target is max_k Q(j, b − w, k) at the link's head with the sampled link
// time w removed from the budget, and 1 on reaching the destination within
// budget. One table per destination, over budget bins of the largest budget
// asked (values between bins interpolated linearly).
//
// Training is synchronous Q-learning on the training stream only: each
// sampled realization gives a sampled transition for every link at once, and
// one sample w updates every budget bin of (i, e) (the budget is part of the
// state, not of the dynamics). Each sweep sets Q to the mean target over the
// samples under the previous sweep's values; sweeps repeat until no value
// moves by more than 1e-4 (at most the step cap plus a margin). The policy
// acts greedily on (node, remaining budget) and ignores the step count.
type PQL struct {
	net  *engine.Network
	Tabs map[int]*QTable
	let  *LET // breaks ties between equal scores (see choice)
}

// QTable is the learned Q(i, b, e) for one destination, stored per link.
type QTable struct {
	Dest  int
	Delta float64     // budget step
	Q     [][]float32 // Q[e][b], b = 0..bins
}

type pqlSettings struct {
	Samples, Bins, MaxSweeps int
}

func newPQL(env *Env, s pqlSettings) (*PQL, bool, error) {
	tabs, hit, err := cached(env, "pql", s, func() (map[int]*QTable, error) {
		samples := sim.NewStream(env.Model, env.Net.PoolKey(), env.Seed).Next(s.Samples)
		tabs := map[int]*QTable{}
		for d, b := range env.MaxBudget() {
			if err := env.Err(); err != nil {
				return nil, err
			}
			tabs[d] = trainPQL(env.Net, samples, d, b, s, env.Err)
		}
		if err := env.Err(); err != nil {
			return nil, err // a table cut short is not cached
		}
		return tabs, nil
	})
	return &PQL{net: env.Net, Tabs: tabs, let: NewLET(env.Net)}, hit, err
}

// stop ends the sweeps early (a canceled run, whose result is discarded).
func trainPQL(net *engine.Network, samples *sim.Pool, dest int, maxBudget float64, s pqlSettings, stop func() error) *QTable {
	bins := s.Bins
	t := &QTable{Dest: dest, Delta: maxBudget / float64(bins), Q: make([][]float32, len(net.Links))}
	q := make([][]float64, len(net.Links))
	next := make([][]float64, len(net.Links))
	for e := range q {
		q[e] = make([]float64, bins+1)
		next[e] = make([]float64, bins+1)
	}
	times := make([][]float64, len(net.Links)) // each link's sampled times, in sample order
	for e := range times {
		times[e] = make([]float64, samples.Size)
		for k := range samples.Size {
			times[e][k] = samples.Row(k)[e]
		}
	}
	v := make([][]float64, len(net.Nodes)) // V(j, b) = max_k Q(j, b, k)
	for j := range v {
		v[j] = make([]float64, bins+1)
	}
	zeros := make([]int, len(net.Nodes)) // V(j, b) = 0 for b < zeros[j]
	for sweep := 0; sweep < s.MaxSweeps && stop() == nil; sweep++ {
		for j := range v {
			row := v[j]
			for b := range row {
				row[b] = 0
				if j == dest {
					row[b] = 1
					continue
				}
				for _, e := range net.Out(j) {
					row[b] = math.Max(row[b], q[e][b])
				}
			}
		}
		for j, row := range v {
			zeros[j] = leadingZeros(row)
		}
		// Each link's new values read only V, so the links are shared out
		// among the cores; each is summed as before, and the largest change
		// is the same whoever finds it.
		changes := make([]float64, len(net.Links))
		forEachChunk(len(net.Links), func(lo, hi int) {
			for e := lo; e < hi; e++ {
				l := net.Links[e]
				acc := next[e]
				clear(acc)
				if l.From == dest {
					continue // episodes end at the destination
				}
				vj, zj := v[l.To], zeros[l.To]
				for _, x := range times[e] {
					w := x / t.Delta // link time in bins
					sweepInterp(acc, vj, w, firstNonZero(w, zj, len(acc)))
				}
				for b := range acc {
					acc[b] /= float64(samples.Size)
					changes[e] = math.Max(changes[e], math.Abs(acc[b]-q[e][b]))
				}
				q[e], next[e] = acc, q[e]
			}
		})
		if slices.Max(changes) < 1e-4 {
			break
		}
	}
	for e := range q {
		t.Q[e] = make([]float32, bins+1)
		for b, x := range q[e] {
			t.Q[e][b] = float32(x)
		}
	}
	return t
}

// sweepInterp adds interp(row, b − w) to acc[b] for every b from b0 on,
// for a row as long as acc and b − w ≥ 0 from b0 (firstNonZero). Below the
// last bin b ≤ n − 2, so with w > 0 the bin read, ⌊b − w⌋, is below n − 1
// even where b − w rounds to b: interp's two tests are known, and the loop
// is its arithmetic alone, the same bits.
func sweepInterp(acc, row []float64, w float64, b0 int) {
	n := len(acc)
	if len(row) != n {
		panic("sweepInterp: acc and row differ in length")
	}
	b := b0
	if w > 0 {
		for ; b < n-1; b++ {
			x := float64(b) - w
			i := int(x)
			f := x - float64(i)
			acc[b] += row[i] + f*(row[i+1]-row[i])
		}
	}
	for ; b < n; b++ {
		acc[b] += interp(row, float64(b)-w)
	}
}

// leadingZeros is how many of row's first values are exactly 0.
func leadingZeros(row []float64) int {
	for b, x := range row {
		if x != 0 {
			return b
		}
	}
	return len(row)
}

// firstNonZero is the first bin b of n from which interp(row, b − w) can
// be other than 0, for a row whose first z values are 0: before it the
// fractional bin is below zero, or it falls between two zeros, where interp
// returns +0 exactly (0 + f·(0 − 0)), and adding +0 to a sum left it as it
// was. Sweeping only from there gives the same sums with a third to half
// fewer terms where the destination is far (pql on Anaheim: 36 to 20 CPU-s).
// The test is monotone in b, so bisection finds it.
func firstNonZero(w float64, z, n int) int {
	skip := func(b int) bool {
		x := float64(b) - w
		return x < 0 || int(x)+1 < z
	}
	lo, hi := 0, n // skip holds below lo; it fails at hi (n: everywhere)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if skip(mid) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// interp reads a value row at a fractional bin: 0 below zero budget,
// clamped at the top.
func interp(row []float64, x float64) float64 {
	if x < 0 {
		return 0
	}
	i := int(x)
	if i >= len(row)-1 {
		return row[len(row)-1]
	}
	f := x - float64(i)
	return row[i] + f*(row[i+1]-row[i])
}

func interp32(row []float32, x float64) float64 {
	if x < 0 {
		return 0
	}
	i := int(x)
	if i >= len(row)-1 {
		return float64(row[len(row)-1])
	}
	f := x - float64(i)
	return float64(row[i]) + f*float64(row[i+1]-row[i])
}

// Act takes the link with the highest learned Q at the remaining budget
// (ties as in choice).
func (p *PQL) Act(o *engine.Observation) int {
	t := p.Tabs[o.Destination]
	out := p.net.Out(o.Node)
	if t == nil {
		return out[0]
	}
	return argmaxLink(out, func(e int) float64 { return interp32(t.Q[e], o.Remaining/t.Delta) }, freshHead(p.net, o), letAhead(p.let, o.Destination))
}

// forEachChunk calls fn on n items split into one contiguous chunk a core,
// concurrently, and returns when all are done.
func forEachChunk(n int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { fn(w*n/workers, (w+1)*n/workers) })
	}
	wg.Wait()
}

package policy

import (
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/sim"
)

// FMA is the fourth-moment approach of "Navigation with Time Limits in
// Transportation Networks: A Fourth Moment Approach": a path is judged by
// the sharpest upper bound on its lateness probability P(R > T) that its
// first four raw moments allow, the moments summed from the link marginals
// (independent links, binomial convolution of raw moments). Search starts
// from the LET path and makes successor swaps (leave the path at one node by
// another link, then continue by LET) that keep the path loopless and within
// the step cap, taking the best improving swap until none improves or the
// iteration limit is hit; the chosen path is then followed.
//
// The sharp bound sup P(Z ≥ 0) over laws of Z = R − T with the given four
// moments is computed as a linear program over laws on a fine grid (gonum's
// simplex) rather than through the paper's case formulas; where E[Z] ≥ 0 it
// is 1 for every path, so below the mean budget the search keeps LET.
type fmaSearch struct {
	net   *engine.Network
	model *linktime.Gaussian
	let   *LET
	iters int
	cap   int
	lp    *momentLP
}

func newFMA(env *Env, iters int) *PathPolicy {
	let := NewLET(env.Net, env.Destinations()...)
	f := &fmaSearch{net: env.Net, model: env.Model, let: let, iters: iters, cap: env.Net.EpisodeCap(), lp: newMomentLP(241, 10)}
	return newPathPolicy(env.Net, let, env.Tasks, f.search)
}

func (f *fmaSearch) search(t sim.Task) []int {
	tree := f.let.Tree(t.OD.Destination)
	cur := tree.Path(t.OD.Origin, f.net)
	curB := f.bound(cur, t.Budget)
	for range f.iters {
		best, bestB := []int(nil), curB
		for i, e := range cur {
			v := f.net.Links[e].From
			for _, alt := range f.net.Out(v) {
				head := f.net.Links[alt].To
				if alt == e || tree.Hops[head] < 0 {
					continue
				}
				cand := append(append(append([]int{}, cur[:i]...), alt), tree.Path(head, f.net)...)
				if (f.cap > 0 && len(cand) > f.cap) || hasCycle(f.net, cand) {
					continue
				}
				if b := f.bound(cand, t.Budget); b < bestB-1e-9 {
					best, bestB = cand, b
				}
			}
		}
		if best == nil {
			break
		}
		cur, curB = best, bestB
	}
	return cur
}

// bound is the sharp four-moment upper bound on P(path time ≥ budget).
func (f *fmaSearch) bound(links []int, budget float64) float64 {
	m := [5]float64{1, -budget, budget * budget, -budget * budget * budget, budget * budget * budget * budget}
	for _, e := range links {
		m = addMoments(m, f.model.LinkMoments(e))
	}
	return f.lp.upper(m)
}

// binom holds the binomial coefficients C(k, j) for k, j ≤ 4.
var binom = [5][5]float64{{1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}, {1, 4, 6, 4, 1}}

// addMoments gives the raw moments of A + B for independent A, B.
func addMoments(a, b [5]float64) [5]float64 {
	var s [5]float64
	for k := range 5 {
		for j := 0; j <= k; j++ {
			s[k] += binom[k][j] * a[j] * b[k-j]
		}
	}
	return s
}

// momentLP bounds P(Z ≥ 0) from above over laws on a grid of n points
// spanning ±half standard deviations about the mean, plus 0 itself, with the
// given raw moments 0..4. (Duplicate grid points make gonum's simplex report
// a singular basis, hence the tiny offset off 0.)
type momentLP struct {
	n    int
	half float64
}

func newMomentLP(n int, half float64) *momentLP { return &momentLP{n: n, half: half} }

func (l *momentLP) upper(raw [5]float64) float64 {
	mean := raw[1]
	v := raw[2] - mean*mean
	if v <= 1e-12*(1+raw[2]) {
		if mean >= 0 {
			return 1
		}
		return 0
	}
	if mean >= 0 {
		return 1 // a law with these moments can put all but ε of its mass at Z ≥ 0
	}
	s := math.Sqrt(v)
	b := make([]float64, 5)
	for k := range 5 {
		b[k] = raw[k] / math.Pow(s, float64(k))
	}
	mu := mean / s
	ys := make([]float64, 0, l.n+1)
	for i := range l.n {
		ys = append(ys, mu-l.half+2*l.half*float64(i)/float64(l.n-1)+1e-7)
	}
	ys = append(ys, 0)
	A := mat.NewDense(5, len(ys), nil)
	c := make([]float64, len(ys))
	for i, y := range ys {
		p := 1.0
		for k := range 5 {
			A.Set(k, i, p)
			p *= y
		}
		if y >= 0 {
			c[i] = -1
		}
	}
	opt, _, err := lp.Simplex(c, A, b, 1e-10, nil)
	if err != nil {
		// Cantelli's one-sided bound from two moments, always valid.
		return v / (v + mean*mean)
	}
	return math.Min(1, -opt)
}

package policy

import (
	"math"
	"slices"
)

// DOT's table for a destination holds, for each node, only the budget bins
// at which its value can be told from zero: the band [lo_i, n). Below lo_i
// the value is provably under dotZero, far below the smallest float32 the
// table stores (1.4e-45), so the table held there exactly 0 before the band
// existed; the rows start where a value can appear. On a state of 47,000
// nodes most rows are short or empty: a node an hour away from the
// destination has no value at a budget of ten minutes.
//
// The bound is Chernoff's, taken over every adaptive policy at once: for
// any λ > 0 and any way of choosing links as times are seen, P(T ≤ t) ≤
// e^{λt}·E[e^{−λT}], and the largest E[e^{−λT}] over policies is w_i(λ) =
// max over links (i,j) of M_e(λ)·w_j(λ), M_e(λ) = Σ_k p_e[k]·e^{−λkΔ} (the
// link's discretized law: the DP DOT solves, with e^{−λT} for the
// indicator). So −ln w_i(λ) is a shortest path under link costs −ln M_e(λ)
// > 0, one Dijkstra per λ, and u_i(bΔ) ≤ exp(λbΔ + ln w_i(λ)). A capped
// table's values are at most the uncapped ones, so the band holds at every
// level. The bound is exact arithmetic on DOT's own discrete laws: no
// margin is guessed, and TestDOTBandEqualsFullTable checks the tables,
// decisions and rates against the unrestricted solve.

// dotZero is the value below which a bin is left out of the band: e^{−140}
// ≈ 1.6e-61, so that a value left out changes no float32 the table stores
// (the values computed from it move by less than 1e-60).
const dotLnZero = -140

// chernoffRates are the λΔ tried: the best λ for a path is about
// √(2·140)/σ_path, so a geometric grid from a ten-thousandth of a step to
// one step covers paths whose spread runs from a step to thousands of
// steps; a λ off the best by √2 still gets 83% of the best exponent.
var chernoffRates = func() []float64 {
	var r []float64
	for x := 1.0; x >= 1e-4; x /= 2 {
		r = append(r, x)
	}
	return r
}()

// band returns, for each node, the first bin lo_i at which its value
// towards dest may be above e^{dotLnZero} (n where it never is within the
// table's n bins).
func (d *DOT) band(dest, n int) []int32 {
	nn := len(d.net.Nodes)
	lo := make([]int32, nn)
	if d.wholeTables {
		return lo
	}
	in := d.inLinks()
	dist := make([]float64, nn)
	for r, rate := range chernoffRates {
		d.net.CostsTo(dest, in, d.chernoffCosts()[r], dist)
		for i, c := range dist {
			// zero for every b < (c + ln ε)/(λΔ): the first kept bin is
			// the floor of it, a bin early rather than a bin late
			x := (c + dotLnZero) / rate
			if math.IsInf(c, 1) || x >= float64(n) {
				lo[i] = int32(n)
			} else if x > float64(lo[i]) {
				lo[i] = int32(x)
			}
		}
	}
	lo[dest] = 0
	return lo
}

// chernoffCosts are the links' costs −ln M_e(λ) at each of chernoffRates,
// the same towards every destination: computed once.
func (d *DOT) chernoffCosts() [][]float64 {
	d.costsOnce.Do(func() {
		d.costs = make([][]float64, len(chernoffRates))
		for r, rate := range chernoffRates {
			d.costs[r] = make([]float64, len(d.pmf))
			for e, pm := range d.pmf {
				d.costs[r][e] = -logMGF(pm, rate)
			}
		}
	})
	return d.costs
}

// logMGF is ln Σ_k p[k]·e^{−rate·k}: the log of E[e^{−λX}] for a link law
// binned on the grid, with λΔ = rate (summed from the largest term, so
// that no term underflows before it is scaled).
func logMGF(pm linkPMF, rate float64) float64 {
	top := math.Inf(-1)
	for k, p := range pm.p {
		if p > 0 {
			top = math.Max(top, math.Log(p)-rate*float64(pm.lo+k))
		}
	}
	if math.IsInf(top, -1) {
		return top
	}
	s := 0.0
	for k, p := range pm.p {
		if p > 0 {
			s += math.Exp(math.Log(p) - rate*float64(pm.lo+k) - top)
		}
	}
	return top + math.Log(s)
}

// inLinks lists each node's incoming links, built once.
func (d *DOT) inLinks() [][]int {
	d.inOnce.Do(func() {
		d.in = d.net.InLinks()
	})
	return d.in
}

// bandLayout places each node's row [lo_i, n) in one flat slice: off[i] is
// where bin lo_i sits; size is the slice's length.
func bandLayout(lo []int32, n int) (off []int, size int) {
	off = make([]int, len(lo))
	for i, l := range lo {
		off[i] = size
		size += n - int(l)
	}
	return off, size
}

// byBand lists the nodes in increasing lo_i (the nodes with a value at bin
// b are then a prefix), leaving out those with none in the table.
func byBand(lo []int32, n int) []int {
	order := make([]int, 0, len(lo))
	for i, l := range lo {
		if int(l) < n {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(lo[a]) - int(lo[b]) })
	return order
}

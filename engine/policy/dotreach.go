package policy

import "math"

// Issue 47 asks DOT to work only where a trip can go, by least-time bounds
// from both ends. The destination's end is the band (dotband.go): a bound
// on the table's own values, exact arithmetic on DOT's discrete laws. The
// origin's end bounds something else, the states an episode reaches: an
// episode from the origin with budget T reaches node i with at most T less
// its least time to i left. Only the law's floors give a least time that
// holds for every realization (correlated links make fast prefixes likelier
// than the marginals say, so no tail margin is safe), and they are small:
// a tenth of each link's mean under the default law, none under the
// log-normal and fitted laws. Reach measures what a table cut at that bound
// would keep (perf's cities section prints it), so that the choice not to
// build the cut rests on a number.

// TableReach is how much of the (node, budget bin) grid a table towards a
// destination covers.
type TableReach struct {
	Cells int64 // nodes × budget bins: a table with no cut
	Band  int64 // bins in the destination band: what DOT solves and stores a level
	Kept  int64 // bins of the band an episode from the origin can read (originReach)
}

// Reach is TableReach for dest's table over budgets up to maxBudget and
// episodes from origin, each link taking at least floors[e] (the law's
// floors; −∞ or negative: none).
func (d *DOT) Reach(dest, origin int, maxBudget float64, floors []float64) TableReach {
	n := d.tableBins(maxBudget)
	lo := d.band(dest, n)
	hi := d.originReach(origin, maxBudget, floors)
	r := TableReach{Cells: int64(len(lo)) * int64(n)}
	for i, l := range lo {
		if int(l) >= n {
			continue
		}
		r.Band += int64(n - int(l))
		if top := min(n-1, hi[i]); top >= int(l) {
			r.Kept += int64(top + 1 - int(l))
		}
	}
	return r
}

// originReach is, for each node, the highest budget bin a read there can
// take in an episode from origin with budget at most maxBudget (−1 where
// none reaches): the budget's bin less the least floors from the origin,
// each link's floor in whole bins rounded down and at most its law's first
// bin (so that a table cut there reads, from each kept bin, only kept
// bins), and one bin more for the rounding of the times' sums.
func (d *DOT) originReach(origin int, maxBudget float64, floors []float64) []int {
	cost := make([]float64, len(d.net.Links))
	for e := range cost {
		f := floors[e]
		if math.IsInf(f, -1) || f < 0 {
			f = 0
		}
		cost[e] = math.Min(float64(d.pmf[e].lo), math.Floor(f/d.Delta))
	}
	dist := make([]float64, len(d.net.Nodes))
	d.net.CostsFrom(origin, cost, dist)
	top := d.readBin(maxBudget)
	hi := make([]int, len(dist))
	for i, c := range dist {
		hi[i] = -1
		if !math.IsInf(c, 1) {
			hi[i] = top - int(c) + 1
		}
	}
	return hi
}

package bench

import (
	"github.com/ontime-routing/ontime/engine/stats"
)

// Alpha is the level at which a table marks a best method as separated.
const Alpha = 0.05

// Mark is how a table shows one cell of a row of rates.
type Mark int

const (
	Plain Mark = iota
	// Best: the highest mean, and the paired tests (Holm over the row)
	// separate it from every other method: the only cell shown bold.
	Best
	// Tied: the highest mean, or a mean the paired tests cannot separate
	// from it: shown as a tie.
	Tied
)

// Cell is one method's rate in a table row: the mean over pools and its
// 95% t-interval.
type Cell struct {
	Mean, Low, High float64
	Mark            Mark
}

// Row marks a row of pool means, one series per method (in the report's
// order): the best non-bound mean is Best when a paired t-test against
// every other non-bound method, Holm-adjusted over the row, rejects at
// Alpha; otherwise it and every method not separated from it are Tied.
// Bounds (clairvoyant) get their interval and no mark: they are outside
// every family.
func (rep *Report) Row(pools [][]float64) []Cell {
	cells := make([]Cell, len(pools))
	best := -1
	for i, x := range pools {
		ci := stats.PairedT(x, make([]float64, len(x)), 0.95)
		cells[i] = Cell{Mean: ci.Mean, Low: ci.Low, High: ci.Hi}
		if !rep.IsBound(rep.Methods[i]) && (best < 0 || ci.Mean > cells[best].Mean) {
			best = i
		}
	}
	if best < 0 || len(pools[best]) < 2 {
		return cells // one pool: means only, no test to mark a leader by
	}
	var others []int
	var ps []float64
	for i, x := range pools {
		if i == best || rep.IsBound(rep.Methods[i]) {
			continue
		}
		t := stats.PairedT(pools[best], x, 0.95)
		p := t.P
		if t.Mean <= 0 || p != p { // no gain, or no test (one pool): not separated
			p = 1
		}
		others = append(others, i)
		ps = append(ps, p)
	}
	separated := len(others) > 0
	for k, adj := range stats.Holm(ps) {
		if adj >= Alpha {
			separated = false
			cells[others[k]].Mark = Tied
		}
	}
	if separated {
		cells[best].Mark = Best
	} else if len(others) > 0 {
		cells[best].Mark = Tied
	}
	return cells
}

// SummaryRow is Row over the mean-over-OD-pairs rates at a budget.
func (rep *Report) SummaryRow(budget float64) []Cell {
	pools := make([][]float64, len(rep.Methods))
	for i, m := range rep.Methods {
		for _, s := range rep.Summary {
			if s.Method == m && s.Budget == budget {
				pools[i] = s.PoolMeans
			}
		}
	}
	return rep.Row(pools)
}

// ODRow is Row over one OD pair's rates at a budget.
func (rep *Report) ODRow(od string, budget float64) []Cell {
	pools := make([][]float64, len(rep.Methods))
	for i, m := range rep.Methods {
		for _, s := range rep.PerOD {
			if s.Method == m && s.OD == od && s.Budget == budget {
				pools[i] = s.PoolMeans
			}
		}
	}
	return rep.Row(pools)
}

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

// Leader is the marks of one row of a table (one budget; over the OD pairs
// or on one pair) with the paired tests they rest on, computed once when
// the report is made and stored in it: every table, chart and export reads
// them, so no two show different marks.
type Leader struct {
	OD     string  `json:"od"` // "" for the mean over the OD pairs
	Budget float64 `json:"budget"`
	// Best is the highest non-bound mean; Separated says the tests part it
	// from every other non-bound method (Holm over the row, Alpha).
	Best      string       `json:"best"`
	Separated bool         `json:"separated"`
	Tests     []LeaderTest `json:"tests"`
}

// LeaderTest is the best method's paired t-test against one other.
type LeaderTest struct {
	Method string  `json:"method"`
	Gain   float64 `json:"gain"` // best − this, mean over pools
	P      float64 `json:"p"`    // one-sided in effect: 1 when the gain is not positive
	PHolm  float64 `json:"p_holm"`
	Tied   bool    `json:"tied"` // not separated from the best
}

// A row of pool means, one series per method (in the report's order), is
// marked so: the best non-bound mean is Best when a paired t-test against
// every other non-bound method, Holm-adjusted over the row, rejects at
// Alpha; otherwise it and every method not separated from it are Tied.
// Bounds (clairvoyant) get their interval and no mark: they are outside
// every family.

// row computes a row's cells (means and intervals, no marks) and its
// leader with its tests (nil with one pool: means only, no test).
func (rep *Report) row(pools [][]float64) ([]Cell, *Leader) {
	cells := rep.cells(pools)
	best := -1
	for i, c := range cells {
		if !rep.IsBound(rep.Methods[i]) && (best < 0 || c.Mean > cells[best].Mean) {
			best = i
		}
	}
	if best < 0 || len(pools[best]) < 2 {
		return cells, nil
	}
	l := &Leader{Best: rep.Methods[best], Tests: []LeaderTest{}}
	var ps []float64
	for i, x := range pools {
		if i == best || rep.IsBound(rep.Methods[i]) {
			continue
		}
		t := stats.PairedT(pools[best], x, 0.95)
		p := t.P
		if t.Mean <= 0 || p != p { // no gain, or no test: not separated
			p = 1
		}
		l.Tests = append(l.Tests, LeaderTest{Method: rep.Methods[i], Gain: t.Mean, P: p})
		ps = append(ps, p)
	}
	l.Separated = len(ps) > 0
	for k, adj := range stats.Holm(ps) {
		l.Tests[k].PHolm = adj
		if adj >= Alpha {
			l.Separated = false
			l.Tests[k].Tied = true
		}
	}
	return cells, l
}

// cells are a row's means and intervals, unmarked.
func (rep *Report) cells(pools [][]float64) []Cell {
	cells := make([]Cell, len(pools))
	for i, x := range pools {
		ci := stats.PairedT(x, make([]float64, len(x)), 0.95)
		cells[i] = Cell{Mean: ci.Mean, Low: ci.Low, High: ci.Hi}
	}
	return cells
}

// marked sets a row's marks from its leader.
func (rep *Report) marked(cells []Cell, l *Leader) []Cell {
	if l == nil || len(l.Tests) == 0 {
		return cells
	}
	for i, m := range rep.Methods {
		switch {
		case m == l.Best && l.Separated:
			cells[i].Mark = Best
		case m == l.Best:
			cells[i].Mark = Tied
		}
		for _, t := range l.Tests {
			if t.Method == m && t.Tied {
				cells[i].Mark = Tied
			}
		}
	}
	return cells
}

// leader is the stored leader of a row ("" OD: the summary), nil when the
// report has none (one pool, or a report written before leaders were).
func (rep *Report) leader(od string, budget float64) *Leader {
	for i := range rep.Leaders {
		if l := &rep.Leaders[i]; l.OD == od && l.Budget == budget {
			return l
		}
	}
	return nil
}

// EnsureLeaders computes and stores the leaders of a report that has
// none (one written before they were stored), once, when it is read.
func (rep *Report) EnsureLeaders() {
	if len(rep.Leaders) > 0 {
		return
	}
	for _, b := range rep.Budgets {
		rep.addLeader("", b, rep.summaryPools(b))
		for _, od := range rep.ODs {
			rep.addLeader(od.OD, b, rep.odPools(od.OD, b))
		}
	}
}

func (rep *Report) addLeader(od string, budget float64, pools [][]float64) {
	if _, l := rep.row(pools); l != nil {
		l.OD, l.Budget = od, budget
		rep.Leaders = append(rep.Leaders, *l)
	}
}

// SummaryRow is the row of mean-over-OD-pairs rates at a budget, marked
// by its stored leader.
func (rep *Report) SummaryRow(budget float64) []Cell {
	return rep.storedRow("", budget, rep.summaryPools(budget))
}

// ODRow is the row of one OD pair's rates at a budget, marked by its
// stored leader.
func (rep *Report) ODRow(od string, budget float64) []Cell {
	return rep.storedRow(od, budget, rep.odPools(od, budget))
}

// storedRow is a row's cells with the stored leader's marks; a report
// without stored leaders is marked as Row would (EnsureLeaders stores
// them when such a report is read).
func (rep *Report) storedRow(od string, budget float64, pools [][]float64) []Cell {
	if len(rep.Leaders) > 0 {
		return rep.marked(rep.cells(pools), rep.leader(od, budget)) // the tests were run once, when stored
	}
	cells, l := rep.row(pools)
	return rep.marked(cells, l)
}

// Table is a report's rows as a page shows them, each computed once: the
// summary's by budget (in the report's order) and each OD pair's.
type Table struct {
	Summary [][]Cell
	PerOD   map[string][][]Cell
}

// Table computes the report's rows once, for a page that reads each of
// them several times (the table, the chart's words, its marks).
func (rep *Report) Table() Table {
	t := Table{PerOD: map[string][][]Cell{}}
	for _, b := range rep.Budgets {
		t.Summary = append(t.Summary, rep.SummaryRow(b))
		for _, od := range rep.ODs {
			t.PerOD[od.OD] = append(t.PerOD[od.OD], rep.ODRow(od.OD, b))
		}
	}
	return t
}

func (rep *Report) summaryPools(budget float64) [][]float64 {
	pools := make([][]float64, len(rep.Methods))
	for i, m := range rep.Methods {
		for _, s := range rep.Summary {
			if s.Method == m && s.Budget == budget {
				pools[i] = s.PoolMeans
			}
		}
	}
	return pools
}

func (rep *Report) odPools(od string, budget float64) [][]float64 {
	pools := make([][]float64, len(rep.Methods))
	for i, m := range rep.Methods {
		for _, s := range rep.PerOD {
			if s.Method == m && s.OD == od && s.Budget == budget {
				pools[i] = s.PoolMeans
			}
		}
	}
	return pools
}

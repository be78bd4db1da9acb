package policy

import (
	"context"
	"math"
	"runtime"
	"sync"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/split"
)

// DOT is Prakash's time-discretized SOTA dynamic program (Prakash 2020,
// "Algorithms for most reliable routes on stochastic and time-dependent
// networks", Transportation Research Part B 138:202–220), the classic
// single-sweep recursion of Fan, Kalaba & Moore (2005) and Samaranayake et
// al. (2012) on the marginal link-time laws.
//
// u_d(t) = 1 for t ≥ 0, and for other nodes u_i(t) = max over links (i,j) of
// Σ_{k≥1} p_ij[k]·u_j(t − kΔ), where p_ij[k] is the probability that the
// link takes between (k−1)Δ and kΔ under the network's link-time law
// (rounded up, which is conservative; mass beyond m+6s is dropped). A time
// is rounded up to at least one step, so k ≥ 1 and one sweep in increasing
// t is exact. With a step cap
// the value also carries the number of links left, u^h_i(t), with u^0 = 0
// away from the destination. Correlation is ignored: DOT sees marginals only.
// One table per destination covers every budget up to the largest asked.
// The policy acts on (node, remaining budget, links left) by evaluating the
// recursion's right-hand side at the true remaining budget.
//
// Memory: a capped table holds (cap+1) × nodes × budget bins float32s, less
// the bins below each node's band (dotband.go: where its value is provably
// zero, so never stored). On a
// city (Chicago Regional: cap 162, 14,769 nodes, 1,400 bins) that is 13 GB
// a destination, so above DOTTableLimit the table drops the links-left
// dimension and solves the uncapped recursion (83 MB there); CapIgnored
// says so. The policy then still never takes a link from which the
// destination cannot be reached in the links left (fewest links, by
// breadth-first search): without that rule, an uncapped DOT that is behind
// schedule gambles on long detours and runs into the cap (Chicago Regional,
// pair 3392-2639 at 1.05 under spatial correlation: 163 of 500 episodes
// ended at the cap, and dot fell from let's 0.63 to 0.40).
type DOT struct {
	// wholeTables, set by tests, solves every bin of every node: the
	// unrestricted table the band is checked against (a field, not a
	// package switch, so that such tests run beside others).
	wholeTables bool
	net         *engine.Network
	Delta       float64
	cap         int
	pmf         []linkPMF
	mu          sync.Mutex
	tabs        map[int]*dotTable
	// solving: the tables being solved, closed when each is done
	solving map[int]chan struct{}
	hops    map[int][]int // fewest links to each destination
	in      [][]int       // each node's incoming links (inLinks)
	inOnce  sync.Once
	// costs[r][e] is link e's Chernoff cost at chernoffRates[r] (band)
	costs     [][]float64
	costsOnce sync.Once
	let       *LET // breaks ties between equal scores (see choice)
	round     *DOTRounding
	// CapIgnored is set when a table was too large to carry the step cap.
	CapIgnored bool
	// Ctx, when set, stops a solve within a level or a few budget bins of
	// its end (a canceled benchmark); the table left is marked partial and
	// solved again by the next caller whose context is live.
	Ctx context.Context
}

func (d *DOT) stopped() bool { return d.Ctx != nil && d.Ctx.Err() != nil }

// DOTTableLimit is the most bytes one destination's table may take with the
// links-left dimension; above it the table is uncapped (see DOT). A
// variable so that tests can force the uncapped path on a small network.
var DOTTableLimit int64 = 1 << 30

type linkPMF struct {
	lo int       // p[0] is the probability of bin lo (lo ≥ 1)
	p  []float64 //
}

type dotTable struct {
	n       int         // budget bins 0..n-1
	lo      []int32     // node i's band starts at bin lo[i] (0 below; see dotband.go)
	off     []int       // node i's bin lo[i] is at u[h][off[i]]
	u       [][]float32 // u[h][off[i] + b − lo[i]]: links left h (a single level without cap)
	partial bool        // the solve was canceled (DOT.Ctx): values not final
}

// NewDOT discretizes every link's marginal law with step delta, rounding
// every time up (the paper's rule).
func NewDOT(net *engine.Network, model *linktime.Gaussian, delta float64) *DOT {
	return NewDOTRounding(net, model, delta, "up")
}

// NewDOTRounding is NewDOT with the named rule of DOTRoundings (up when
// there is no such rule).
func NewDOTRounding(net *engine.Network, model *linktime.Gaussian, delta float64, rounding string) *DOT {
	r := dotRounding(rounding)
	if r == nil {
		r = &DOTRoundings[0]
	}
	d := &DOT{net: net, Delta: delta, cap: net.EpisodeCap(), tabs: map[int]*dotTable{}, solving: map[int]chan struct{}{}, hops: map[int][]int{}, let: NewLET(net), round: r}
	d.pmf = make([]linkPMF, len(net.Links))
	for e := range net.Links {
		d.pmf[e] = r.bin(model, e, model.Latent[e], model.SD[e], delta)
	}
	return d
}

// Rounding is the name of the rule the links' laws were binned by.
func (d *DOT) Rounding() string { return d.round.Name }

// scoreLatent scores the link into j whose law is the latent N(mu, sd²)
// (floored, or warped when model says so), binned by d's rule.
func (d *DOT) scoreLatent(model *linktime.Gaussian, e, dest, j int, mu, sd, remaining float64, left int) float64 {
	if d.round.scoreNormal != nil && !model.Warped(e) {
		return d.round.scoreNormal(d, dest, j, mu, sd, model.Floors[e], remaining, left)
	}
	return d.scorePMF(dest, j, d.round.bin(model, e, mu, sd, d.Delta), remaining, left)
}

// dotMaxBins bounds a binned link law's grid: times past dotMaxBins × Δ are
// dropped, as a law's mass past ±6 sd is. A table reaches so far only when
// its budgets are a thousand times its grid's (the step is a thousandth of
// the largest budget, at most 2³ halvings below it), so what is dropped is
// late at every budget a table holds; without it a link of 10⁶ minutes
// beside one of 0.001 (both accepted) asked for terabytes of bins.
const dotMaxBins = 1 << 20

// gridPos is x in steps of delta, at most dotMaxBins.
func gridPos(x, delta float64) float64 { return math.Min(x/delta, dotMaxBins) }

// discretize bins the law max(Y, floor), Y ~ N(mu, sd²) (a link's law, or
// its law conditioned on what was seen): bin k holds P((k−1)Δ < X ≤ kΔ),
// truncated at mu ± 6 sd, every time at least one step.
func discretize(mu, sd, floor, delta float64) linkPMF {
	floorBin := max(1, int(math.Ceil(gridPos(floor, delta)-1e-9)))
	if sd == 0 {
		return linkPMF{lo: max(floorBin, int(math.Ceil(gridPos(max(mu, floor), delta)-1e-9))), p: []float64{1}}
	}
	lo := max(floorBin, int(math.Ceil(gridPos(mu-6*sd, delta))))
	hi := max(lo, int(math.Ceil(gridPos(mu+6*sd, delta))))
	p := make([]float64, hi-lo+1)
	for k := lo; k <= hi; k++ {
		a, b := float64(k-1)*delta, float64(k)*delta
		if k == floorBin {
			a = math.Inf(-1) // the floor gathers all mass below it
		}
		p[k-lo] = phi((b-mu)/sd) - phi((a-mu)/sd)
	}
	return linkPMF{lo: lo, p: p}
}

// discretizeWarped bins a warped link's law (a skewed law's), its latent
// N(mu, sd²): bin k holds P((k−1)Δ < X ≤ kΔ), the law's times between the
// latent's ± 6 sd, the first bin all mass below it, every time at least
// one step.
func discretizeWarped(model *linktime.Gaussian, e int, mu, sd, delta float64) linkPMF {
	tlo, thi := model.TimeRange(e, mu, sd)
	if sd == 0 {
		return linkPMF{lo: max(1, int(math.Ceil(gridPos(tlo, delta)-1e-9))), p: []float64{1}}
	}
	lo := max(1, int(math.Ceil(gridPos(tlo, delta)-1e-9)))
	hi := max(lo, int(math.Ceil(gridPos(thi, delta)-1e-9)))
	p := make([]float64, hi-lo+1)
	prev := 0.0 // the first bin gathers all mass below it
	for k := lo; k <= hi; k++ {
		cur := model.TimeCDF(e, mu, sd, float64(k)*delta)
		p[k-lo] = cur - prev
		prev = cur
	}
	return linkPMF{lo: lo, p: p}
}

// tableBins is how many budget bins (0 to n−1) a table for budgets up to
// maxBudget holds: its last bin's time reaches past the budget.
func (d *DOT) tableBins(maxBudget float64) int { return int(math.Ceil(maxBudget/d.Delta)) + 1 }

// readBin is the bin a read at the given remaining budget takes: its floor
// on the grid, with a little slack so that a budget on a bin's edge, summed
// or scaled with rounding, still reads that bin.
func (d *DOT) readBin(remaining float64) int { return int(math.Floor(remaining/d.Delta + 1e-9)) }

// Solve builds (once) the table towards dest for budgets up to maxBudget.
// Tables towards different destinations are solved at once by concurrent
// callers (Env.DOT solves a benchmark's on every core); a caller asking
// for a table being solved waits for it.
func (d *DOT) Solve(dest int, maxBudget float64) {
	n := d.tableBins(maxBudget)
	d.mu.Lock()
	for {
		if t, ok := d.tabs[dest]; ok && t.n >= n && (!t.partial || d.stopped()) {
			d.mu.Unlock()
			return
		}
		wait, busy := d.solving[dest]
		if !busy {
			break
		}
		d.mu.Unlock()
		<-wait
		d.mu.Lock()
	}
	done := make(chan struct{})
	d.solving[dest] = done
	// The cores this solve fills its bins on: a share of them where other
	// tables are being solved beside it (a benchmark solves its
	// destinations at once, one a core).
	cores := max(1, runtime.GOMAXPROCS(0)/len(d.solving))
	d.mu.Unlock()
	t, capIgnored := d.solve(dest, n, cores)
	t.partial = d.stopped()
	d.mu.Lock()
	d.tabs[dest] = t
	d.CapIgnored = d.CapIgnored || capIgnored
	delete(d.solving, dest)
	close(done)
	d.mu.Unlock()
}

// solve solves the table towards dest over n bins (without d.mu held); it
// reports whether the table had to drop the links-left dimension.
func (d *DOT) solve(dest, n, cores int) (_ *dotTable, capIgnored bool) {
	lo := d.band(dest, n)
	off, size := bandLayout(lo, n)
	levels := 1
	capped := d.cap > 0 && int64(d.cap+1)*int64(size)*4 <= DOTTableLimit
	if capped {
		levels = d.cap + 1
	} else if d.cap > 0 {
		capIgnored = true
	}
	t := &dotTable{n: n, lo: lo, off: off, u: make([][]float32, levels)}
	order := byBand(lo, n)
	if !capped {
		t.u[0] = d.solveUncapped(dest, n, lo, off, size, order, cores)
		return t, capIgnored
	}
	// The levels' work rows are the capped table's alone (an uncapped
	// one's solve has its own): on Delaware they were 1.9 GB never read.
	prev := make([]float64, size)
	cur := make([]float64, size)
	// Level 0 with a cap: only the destination is "arrived".
	for b := range n {
		prev[off[dest]+b] = 1
	}
	store := func(h int, v []float64) {
		t.u[h] = make([]float32, len(v))
		for i, x := range v {
			t.u[h][i] = float32(x)
		}
	}
	store(0, prev)
	hops := d.fewestLinks(dest)
	for h := 1; h < levels; h++ {
		if d.stopped() {
			for ; h < levels; h++ {
				t.u[h] = t.u[0] // a canceled run's table: shaped, not solved
			}
			break
		}
		for _, i := range order {
			row := cur[off[i] : off[i]+n-int(lo[i])]
			if i == dest {
				for b := range row {
					row[b] = 1
				}
				continue
			}
			for b := range row {
				row[b] = 0
			}
			if hops[i] < 0 || hops[i] > h {
				continue // the destination is more than h links away: 0
			}
			for _, e := range d.net.Out(i) {
				j := d.net.Links[e].To
				if hops[j] < 0 || hops[j] > h-1 || int(lo[j]) >= n {
					continue
				}
				convAllBand(d.pmf[e], prev[off[j]:off[j]+n-int(lo[j])], int(lo[j]), row, int(lo[i]))
			}
		}
		store(h, cur)
		prev, cur = cur, prev
	}
	return t, capIgnored
}

// solveUncapped fills the one level of an uncapped table: in increasing
// budget, so that u_j(t − kΔ), k ≥ 1, is final when u_i(t) is computed.
// The work runs bin-major (each bin's values side by side, only the nodes
// whose band has begun: a prefix of order): a bin reads the few bins before
// it, which stay in cache, where a node-major row per node sent every read
// to another row (Delaware: 16 s a destination). The result is stored
// node-major, as the policies read it.
func (d *DOT) solveUncapped(dest, n int, lo []int32, off []int, size int, order []int, cores int) []float32 {
	rank := make([]int32, len(lo))
	for r, i := range order {
		rank[i] = int32(r)
	}
	// rowOff[b]: where bin b's values start; bin b holds cnt(b) nodes.
	rowOff := make([]int, n+1)
	active := 0
	for b := range n {
		for active < len(order) && int(lo[order[active]]) <= b {
			active++
		}
		rowOff[b+1] = rowOff[b] + active
	}
	// each active node's ways out, the heads' ranks and bands and the
	// links' laws flattened in the order the loop reads them
	type way struct {
		at, lo, hi   int32 // the law's bins lo..hi are p[at : at+hi−lo+1]
		rank, bandLo int32
	}
	start := make([]int, len(order)+1)
	var ways []way
	var p []float64
	for r, i := range order {
		for _, e := range d.net.Out(i) {
			if j := d.net.Links[e].To; int(lo[j]) < n {
				pm := d.pmf[e]
				ways = append(ways, way{int32(len(p)), int32(pm.lo), int32(pm.lo + len(pm.p) - 1), rank[j], lo[j]})
				p = append(p, pm.p...)
			}
		}
		start[r+1] = len(ways)
	}
	// A bin's sums reach back at most the longest law's last bin, so the
	// work values (float64, as the sums read them) are kept for the last
	// span bins only: Delaware's 0.96 GB became about 0.1 GB. at[b] is
	// where bin b's row starts in w.
	maxHi := 0
	for _, wy := range ways {
		maxHi = max(maxHi, int(wy.hi))
	}
	at, wLen := ringRows(rowOff, min(n, maxHi+1))
	w := make([]float64, wLen)
	u := make([]float32, size)
	width := len(order) // the most nodes a bin holds
	staged := make([]float32, dotStageBins*width)
	destRank := int(rank[dest])
	// fill computes bin b's values of the nodes ranked from to to, and
	// stages them for the table.
	fill := func(b, from, to int) {
		row := w[at[b] : at[b]+rowOff[b+1]-rowOff[b]]
		for r := from; r < to; r++ {
			best := 1.0
			if r != destRank {
				best = 0
				for _, wy := range ways[start[r]:start[r+1]] {
					kmax := min(int(wy.hi), b-int(wy.bandLo))
					base := int(wy.at) - int(wy.lo) // p[base+k] is the law's bin k
					rk := int(wy.rank)
					s := 0.0
					for k := int(wy.lo); k <= kmax; k++ {
						s += p[base+k] * w[at[b-k]+rk]
					}
					best = math.Max(best, s)
				}
			}
			row[r] = best
			staged[b%dotStageBins*width+r] = float32(best)
		}
	}
	// flush stores the staged bins from to to in the table, a node's bins
	// side by side (the table is node-major: storing each bin as it was
	// filled sent every value to another cache line, and slowed the sweep).
	flush := func(from, to int) {
		for r := range rowOff[to] - rowOff[to-1] {
			i := order[r]
			for b := max(from, int(lo[i])); b < to; b++ {
				u[off[i]+b-int(lo[i])] = staged[b%dotStageBins*width+r]
			}
		}
	}
	// A bin's nodes read only earlier bins when every law starts at bin 1
	// or later (a time under one step still takes one), so they are filled
	// side by side, a part a core, each value by the same sums as alone. A
	// single pair's table (the plan, Live) used one core: Delaware's took
	// 43 s.
	for _, wy := range ways {
		if wy.lo < 1 {
			cores = 1
		}
	}
	b := 0
	for ; b < n; b++ {
		if b%dotStageBins == 0 {
			if b > 0 {
				flush(b-dotStageBins, b)
			}
			if d.stopped() {
				break
			}
		}
		cnt := rowOff[b+1] - rowOff[b]
		split.Ranges(cnt, min(cores, cnt/dotPartNodes), func(_, from, to int) { fill(b, from, to) })
	}
	if b == n && n > 0 {
		flush((n-1)/dotStageBins*dotStageBins, n) // the last bins, a block or less
	}
	return u
}

// ringRows lays out bins' rows (bin b holds rowOff[b+1] − rowOff[b]
// values, never fewer than bin b − 1) in a circular buffer that keeps the
// last span bins' rows: each row follows the one before, back at the
// start where it would run past the end. The buffer is the most values
// span bins in a row hold, and one row more for the gap a wrap leaves, so
// a row never overwrites one of the span − 1 bins before it. Rows stay
// packed as in a whole layout (a slot as wide as the widest row made the
// sweep's reads 15% slower), and where the whole layout is no larger it
// is the layout.
func ringRows(rowOff []int, span int) (at []int, size int) {
	n := len(rowOff) - 1
	widest := rowOff[n] - rowOff[n-1]
	size = widest
	for b := range n {
		size = max(size, rowOff[b+1]-rowOff[max(0, b+1-span)]+widest)
	}
	if size >= rowOff[n] {
		return rowOff[:n], rowOff[n]
	}
	at = make([]int, n)
	pos := 0
	for b := range n {
		cnt := rowOff[b+1] - rowOff[b]
		if pos+cnt > size {
			pos = 0
		}
		at[b] = pos
		pos += cnt
	}
	return at, size
}

// dotStageBins is how many bins an uncapped sweep fills before storing
// them in the table: a node's 16 float32 values are one cache line.
const dotStageBins = 16

// dotPartNodes is the fewest nodes of a bin a core fills: about half a
// millisecond of work, far above what starting it costs.
var dotPartNodes = 2048

// convAllBand sets row[b] = max(row[b], Σ_k p_e[k]·u(b − k)) for every bin
// b of row's band (from rowLo), u's band starting at uLo.
func convAllBand(pm linkPMF, u []float64, uLo int, row []float64, rowLo int) {
	n := rowLo + len(row)
	for b := max(rowLo, pm.lo+uLo); b < n; b++ {
		kmax := min(pm.lo+len(pm.p)-1, b-uLo)
		s := 0.0
		base := b - uLo
		for k := pm.lo; k <= kmax; k++ {
			s += pm.p[k-pm.lo] * u[base-k]
		}
		if s > row[b-rowLo] {
			row[b-rowLo] = s
		}
	}
}

// at is the table's value at level h, node i, bin b (0 below the node's
// band).
func (t *dotTable) at(h, i, b int) float32 {
	if b < int(t.lo[i]) {
		return 0
	}
	return t.u[h][t.off[i]+b-int(t.lo[i])]
}

// row is node i's band at level h and the bin it starts at.
func (t *dotTable) row(h, i int) ([]float32, int) {
	return t.u[h][t.off[i] : t.off[i]+t.n-int(t.lo[i])], int(t.lo[i])
}

// Value is the table's on-time probability from node i with the given
// remaining budget and links left (ignored without a cap).
func (d *DOT) Value(dest, i int, remaining float64, left int) float64 {
	t := d.table(dest, remaining)
	b := d.readBin(remaining)
	if b < 0 {
		return 0
	}
	b = min(b, t.n-1)
	return float64(t.at(t.level(left), i, b))
}

// LeastBudget is the least budget on the table's grid (a multiple of
// Delta) from which the table's value at origin, with every link left,
// reaches alpha, searched up to maxBudget: the table's own answer to "how
// much time for α", exact for the links' marginal laws with times rounded
// up to the grid (so at least the exact least budget of those laws, and
// within a step of it per link of the route). ok is false when the value
// at maxBudget stays below alpha. The value grows with the budget, so
// bisection over the grid's bins finds it.
func (d *DOT) LeastBudget(dest, origin int, alpha, maxBudget float64) (budget float64, ok bool) {
	left := d.cap
	hi := d.readBin(maxBudget)
	if d.Value(dest, origin, float64(hi)*d.Delta, left) < float32ToAlpha(alpha) {
		return 0, false
	}
	lo := -1 // the value at bin lo is below alpha (bin −1: no time at all)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if d.Value(dest, origin, float64(mid)*d.Delta, left) >= float32ToAlpha(alpha) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return float64(hi) * d.Delta, true
}

// float32ToAlpha is alpha as the table stores values (float32), so that a
// value equal to alpha in float32 counts as reaching it.
func float32ToAlpha(alpha float64) float64 { return float64(float32(alpha)) }

// table is the table towards dest holding the bin a read at remaining
// reads (floor(remaining/Δ), as Value and the scores read it), solved if it
// is not there yet. A budget a fraction of a bin past the table's last bin
// reads that last bin: solving again there (as the plan's episodes at its
// largest budget did after its table answer) redid the whole table.
func (d *DOT) table(dest int, remaining float64) *dotTable {
	d.mu.Lock()
	t, ok := d.tabs[dest]
	d.mu.Unlock()
	if !ok || d.readBin(remaining) > t.n-1 {
		d.Solve(dest, remaining)
		d.mu.Lock()
		t = d.tabs[dest]
		d.mu.Unlock()
	}
	return t
}

// level is the table level for links left (0 in an uncapped table).
func (t *dotTable) level(left int) int {
	if len(t.u) == 1 {
		return 0
	}
	return max(0, min(left, len(t.u)-1))
}

// score is the recursion's right-hand side for link e at the true remaining
// budget: Σ_k p_e[k]·u^{left−1}_j(remaining − kΔ).
func (d *DOT) score(dest, e int, remaining float64, left int) float64 {
	return d.scorePMF(dest, d.net.Links[e].To, d.pmf[e], remaining, left)
}

// scorePMF integrates a link-time law pm against u^{left−1}_j.
func (d *DOT) scorePMF(dest, j int, pm linkPMF, remaining float64, left int) float64 {
	t := d.table(dest, remaining)
	b := d.readBin(remaining)
	if b < 0 {
		return 0
	}
	b = min(b, t.n-1)
	u, uLo := t.row(t.level(left-1), j)
	s := 0.0
	for k := pm.lo; k < pm.lo+len(pm.p) && k <= b-uLo; k++ {
		s += pm.p[k-pm.lo] * float64(u[b-k-uLo])
	}
	return s
}

// Act takes the link with the highest DOT value at the remaining budget
// (among equal values, one to a node not yet visited, then the one with the
// least expected time ahead; see choice).
func (d *DOT) Act(o *engine.Observation) int { return d.choose(o).link }

// choose is Act's whole choice: its tied flag says whether the route so far
// could have mattered (otherwise the choice is a function of node, budget
// bin and links left, which the rollout's memo relies on).
func (d *DOT) choose(o *engine.Observation) choice {
	left := d.cap - o.Step
	return argmax(d.feasible(o, left), func(e int) float64 { return d.score(o.Destination, e, o.Remaining, left) },
		freshHead(d.net, o), letAhead(d.let, o.Destination))
}

// feasible lists the links out of o's node a policy on the table may take:
// all of them with a capped table (its values already know the links
// left), else those from whose head the destination is reachable in the
// links left (all of them when none is: the episode is lost either way).
func (d *DOT) feasible(o *engine.Observation, left int) []int {
	out := d.net.Out(o.Node)
	t := d.table(o.Destination, o.Remaining)
	if d.cap <= 0 || len(t.u) > 1 {
		return out
	}
	hops := d.fewestLinks(o.Destination)
	var ok []int
	for _, e := range out {
		if h := hops[d.net.Links[e].To]; h >= 0 && h <= left-1 {
			ok = append(ok, e)
		}
	}
	if len(ok) == 0 {
		return out
	}
	return ok
}

// fewestLinks is every node's least number of links to dest (−1 where it
// cannot be reached), by breadth-first search over the reversed links.
func (d *DOT) fewestLinks(dest int) []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.fewestLinksLocked(dest)
}

// fewestLinksLocked is fewestLinks with d.mu held.
func (d *DOT) fewestLinksLocked(dest int) []int {
	if h, ok := d.hops[dest]; ok {
		return h
	}
	in := d.inLinks()
	h := make([]int, len(d.net.Nodes))
	for i := range h {
		h[i] = -1
	}
	h[dest] = 0
	queue := []int{dest}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, e := range in[v] {
			if u := d.net.Links[e].From; h[u] < 0 {
				h[u] = h[v] + 1
				queue = append(queue, u)
			}
		}
	}
	d.hops[dest] = h
	return h
}

// scoreNormal is scorePMF(dest, j, discretize(mu, sd, floor, Δ), …) without
// building the PMF: each bin edge's Φ is computed once and only the bins the
// remaining budget reaches are summed, in the same order, so the value is
// the same to the last bit (TestScoreNormalEqualsDiscretized). cdot calls it
// for every outgoing link at every step: a link with σ = 3 min on a 0.03-min
// grid has 1,200 bins.
func (d *DOT) scoreNormal(dest, j int, mu, sd, floor, remaining float64, left int) float64 {
	if sd == 0 {
		return d.scorePMF(dest, j, discretize(mu, sd, floor, d.Delta), remaining, left)
	}
	t := d.table(dest, remaining)
	b := d.readBin(remaining)
	if b < 0 {
		return 0
	}
	b = min(b, t.n-1)
	u, uLo := t.row(t.level(left-1), j)
	delta := d.Delta
	floorBin := max(1, int(math.Ceil(floor/delta-1e-9)))
	lo := max(floorBin, int(math.Ceil((mu-6*sd)/delta)))
	hi := max(lo, int(math.Ceil((mu+6*sd)/delta)))
	s := 0.0
	prev := phi((float64(lo-1)*delta - mu) / sd)
	if lo == floorBin {
		prev = phi(math.Inf(-1)) // the floor gathers all mass below it
	}
	for k := lo; k <= hi && k <= b-uLo; k++ {
		cur := phi((float64(k)*delta - mu) / sd)
		s += (cur - prev) * float64(u[b-k-uLo])
		prev = cur
	}
	return s
}

package policy

import (
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// The methods that know the clock (Method.Timed), on a network whose law
// changes over the day: each reads the clock time of its observation
// (engine.Observation.Clock) and the law at that hour (engine.Clock).

// clockKey rounds a clock time for a map key: a departure rebuilt from an
// observation (its clock less the prefix's times) differs from the task's
// in the last bits.
func clockKey(t float64) int64 { return int64(math.Round(t * 1e6)) }

// TimedLET follows the time-dependent least-expected-time path: the
// earliest arrival on expected link times at the hour each link is entered,
// leaving the origin at the episode's departure (fixed for the trip, as
// the static LET's path is). It is exact on expected times where they are
// FIFO (the Clock's check says where not).
type TimedLET struct {
	net   *engine.Network
	paths sync.Map // departKey → []int
}

type departKey struct {
	origin, dest int
	depart       int64
}

// NewTimedLET is the time-dependent LET policy on net.
func NewTimedLET(net *engine.Network) *TimedLET { return &TimedLET{net: net} }

// Path is the time-dependent LET path from origin, leaving at depart, to
// dest, and its expected arrival time.
func (p *TimedLET) Path(origin, dest int, depart float64) ([]int, float64) {
	return p.net.EarliestArrival(origin, dest, depart, p.net.MeanTimeAt())
}

func (p *TimedLET) path(origin, dest int, depart float64) []int {
	k := departKey{origin, dest, clockKey(depart)}
	if v, ok := p.paths.Load(k); ok {
		return v.([]int)
	}
	path, _ := p.Path(origin, dest, depart)
	p.paths.Store(k, path)
	return path
}

// Act takes the path's next link: the path from the episode's origin at
// its departure (rebuilt from the prefix), or, where the episode has left
// it, the path from here and now.
func (p *TimedLET) Act(o *engine.Observation) int {
	origin, depart := o.Node, o.Clock
	if len(o.Prefix) > 0 {
		origin = p.net.Links[o.Prefix[0].Link].From
		for _, s := range o.Prefix {
			depart -= s.Time
		}
	}
	path := p.path(origin, o.Destination, depart)
	if o.Step < len(path) && p.net.Links[path[o.Step]].From == o.Node {
		return path[o.Step]
	}
	if path = p.path(o.Node, o.Destination, o.Clock); len(path) > 0 {
		return path[0]
	}
	return p.net.Out(o.Node)[0] // unreachable: any link fails alike
}

// BestTimeAt makes the clairvoyant bound know the clock: the earliest
// arrival on the realized day, each link's time the one its static draw
// gives at the hour it is entered (exact where the day's times are FIFO).
func (c *Clairvoyant) BestTimeAt(od engine.OD, maxLinks int, x []float64, depart float64) float64 {
	net := c.net
	w := func(e int, t float64) float64 { return net.Clock.Time(e, t, x[e], net.Links[e].Mean) }
	return net.EarliestArrivalCapped(od.Origin, od.Destination, maxLinks, depart, w) - depart
}

// TimedDOT is the time-dependent on-time DP to a deadline D: u_i(t) =
// max over links i→j of E[u_j(t + X_ij(t))], u_dest(t) = 1 for t ≤ D, each
// link's law the one at the hour t it is entered (Fan & Nie 2006; the
// clock form of Prakash's DOT). It is solved on a grid of remaining time
// r = D − t in steps of Delta, a link's time rounded up to whole steps (so
// its value is a lower bound, exact at its resolution for independent
// links), and the policy reads the table at the remaining time rounded
// down. One table per destination and deadline covers every departure
// before it: the departure-time curve is its origin's row.
type TimedDOT struct {
	net   *engine.Network
	model *linktime.Gaussian
	Delta float64
	mu    sync.Mutex
	keys  map[deadlineKey]*timedTable

	readOnce sync.Once
	read     float64 // the clock read (clockRead)
	letOnce  sync.Once
	let      *LET // the static LET trees, for ties
}

type deadlineKey struct {
	dest     int
	deadline int64
}

// timedTable is one destination's and deadline's table: value[k][i] at
// remaining time k·Delta. The link to take is chosen at each decision
// (actWith), where the route so far is known.
type timedTable struct {
	once     sync.Once
	deadline float64
	horizon  float64
	value    [][]float64
}

// NewTimedDOT is an unsolved time-dependent DOT at step delta.
func NewTimedDOT(net *engine.Network, model *linktime.Gaussian, delta float64) *TimedDOT {
	return &TimedDOT{net: net, model: model, Delta: delta, keys: map[deadlineKey]*timedTable{}}
}

// table is the table towards dest for deadline, solved over at least
// horizon minutes of remaining time (a table solved for less is solved
// again for the longer horizon).
func (d *TimedDOT) table(dest int, deadline, horizon float64) *timedTable {
	k := deadlineKey{dest, clockKey(deadline)}
	d.mu.Lock()
	t, ok := d.keys[k]
	if !ok || t.horizon < horizon {
		t = &timedTable{deadline: deadline, horizon: max(horizon, 1e-9)}
		d.keys[k] = t
	}
	d.mu.Unlock()
	t.once.Do(func() { d.solve(dest, t) })
	return t
}

// Solve solves the table towards dest for the deadline over horizon
// minutes before it.
func (d *TimedDOT) Solve(dest int, deadline, horizon float64) { d.table(dest, deadline, horizon) }

// clockRead is how finely the time-dependent DOT reads the clock a link
// is entered at: finely enough that no link's law moves by more than one
// grid step between reads (its mean, and its spread at 4 standard
// deviations: the largest change of m·μ and of m·s·4σ over a knot step,
// per minute), within 1/1000 of the knot step and the step itself. The
// law is linear between knots, so a link's step probabilities are then
// computed once per read instead of once per row (a row is a thousandth
// of the budget): Rushtown's benchmark took 29 s computing each anew.
func (d *TimedDOT) clockRead() float64 {
	d.readOnce.Do(func() { d.read = d.findClockRead() })
	return d.read
}

// readAt is the clock read the tables use for clock time t.
func (d *TimedDOT) readAt(t float64) float64 {
	read := d.clockRead()
	return math.Round(t/read) * read
}

func (d *TimedDOT) findClockRead() float64 {
	net, c := d.net, d.net.Clock
	k := c.Knots()
	slope := 0.0
	for e, l := range net.Links {
		sd := math.Sqrt(l.Var)
		for j := range k {
			m0, s0 := c.At(e, float64(j)*c.Step)
			m1, s1 := c.At(e, float64(j+1)*c.Step)
			slope = max(slope, math.Abs(m1-m0)*l.Mean/c.Step, math.Abs(m1*s1-m0*s0)*4*sd/c.Step)
		}
	}
	if slope == 0 {
		return c.Step
	}
	return min(max(d.Delta/slope, c.Step/1000), c.Step)
}

// solve fills t by increasing remaining time: a link takes at least one
// step, so row k reads only rows below it.
func (d *TimedDOT) solve(dest int, t *timedTable) {
	net := d.net
	K := int(math.Ceil(t.horizon/d.Delta)) + 1
	n := len(net.Nodes)
	t.value = make([][]float64, K)
	read := d.clockRead()
	st := &timedSolve{d: d, t: t, dest: dest, rows: K, read: read,
		pmfs: make([][]float64, len(net.Links)), first: make([]int, len(net.Links)), readAt: make([]int64, len(net.Links))}
	for e := range st.readAt {
		st.readAt[e] = math.MinInt64
	}
	// A row's nodes read only rows below it, and each link is one node's
	// (its tail's), so a row's nodes are solved in parts at once: Chicago
	// Regional's 3-hour window took 176 s on one core.
	parts := 1
	if n >= timedParallelNodes {
		parts = runtime.GOMAXPROCS(0)
	}
	for k := range K {
		val := make([]float64, n)
		r := int64(math.Round((t.deadline - float64(k)*d.Delta) / read))
		var wg sync.WaitGroup
		for p := range parts {
			wg.Go(func() { st.nodes(k, r, val, p*n/parts, (p+1)*n/parts) })
		}
		wg.Wait()
		t.value[k] = val
	}
}

// timedSolve is one table's solve: each link's step probabilities at its
// last clock read (pmfs[e][m] is P(takes first[e]+m+1 steps), read at
// readAt[e]).
type timedSolve struct {
	d      *TimedDOT
	t      *timedTable
	dest   int
	rows   int
	read   float64
	pmfs   [][]float64
	first  []int
	readAt []int64
}

// timedParallelNodes is the network size from which a row is solved in
// parts at once (below it the goroutines cost more than they save).
const timedParallelNodes = 2000

// nodes fills row k's values of nodes lo to hi−1 (clock read r).
func (st *timedSolve) nodes(k int, r int64, val []float64, lo, hi int) {
	d, t := st.d, st.t
	net, g := d.net, d.model
	for i := lo; i < hi; i++ {
		if i == st.dest {
			val[i] = 1
			continue
		}
		for _, e := range net.Out(i) {
			if st.readAt[e] != r {
				st.readAt[e] = r
				st.first[e], st.pmfs[e] = d.linkPMF(st.pmfs[e][:0], g, e, float64(r)*st.read, st.rows)
			}
			j := net.Links[e].To
			v := 0.0
			for m, p := range st.pmfs[e] { // first+m+1 steps
				s := st.first[e] + m + 1
				if s > k {
					break // late whatever follows
				}
				if p > 0 {
					v += p * t.value[k-s][j]
				}
			}
			val[i] = max(val[i], v)
		}
	}
}

// linkPMF is P(link e, entered at clock, takes m+1 steps) for m+1 ≤ most,
// from the first step with any probability: it returns that step less
// one (first) and the probabilities from there (dst reused).
func (d *TimedDOT) linkPMF(dst []float64, g *linktime.Gaussian, e int, clock float64, most int) (int, []float64) {
	return d.linkPMFGiven(dst, g, e, clock, most, g.Latent[e], g.SD[e])
}

// linkPMFGiven is linkPMF with the link's latent normal N(mean, sd²) in
// place of its marginal: cdot's law given the times seen.
func (d *TimedDOT) linkPMFGiven(dst []float64, g *linktime.Gaussian, e int, clock float64, most int, mean, sd float64) (int, []float64) {
	net := d.net
	mu := net.Links[e].Mean
	cdf := func(y float64) float64 {
		x := net.Clock.StaticBound(e, clock, y, mu)
		switch {
		case math.IsInf(x, 1):
			return 1
		case math.IsInf(x, -1):
			return 0
		}
		if sd == 0 {
			if g.TimeOf(e, mean) <= x {
				return 1
			}
			return 0
		}
		if g.Warped(e) {
			return g.TimeCDF(e, mean, sd, x)
		}
		if x < g.Floors[e] {
			return 0
		}
		return phi((x - mean) / sd) // erfc was four fifths of the time
	}
	// the first step with any probability, by bisection (the CDF rises)
	lo, hi := 0, most // cdf(lo·Δ) = 0 < cdf(hi·Δ), or none below most
	if cdf(float64(hi)*d.Delta) == 0 {
		return most, dst
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if cdf(float64(mid)*d.Delta) == 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	prev := 0.0
	for m := lo + 1; m <= most; m++ {
		c := cdf(float64(m) * d.Delta)
		dst = append(dst, c-prev)
		prev = c
		if c >= 1 {
			break
		}
	}
	return lo, dst
}

// Value is the table's on-time probability at node i with remaining time
// r before the deadline (read at r rounded down to the grid).
func (d *TimedDOT) Value(dest, i int, deadline, r float64) float64 {
	if r < 0 {
		return 0
	}
	t := d.table(dest, deadline, r)
	return t.value[min(int(r/d.Delta), len(t.value)-1)][i]
}

// Act takes the link of the highest value at the observation's node and
// remaining time, each link's law its marginal; the deadline is its clock
// plus the budget left.
func (d *TimedDOT) Act(o *engine.Observation) int {
	g := d.model
	return d.actWith(o, func(e int) (float64, float64) { return g.Latent[e], g.SD[e] })
}

// actWith decides at o with each outgoing link's latent law given by law
// (its marginal for dot, its law given the times seen for cdot): the
// link's value is its law, read at the clock of the table's row and binned
// as the table is, against the table at its head. Equal values (within
// scoreTie) are broken as the static planners break them (choice): a node
// not yet visited, then the least static expected time ahead. A table
// holds no chosen link: ties chosen there by a fixed rule (the static LET
// link) still sent trips round a loop when a long budget saturated every
// value at 1 to within its rounding (Rushtown, independent links, an hour
// early: 29, 28, 29, 28).
func (d *TimedDOT) actWith(o *engine.Observation, law func(e int) (mean, sd float64)) int {
	net := d.net
	r := max(o.Remaining, 0)
	t := d.table(o.Destination, o.Clock+o.Remaining, r)
	rows := min(int(r/d.Delta), len(t.value)-1)
	clock := d.readAt(t.deadline - float64(rows)*d.Delta)
	d.letOnce.Do(func() { d.let = NewLET(net) })
	best := newChoice()
	fresh, ahead := freshHead(net, o), letAhead(d.let, o.Destination)
	var pmf []float64
	for _, e := range net.Out(o.Node) {
		mean, sd := law(e)
		var first int
		first, pmf = d.linkPMFGiven(pmf[:0], d.model, e, clock, rows, mean, sd)
		j := net.Links[e].To
		v := 0.0
		for m, p := range pmf {
			s := first + m + 1
			if s > rows {
				break
			}
			v += p * t.value[rows-s][j]
		}
		best.offer(e, v, fresh(e), ahead(e))
	}
	if best.link < 0 {
		return net.Out(o.Node)[0]
	}
	return best.link
}

// timedDOTDelta is the time-dependent DOT's step: the static grid's step
// for the tasks, at least a thousandth of the longest budget.
func timedDOTDelta(env *Env) float64 {
	if env.DOTDelta > 0 {
		return env.DOTDelta
	}
	b := 0.0
	for _, t := range env.Tasks {
		b = max(b, t.Budget)
	}
	if b == 0 {
		return 0.1
	}
	return b / 1000
}

// TimedDOT is the env's time-dependent DOT, its tables for the tasks'
// deadlines solved (one destination and deadline at a time).
func (env *Env) TimedDOT() *TimedDOT {
	env.timedOnce.Do(func() {
		env.timedDOT = NewTimedDOT(env.Net, env.Model, timedDOTDelta(env))
		for _, t := range env.Tasks {
			if env.SolveFor == nil || slices.Contains(env.SolveFor, t.OD.Destination) {
				env.timedDOT.Solve(t.OD.Destination, t.Deadline(), t.Budget)
			}
		}
	})
	return env.timedDOT
}

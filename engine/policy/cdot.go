package policy

import (
	"math"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// CDOT is DOT made history-aware at low cost: at each node, for each
// outgoing link e = (i, j), the law of X_e conditioned on the links observed
// so far (the Gaussian regression), discretized on DOT's grid, is integrated
// against DOT's value table u_j at the remaining budget minus X_e. It reuses
// the per-destination tables of `dot`, so no new solve per decision; the
// links after e are still judged by their marginals.
type CDOT struct {
	dot   *DOT
	model *linktime.Gaussian
	conds *condCache // each running episode's conditioned model
}

// Act takes the link with the highest conditional DOT value (ties as in
// choice). A link the route has already driven is scored by where it leads
// (see throughDriven), not by DOT's table at its head.
func (c *CDOT) Act(o *engine.Observation) int {
	cond := c.conds.condition(o)
	d := c.dot
	left := d.cap - o.Step
	unseen := func(e int, remaining float64, left int) float64 {
		mean, sd := cond.Latent(e)
		return d.scoreLatent(c.model, e, o.Destination, d.net.Links[e].To, mean, sd, remaining, left)
	}
	var driven map[int]float64
	if leftBefore(d.net, o.Prefix, o.Node) { // the only place a driven link can be a way out
		driven = drivenTimes(o.Prefix)
	}
	return argmaxLink(d.feasible(o, left), func(e int) float64 {
		if t, ok := driven[e]; ok {
			return c.throughDriven(o, e, t, left, driven, unseen)
		}
		return unseen(e, o.Remaining, left)
	}, freshHead(d.net, o), letAhead(d.let, o.Destination))
}

// drivenTimes is each driven link's time.
func drivenTimes(prefix []engine.Step) map[int]float64 {
	m := make(map[int]float64, len(prefix))
	for _, s := range prefix {
		m[s.Link] = s.Time
	}
	return m
}

// throughDriven scores a driven link e by where it leads: its time is
// known, so it is worth the best unseen way out of any node reachable from
// its head over driven links, at the budget left after the fastest such
// drive (or arrival, if the destination is among them).
//
// Scoring it like an unseen link — its known time, then DOT's marginal
// table at its head — made cdot loop: under positive correlation, after a
// slow start, every unseen link looks slow while a link already driven fast
// is known, and the table beyond it still promised the marginal way on, so
// at each end of the link the way back looked best (Delaware, spatial-factor,
// pair 4339145682-178623092 at budget 1.00: 113 of 200 episodes drove a link
// twice, 198 links a trip against dot's 128). Scored by where it leads, a
// drive back is worth only what the unseen ways out there are worth, less
// the time it takes, and a node already left is never worth more than it was.
func (c *CDOT) throughDriven(o *engine.Observation, e int, t float64, left int, driven map[int]float64,
	unseen func(e int, remaining float64, left int) float64) float64 {
	net := c.dot.net
	type reach struct {
		time  float64
		links int
	}
	best := map[int]reach{net.Links[e].To: {t, 1}}
	done := map[int]bool{}
	score := 0.0
	for {
		k, r := -1, reach{time: math.Inf(1)}
		for n, x := range best {
			if !done[n] && (x.time < r.time || x.time == r.time && n < k) {
				k, r = n, x
			}
		}
		if k < 0 || r.time > o.Remaining {
			return score
		}
		done[k] = true
		if c.dot.cap > 0 && r.links >= left {
			continue // no link left to take from k
		}
		if k == o.Destination {
			return 1 // arrived on time: nothing scores higher
		}
		for _, f := range net.Out(k) {
			if tf, ok := driven[f]; ok {
				j := net.Links[f].To
				if x, seen := best[j]; !seen || r.time+tf < x.time {
					best[j] = reach{r.time + tf, r.links + 1}
				}
				continue
			}
			score = math.Max(score, unseen(f, o.Remaining-r.time, left-r.links))
		}
	}
}

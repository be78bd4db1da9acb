package policy

import (
	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"gonum.org/v1/gonum/floats"
)

// TimedCGR is cgr on a law that changes over the day: the times seen are
// read back to the static law's scale at the hours they were entered
// (Clock.StaticTime) and the joint Gaussian conditioned on them, as cgr
// does; each candidate route's sum then reads every link's law at the
// clock time it is expected to be entered (leaving now, each link taking
// its mean at its hour). A link's time there is m·(μ + s·(X − μ)) in its
// static time X (but for the floor, far in the left tail), so the route's
// time is a weighted sum of the static times, Gaussian as cgr's is.
type TimedCGR struct{ *CGR }

// NewTimedCGR is cgr with k continuations, reading the clock.
func NewTimedCGR(net *engine.Network, model *linktime.Gaussian, k int) *TimedCGR {
	c := NewCGR(net, model, k)
	c.conds.timed = net
	return &TimedCGR{c}
}

// Act scores each outgoing link by its best continuation at the hours it
// would be driven, avoiding routes back to nodes left, as cgr does (its
// conditioned law kept per episode reads the times back at their hours).
func (c *TimedCGR) Act(o *engine.Observation) int { return c.decide(o, c.actAt) }

// condition conditions the static law on the prefix's times read back at
// the clock times each link was entered (kept per episode, one link more
// at each decision, as cgr's are).
func (c *TimedCGR) condition(o *engine.Observation) *linktime.Conditional {
	return c.conds.condition(o)
}

// actAt is act with each route's links read at their expected hours.
//
// With independent links a route's time is the exact weighted sum of its
// links' (WeightedSum). With correlated links it is read off cgr's own
// route loadings (the unweighted conditional sum, kept per link and
// destination) scaled by the route's average weight w̄ (by each link's
// SD): mean = Σ m·μ + w̄·(conditional − unconditional mean of the sum), SD
// = w̄ · its SD. Exact where a route's weights are equal (a flat day, or a
// route inside one knot step); the weighted sums themselves, one loading
// of a link's length per route link, took two thirds of Anaheim's
// departure-time curve (116 s).
func (c *TimedCGR) actAt(o *engine.Observation, cond *linktime.Conditional, avoid *nodeSet) int {
	net, g := c.net, c.model
	best := newChoice()
	fresh := freshHead(net, o)
	independent, keep := g.F == nil, g.RegressesLinks()
	var load []float64 // the factors' space: a scratch sum
	if !independent && !keep {
		_, r := g.F.Dims()
		load = make([]float64, r)
	}
	var route []int
	var w []float64
	for _, e := range net.Out(o.Node) {
		fe := fresh(e)
		conts := c.continuations(net.Links[e].To, o.Destination)
		var sums []*linktime.Loading
		if keep {
			sums = c.sumsVia(e, o.Destination, conts)
		}
		for i, p := range conts {
			if c.cap > 0 && o.Step+1+len(p.links) > c.cap || avoid != nil && c.comesBack(e, p, avoid) {
				continue
			}
			route = append(append(route[:0], e), p.links...)
			w = w[:0]
			shift, at := 0.0, o.Clock
			wMean, wSD, sdSum := 0.0, 0.0, 0.0
			for _, f := range route {
				mu := net.Links[f].Mean
				m, s := net.Clock.At(f, at)
				w = append(w, m*s)
				shift += m * mu * (1 - s)
				wMean += m * s * g.Mean[f]
				wSD += m * s * g.SumSD(f)
				sdSum += g.SumSD(f)
				at += m * mu
			}
			var mean, sd float64
			if independent {
				mean, sd = cond.WeightedSum(route, w)
			} else {
				var m0, sd0 float64
				if keep {
					m0, sd0 = cond.LoadedOf(sums[i])
				} else {
					floats.AddTo(load, p.load, g.SumRow(e))
					m0, sd0 = cond.Loaded(p.mean+g.Mean[e], load, p.own+g.SumIdioVar(e))
				}
				wbar := 1.0
				if sdSum > 0 {
					wbar = wSD / sdSum
				}
				mean, sd = wMean+wbar*(m0-(p.mean+g.Mean[e])), wbar*sd0
			}
			mean += shift
			best.offer(e, onTime(o.Remaining, mean, sd), fe, mean)
		}
	}
	return best.link
}

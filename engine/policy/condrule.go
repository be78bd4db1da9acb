package policy

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// CondRule is a one-step rule that uses history: at each node, for every
// outgoing link e, it scores the route "e, then the LET path from e's head"
// by its on-time probability Φ((remaining − μ)/σ) under the Gaussian model
// conditioned on the links observed so far, and takes the best (the first in
// source order among equals). On the five-node example it is the optimal
// adaptive rule: at B it compares P(on time) of the two branches given the
// observed A→B time, reaching ½ + [arctan(1.5/√1.75) − arctan(1/√2)]/(2π).
// With no history it sees identical branches and stays at 0.5.
type CondRule struct {
	let   *LET
	model *linktime.Gaussian
}

// NewCondRule returns the rule for the network's model.
func NewCondRule(let *LET, model *linktime.Gaussian) *CondRule {
	return &CondRule{let: let, model: model}
}

// Act scores each outgoing link and returns the best.
func (p *CondRule) Act(o *engine.Observation) int {
	net := p.let.net
	cond := conditionOn(p.model, o)
	tree := p.let.Tree(o.Destination)
	best, bestP := -1, -1.0
	for _, e := range net.Out(o.Node) {
		head := net.Links[e].To
		if tree.Hops[head] < 0 {
			continue
		}
		route := append([]int{e}, tree.Path(head, net)...)
		mean, sd := cond.Sum(route)
		// Scores within scoreTie are equal: covariances recomputed from an
		// eigen factor differ in the last bits, and letting that noise
		// order two identical branches would make the choice depend on the
		// remaining budget by accident.
		if pr := onTime(o.Remaining, mean, sd); pr > bestP+scoreTie {
			best, bestP = e, pr
		}
	}
	if best < 0 {
		return net.Out(o.Node)[0]
	}
	return best
}

var stdNormal = distuv.UnitNormal

const scoreTie = 1e-9

// argmaxLink returns the link of links with the highest score, the first
// among scores within scoreTie, or -1 for no links.
func argmaxLink(links []int, score func(e int) float64) int {
	best, bestV := -1, math.Inf(-1)
	for _, e := range links {
		if v := score(e); v > bestV+scoreTie {
			best, bestV = e, v
		}
	}
	return best
}

// onTime is P(X ≤ budget) for X ~ N(mean, sd²); a point mass when sd = 0.
func onTime(budget, mean, sd float64) float64 {
	if sd == 0 {
		if mean <= budget {
			return 1
		}
		return 0
	}
	return stdNormal.CDF((budget - mean) / sd)
}

// TwoBranchOptimum is the closed-form adaptive optimum of the five-node
// example at T = 106: ½ + [arctan(1.5/√1.75) − arctan(1/√2)]/(2π).
func TwoBranchOptimum() float64 {
	return 0.5 + (math.Atan(1.5/math.Sqrt(1.75))-math.Atan(1/math.Sqrt(2)))/(2*math.Pi)
}

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
// conditioned on the links observed so far, and takes the best. On the
// five-node example it is the optimal adaptive rule: at B it compares
// P(on time) of the two branches given the observed A→B time, reaching
// ½ + [arctan(1.5/√1.75) − arctan(1/√2)]/(2π).
// With no history it sees identical branches and stays at 0.5.
type CondRule struct {
	let   *LET
	model *linktime.Gaussian
}

// NewCondRule returns the rule for the network's model.
func NewCondRule(let *LET, model *linktime.Gaussian) *CondRule {
	return &CondRule{let: let, model: model}
}

// Act scores each outgoing link and returns the best (ties: a branch to a
// node not yet visited, then the lower conditional mean; see choice).
func (p *CondRule) Act(o *engine.Observation) int {
	c := newChoice()
	fresh := freshHead(p.let.net, o)
	for _, b := range p.Branches(o) {
		c.offer(b.Link, b.OnTime, fresh(b.Link), b.Mean)
	}
	if c.link < 0 {
		return p.let.net.Out(o.Node)[0]
	}
	return c.link
}

// Branch is one way out of a node as the rule sees it: the link, then the
// LET path from its head, with the route's time law conditioned on the
// prefix and its on-time probability for the remaining budget.
type Branch struct {
	Link     int
	Route    []int
	Mean, SD float64
	OnTime   float64
}

// Branches scores every outgoing link of the observation's node that can
// still reach the destination (the teaching view shows them).
func (p *CondRule) Branches(o *engine.Observation) []Branch {
	net := p.let.net
	cond := conditionOn(p.model, o)
	tree := p.let.Tree(o.Destination)
	var out []Branch
	for _, e := range net.Out(o.Node) {
		head := net.Links[e].To
		if tree.Hops[head] < 0 {
			continue
		}
		route := append([]int{e}, tree.Path(head, net)...)
		mean, sd := cond.Sum(route)
		out = append(out, Branch{Link: e, Route: route, Mean: mean, SD: sd, OnTime: onTime(o.Remaining, mean, sd)})
	}
	return out
}

var stdNormal = distuv.UnitNormal

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

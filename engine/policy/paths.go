package policy

import (
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/internal/ordered"
)

// PathPolicy follows a path chosen before departure for each task (OD pair
// and budget). It recovers the task from what it observes: the origin is
// where the prefix starts, the budget is the remaining budget plus the time
// spent. The network's tasks are planned when it is built; any other task
// (a page's budget slider, another OD pair) is planned by the same rule on
// first use and kept: following the LET path instead would report LET's
// rate under this method's name. Off its path (it cannot be) it falls back
// to LET.
type PathPolicy struct {
	net   *engine.Network
	let   *LET
	plan  func(sim.Task) []int
	mu    sync.RWMutex
	paths map[engine.OD][]taskPath
}

type taskPath struct {
	budget float64
	links  []int
}

// newPathPolicy plans every task with plan, now for tasks and later for
// any other; plan is never called twice at once.
func newPathPolicy(net *engine.Network, let *LET, tasks []sim.Task, plan func(sim.Task) []int) *PathPolicy {
	p := &PathPolicy{net: net, let: let, plan: plan, paths: map[engine.OD][]taskPath{}}
	for _, t := range tasks {
		p.paths[t.OD] = append(p.paths[t.OD], taskPath{t.Budget, plan(t)})
	}
	return p
}

// Path returns the path chosen for a task, planning it on first use.
func (p *PathPolicy) Path(od engine.OD, budget float64) []int {
	p.mu.RLock()
	links, ok := p.planned(od, budget)
	p.mu.RUnlock()
	if ok {
		return links
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if links, ok := p.planned(od, budget); ok { // another caller planned it meanwhile
		return links
	}
	links = p.plan(sim.Task{OD: od, Budget: budget, Cap: p.net.EpisodeCap()})
	p.paths[od] = append(p.paths[od], taskPath{budget, links})
	return links
}

// planned finds a task's path among those planned (budgets equal to a
// millionth).
func (p *PathPolicy) planned(od engine.OD, budget float64) ([]int, bool) {
	for _, tp := range p.paths[od] {
		if math.Abs(tp.budget-budget) <= 1e-6*math.Max(1, budget) {
			return tp.links, true
		}
	}
	return nil, false
}

// Act takes the next link of the task's path.
func (p *PathPolicy) Act(o *engine.Observation) int {
	od := engine.OD{Origin: o.Node, Destination: o.Destination}
	budget := o.Remaining
	if len(o.Prefix) > 0 {
		od.Origin = p.net.Links[o.Prefix[0].Link].From
		for _, s := range o.Prefix {
			budget += s.Time
		}
	}
	if links := p.Path(od, budget); o.Step < len(links) && p.net.Links[links[o.Step]].From == o.Node {
		return links[o.Step]
	}
	return p.let.Act(o)
}

// gaussianOnTime is the exact on-time probability of a fixed path under the
// full covariance: Φ((T − μ_p)/σ_p), σ_p² = 1ᵀ Σ_pp 1.
func gaussianOnTime(model *linktime.Gaussian, links []int, budget float64) float64 {
	mean, sd := model.Condition(nil, nil).Sum(links)
	return onTime(budget, mean, sd)
}

// kShortest lists up to k loopless paths from o to d by mean time (Yen's
// algorithm, gonum), keeping those within maxLinks links (0: any). Parallel
// links are represented by the one with the lowest mean.
func kShortest(net *engine.Network, o, d, k, maxLinks int) [][]int {
	return yenPaths(net, o, d, k, maxLinks, nil)
}

// yenPaths is kShortest on the links whose ends are both in region (nil:
// every link).
func yenPaths(net *engine.Network, o, d, k, maxLinks int, region []bool) [][]int {
	g := simple.NewWeightedDirectedGraph(0, math.Inf(1))
	for i := range net.Nodes {
		if region == nil || region[i] {
			g.AddNode(simple.Node(i))
		}
	}
	linkOf := map[[2]int]int{}
	for e, l := range net.Links {
		if region != nil && !(region[l.From] && region[l.To]) {
			continue
		}
		key := [2]int{l.From, l.To}
		if prev, ok := linkOf[key]; ok && net.Links[prev].Mean <= l.Mean {
			continue
		}
		linkOf[key] = e
		g.SetWeightedEdge(simple.WeightedEdge{F: simple.Node(l.From), T: simple.Node(l.To), W: l.Mean})
	}
	if g.Node(int64(o)) == nil || g.Node(int64(d)) == nil {
		return nil
	}
	// Read in ID order: Yen's search breaks ties between paths of equal
	// mean by the order it reads neighbours, and simple's graphs list them
	// from a map (bestpath on twobranch, two branches of equal law, took
	// one branch in 26 of 30 runs and the other in 4).
	var out [][]int
	for _, nodes := range path.YenKShortestPaths(ordered.NewWeightedDirected(g), k, math.Inf(1), simple.Node(o), simple.Node(d)) {
		if maxLinks > 0 && len(nodes)-1 > maxLinks {
			continue
		}
		links := make([]int, len(nodes)-1)
		for i := range links {
			links[i] = linkOf[[2]int{int(nodes[i].ID()), int(nodes[i+1].ID())}]
		}
		out = append(out, links)
	}
	return out
}

// BestPathLinkLimit is the most links Yen's search for bestpath's
// candidates runs on. Its cost grows with the links searched and the
// paths' length: Winnipeg (2,836 links) took 26 s for its five pairs,
// Chicago Sketch (2,950) 10 s, and on a generated grid of 249,000 links
// one pair had not finished after 38 minutes. A larger network is searched
// in the corridor where the pair's shortest paths lie (corridor), up to
// this many links; cgr leaves Yen's paths for the LET path at the same
// size.
const BestPathLinkLimit = CGRYenLinkLimit

// BestPath is the best a-priori path: among the k shortest loopless paths by
// mean (Yen) within the step cap, the one with the highest exact Gaussian
// on-time probability under the full covariance. Enumeration is exponential
// on large networks, hence the k limit.
func newBestPath(env *Env, k int) *PathPolicy {
	let := NewLET(env.Net, env.Destinations()...)
	cands := map[engine.OD][][]int{} // per OD pair; tasks are planned one at a time
	return newPathPolicy(env.Net, let, env.Tasks, func(t sim.Task) []int {
		c, ok := cands[t.OD]
		if !ok {
			var complete bool
			c, complete = candidatePaths(env.Net, t.OD.Origin, t.OD.Destination, k)
			cands[t.OD] = c
			if !complete && env.Logf != nil {
				env.Logf("bestpath: OD %s: the widest corridor of at most %d links holds %d of its %d shortest paths; it chooses among those", env.Net.ODString(t.OD), BestPathLinkLimit, len(c), k)
			}
		}
		best, bestP := let.Tree(t.OD.Destination).Path(t.OD.Origin, env.Net), -1.0
		for _, links := range c {
			if pr := gaussianOnTime(env.Model, links, t.Budget); pr > bestP+scoreTie {
				best, bestP = links, pr
			}
		}
		return best
	})
}

// candidatePaths is up to k loopless paths from o to d by mean time within
// the network's step cap: Yen's on the whole network up to
// BestPathLinkLimit links, else on the corridor where they lie (complete
// false when it held fewer than k and more were outside).
func candidatePaths(net *engine.Network, o, d, k int) (paths [][]int, complete bool) {
	if len(net.Links) <= BestPathLinkLimit {
		return kShortest(net, o, d, k, net.EpisodeCap()), true
	}
	return corridor(net, o, d, k, net.EpisodeCap(), BestPathLinkLimit)
}

// hasCycle reports whether a path visits a node twice.
func hasCycle(net *engine.Network, links []int) bool {
	seen := []int{net.Links[links[0]].From}
	for _, e := range links {
		to := net.Links[e].To
		if slices.Contains(seen, to) {
			return true
		}
		seen = append(seen, to)
	}
	return false
}

// sortedPaths lists a candidate set in a fixed order (by key), so that ties
// resolve the same way on every run.
func sortedPaths(c map[string][]int) [][]int {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([][]int, len(keys))
	for i, k := range keys {
		out[i] = c[k]
	}
	return out
}

// CandidatePaths lists up to k loopless paths from o to d by mean time
// within the network's step cap: bestpath's candidates, for pages that
// show routes side by side. On a city they are those of the corridor that
// Yen's search can cover (candidatePaths), fewer than k when more lie
// outside it.
func CandidatePaths(net *engine.Network, o, d, k int) [][]int {
	paths, _ := candidatePaths(net, o, d, k)
	return paths
}

// PathOnTime is a fixed path's exact on-time probability for budget under
// the full covariance (what bestpath maximizes).
func PathOnTime(model *linktime.Gaussian, links []int, budget float64) float64 {
	return gaussianOnTime(model, links, budget)
}

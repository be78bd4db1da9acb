package policy

import (
	"sync"

	"gonum.org/v1/gonum/floats"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// CGR is correlation-aware replanning, in the spirit of GP4 (Gao, Guo &
// Sheng, IEEE TVT 2021): at each node it conditions the joint Gaussian on
// the links observed so far (the conditional mean and covariance of the
// rest), then takes the outgoing link whose best continuation — among the k
// shortest loopless paths by mean from the link's head, within the steps
// left — has the highest conditional on-time probability
// Φ((remaining − μ_path)/σ_path). It is the strongest non-learned policy
// here that uses history.
type CGR struct {
	net   *engine.Network
	model *linktime.Gaussian
	k     int
	cap   int
	mu    sync.Mutex
	conts map[[2]int][]contPath // (node, destination) → candidate paths
	// sums: (link, destination) → the link then each of its head's
	// continuations, as loadings that keep their products (dense models)
	sums  map[[2]int][]*linktime.Loading
	kept  int        // floats held by sums
	let   *LET       // LET trees, for k = 1
	conds *condCache // each running episode's conditioned model
}

// CGRYenLinkLimit is the network size up to which cgr's continuations are
// Yen's k shortest paths. Above it (a city: Yen's k = 10 from one node runs
// about a thousand Dijkstra searches over 15,000 nodes, and a trip meets
// hundreds of nodes) the continuation is the one LET path from the link's
// head, read off the destination's LET tree.
const CGRYenLinkLimit = 4000

// CGRK is cgr's number of continuation candidates on net.
func CGRK(net *engine.Network) int {
	if len(net.Links) > CGRYenLinkLimit {
		return 1
	}
	return 10
}

// contPath is a continuation with its mean and loading Σ_e F_e precomputed,
// so scoring it at a decision costs one conditional update.
type contPath struct {
	links []int
	mean  float64
	load  []float64
	own   float64 // Σ_e Idio_e² (the factor model's own variances)
}

// NewCGR returns the policy with k continuation candidates per node.
func NewCGR(net *engine.Network, model *linktime.Gaussian, k int) *CGR {
	return &CGR{net: net, model: model, k: k, cap: net.EpisodeCap(), conts: map[[2]int][]contPath{}, sums: map[[2]int][]*linktime.Loading{}, let: NewLET(net), conds: newCondCache(model)}
}

// letPath is the LET path from j to d (nil when d is unreachable).
func (c *CGR) letPath(j, d int) [][]int {
	t := c.let.Tree(d)
	if t.Next[j] < 0 {
		return nil
	}
	return [][]int{t.Path(j, c.net)}
}

func (c *CGR) continuations(j, d int) []contPath {
	key := [2]int{j, d}
	if p, ok := locked(&c.mu, c.conts, key); ok {
		return p
	}
	paths := [][]int{nil}
	switch {
	case j == d:
	case c.k <= 1:
		paths = c.letPath(j, d)
	default:
		paths = kShortest(c.net, j, d, c.k, c.cap)
	}
	p := make([]contPath, len(paths))
	for i, links := range paths {
		p[i].links = links
		if c.model.F != nil {
			_, r := c.model.F.Dims()
			p[i].load = make([]float64, r)
		}
		for _, e := range links {
			p[i].mean += c.model.Mean[e]
			if p[i].load != nil {
				floats.Add(p[i].load, c.model.SumRow(e))
				p[i].own += c.model.SumIdioVar(e)
			}
		}
	}
	c.mu.Lock()
	c.conts[key] = p
	c.mu.Unlock()
	return p
}

// Act scores each outgoing link by its best conditional continuation (among
// equal scores, one to a node not yet visited, then the lower conditional
// mean; see choice).
func (c *CGR) Act(o *engine.Observation) int { return c.decide(o, c.act) }

// decide is Act with act the scoring of routes (the static cgr's, or the
// time-dependent one's): first among the routes that come back to no node
// left, then among all.
func (c *CGR) decide(o *engine.Observation, act func(*engine.Observation, *linktime.Conditional, *nodeSet) int) int {
	cond := c.conds.condition(o)
	visited := nodeSets.Get().(*nodeSet)
	defer nodeSets.Put(visited)
	visited.reset(len(c.net.Nodes))
	visited.add(o.Node)
	for _, s := range o.Prefix {
		visited.add(c.net.Links[s.Link].From)
	}
	if e := act(o, cond, visited); e >= 0 {
		return e
	}
	if e := act(o, cond, nil); e >= 0 {
		return e
	}
	return c.net.Out(o.Node)[0]
}

// act is Act's choice among the routes that come back to none of the nodes
// in avoid (all routes when avoid is nil), or -1 when there are none.
//
// A route back to a node the trip has left is taken only when no other is
// left: behind schedule, the Gaussian law of a sum can rate a route that
// goes back higher (more links, more spread, more mass below the budget),
// and cgr's candidates from the two ends of a link differ, so each end
// pointed back at the other: on a generated street grid with links shorter
// than DOT's step, cgr drove a 0.006-minute link back and forth until the
// budget ran out in 49 of 200 episodes under independent links.
func (c *CGR) act(o *engine.Observation, cond *linktime.Conditional, avoid *nodeSet) int {
	best := newChoice()
	fresh := freshHead(c.net, o)
	var route []int
	independent, keep := c.model.F == nil, c.model.RegressesLinks()
	var load []float64 // the factors' space: a scratch sum
	if !independent && !keep {
		_, r := c.model.F.Dims()
		load = make([]float64, r)
	}
	for _, e := range c.net.Out(o.Node) {
		fe := fresh(e)
		conts := c.continuations(c.net.Links[e].To, o.Destination)
		var sums []*linktime.Loading
		if keep {
			sums = c.sumsVia(e, o.Destination, conts)
		}
		for i, p := range conts {
			if c.cap > 0 && o.Step+1+len(p.links) > c.cap || avoid != nil && c.comesBack(e, p, avoid) {
				continue
			}
			var mean, sd float64
			switch {
			case independent: // exact, revisits included
				route = append(append(route[:0], e), p.links...)
				mean, sd = cond.Sum(route)
			case keep:
				mean, sd = cond.LoadedOf(sums[i])
			default: // the factors' space: a K-long solve, nothing to keep
				floats.AddTo(load, p.load, c.model.SumRow(e))
				mean, sd = cond.Loaded(p.mean+c.model.Mean[e], load, p.own+c.model.SumIdioVar(e))
			}
			best.offer(e, onTime(o.Remaining, mean, sd), fe, mean)
		}
	}
	return best.link
}

// sumsVia is link e then each of conts (its head's continuations to d),
// as loadings kept for every decision that scores them again (dense
// models: a few thousand links, ten continuations a link).
func (c *CGR) sumsVia(e, d int, conts []contPath) []*linktime.Loading {
	key := [2]int{e, d}
	if sums, ok := locked(&c.mu, c.sums, key); ok {
		return sums
	}
	_, r := c.model.F.Dims()
	sums := make([]*linktime.Loading, len(conts))
	for i, p := range conts {
		load := make([]float64, r)
		floats.AddTo(load, p.load, c.model.SumRow(e))
		sums[i] = linktime.NewLoading(p.mean+c.model.Mean[e], load, p.own+c.model.SumIdioVar(e))
	}
	c.mu.Lock()
	if c.kept < cgrKeptMax {
		c.sums[key] = sums
		c.kept += len(conts) * r
	}
	c.mu.Unlock()
	return sums
}

// cgrKeptMax bounds the loadings cgr keeps (256 MB of floats: a dense model
// of 4,000 links holds 32 KB a loading); past it they are built for each
// decision, as they were before any were kept.
const cgrKeptMax = 1 << 25

// comesBack says whether link e then continuation p reaches a node in avoid.
func (c *CGR) comesBack(e int, p contPath, avoid *nodeSet) bool {
	if avoid.has(c.net.Links[e].To) {
		return true
	}
	for _, f := range p.links {
		if avoid.has(c.net.Links[f].To) {
			return true
		}
	}
	return false
}

// nodeSet is a set of nodes kept as generation stamps, emptied in O(1):
// cgr asks it for every node of every candidate at every decision (as a
// map, a fifth of its time on Anaheim).
type nodeSet struct {
	gen uint32
	at  []uint32 // at[v] == gen: v is in the set
}

// nodeSets lends sets to concurrent decisions (a policy serves every
// worker of a benchmark at once).
var nodeSets = sync.Pool{New: func() any { return new(nodeSet) }}

// reset empties the set for nodes 0 to n-1.
func (s *nodeSet) reset(n int) {
	if len(s.at) < n {
		s.at, s.gen = make([]uint32, n), 0
	}
	if s.gen++; s.gen == 0 { // wrapped: stamps of old sets would read as members
		clear(s.at)
		s.gen = 1
	}
}

func (s *nodeSet) add(v int)      { s.at[v] = s.gen }
func (s *nodeSet) has(v int) bool { return s.at[v] == s.gen }

// conditionOn conditions the model on an observation's prefix.
func conditionOn(model *linktime.Gaussian, o *engine.Observation) *linktime.Conditional {
	links := make([]int, len(o.Prefix))
	times := make([]float64, len(o.Prefix))
	for k, s := range o.Prefix {
		links[k], times[k] = s.Link, s.Time
	}
	return model.Condition(links, times)
}

// locked reads m[k] under mu (the maps cgr fills as episodes ask).
func locked[K comparable, V any](mu *sync.Mutex, m map[K]V, k K) (V, bool) {
	mu.Lock()
	defer mu.Unlock()
	v, ok := m[k]
	return v, ok
}

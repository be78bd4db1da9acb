package policy

import (
	"slices"
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
	let   *LET                  // LET trees, for k = 1
	conds *condCache            // each running episode's conditioned model
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
	return &CGR{net: net, model: model, k: k, cap: net.EpisodeCap(), conts: map[[2]int][]contPath{}, let: NewLET(net), conds: newCondCache(model)}
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
	c.mu.Lock()
	p, ok := c.conts[key]
	c.mu.Unlock()
	if ok {
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
	p = make([]contPath, len(paths))
	for i, links := range paths {
		p[i].links = links
		if c.model.F != nil {
			_, r := c.model.F.Dims()
			p[i].load = make([]float64, r)
		}
		for _, e := range links {
			p[i].mean += c.model.Mean[e]
			if p[i].load != nil {
				floats.Add(p[i].load, c.model.F.RawRowView(e))
				p[i].own += c.model.IdioVar(e)
			}
		}
	}
	c.mu.Lock()
	c.conts[key] = p
	c.mu.Unlock()
	return p
}

// Act scores each outgoing link by its best conditional continuation (among
// equal scores, the one with the lower conditional mean).
func (c *CGR) Act(o *engine.Observation) int {
	cond := c.conds.condition(o)
	best := newChoice()
	var route []int
	var load []float64
	if c.model.F != nil {
		_, r := c.model.F.Dims()
		load = make([]float64, r)
	}
	for _, e := range c.net.Out(o.Node) {
		for _, p := range c.continuations(c.net.Links[e].To, o.Destination) {
			if c.cap > 0 && o.Step+1+len(p.links) > c.cap {
				continue
			}
			var mean, sd float64
			if load == nil { // independent links: exact, revisits included
				route = append(append(route[:0], e), p.links...)
				mean, sd = cond.Sum(route)
			} else {
				floats.AddTo(load, p.load, c.model.F.RawRowView(e))
				mean, sd = cond.Loaded(p.mean+c.model.Mean[e], load, p.own+c.model.IdioVar(e))
			}
			best.offer(e, onTime(o.Remaining, mean, sd), mean)
		}
	}
	if best.link < 0 {
		return c.net.Out(o.Node)[0]
	}
	return best.link
}

// notDriven is links less those the route has driven, or links when that
// leaves none.
func notDriven(links []int, route []engine.Step) []int {
	var out []int
	for _, e := range links {
		if !slices.ContainsFunc(route, func(s engine.Step) bool { return s.Link == e }) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return links
	}
	return out
}

// conditionOn conditions the model on an observation's prefix.
func conditionOn(model *linktime.Gaussian, o *engine.Observation) *linktime.Conditional {
	links := make([]int, len(o.Prefix))
	times := make([]float64, len(o.Prefix))
	for k, s := range o.Prefix {
		links[k], times[k] = s.Link, s.Time
	}
	return model.Condition(links, times)
}

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

// Act takes the link with the highest conditional DOT value, never one it
// has driven before while another way out is open. Its score reads a
// driven link's time as known and the rest of the route by DOT's marginal
// table, which cannot know what was seen: under positive correlation, after
// a slow start, a link already driven fast beat every unseen one at the same
// node again and again, and cdot drove the same loop until late (Delaware,
// spatial-factor, pair 4339145682-178623092 at budget 1.00: 113 of 200
// episodes drove a link twice, 198 links a trip against dot's 128). A
// second pass brings nothing new (the link's time is already known) and
// only spends time.
func (c *CDOT) Act(o *engine.Observation) int {
	cond := c.conds.condition(o)
	d := c.dot
	left := d.cap - o.Step
	return argmaxLink(notDriven(d.feasible(o, left), o.Prefix), func(e int) float64 {
		mean, sd := cond.Latent(e)
		return d.scoreNormal(o.Destination, d.net.Links[e].To, mean, sd, c.model.Floors[e], o.Remaining, left)
	}, letAhead(d.let, o.Destination))
}

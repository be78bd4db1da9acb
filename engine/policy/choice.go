package policy

import (
	"math"
	"slices"

	"github.com/ontime-routing/ontime/engine"
)

// scoreTie is how close two on-time scores must be to count as equal. DOT's
// tables are float32 (relative precision 6·10⁻⁸) and its link laws drop
// the mass beyond ±6σ (2·10⁻⁹), and a CondRule's covariances recomputed
// from an eigen factor differ in the last bits: differences below 10⁻⁶ are
// that noise, not a better route.
const scoreTie = 1e-6

// choice keeps the best link offered so far. Scores within scoreTie are
// ties, broken first by whether the link leads to a node the route has not
// been to, then by the lower expected time still to drive (the link's mean
// plus the rest of the route's, as the policy sees it), then by the order
// of offers.
//
// Without the first two a planner whose scores saturate — every way out on
// time with probability 1 to float precision, or 0 — took the first link
// out, which on a two-way street is often the U-turn: on Andorra, dot drove
// a 5-link block 12 times and cdot a 2-link U-turn 28 times within one
// episode, and cdot burned its slack doing so and arrived late. The least
// time ahead alone still cycles where it disagrees with the scores: on
// Winnipeg (independent links) dot went from node 436 to 437 (tied with 438,
// and 437's least-time way on is link 474), but at 437 link 474 scored 2·10⁻⁵
// lower, and of the two tied ways left it took the first, back to 436 — 40
// times in one episode. Coming back to a node with less time is never better
// when links are independent (a node's on-time probability never falls as
// the time left grows), so among equals a way to a new node is preferred.
type choice struct {
	link         int
	score, ahead float64
	fresh        bool
	// tied is set once two offers' scores came within scoreTie: only then
	// can the choice depend on the route so far (through fresh).
	tied bool
}

func newChoice() choice { return choice{link: -1, score: math.Inf(-1), ahead: math.Inf(1)} }

// offer proposes link e with its on-time score, whether its head is a node
// the route has not been to, and its expected time ahead.
func (c *choice) offer(e int, score float64, fresh bool, ahead float64) {
	better := score > c.score+scoreTie
	near := !better && score >= c.score-scoreTie
	c.tied = c.tied || near
	if better || near && (fresh && !c.fresh || fresh == c.fresh && ahead < c.ahead) {
		c.link, c.score, c.fresh, c.ahead = e, score, fresh, ahead
	}
}

// argmaxLink returns the link of links with the highest score, ties broken
// by fresh, then by ahead (nil: by order), or -1 for no links.
func argmaxLink(links []int, score func(e int) float64, fresh func(e int) bool, ahead func(e int) float64) int {
	return argmax(links, score, fresh, ahead).link
}

// argmax is argmaxLink's whole choice.
func argmax(links []int, score func(e int) float64, fresh func(e int) bool, ahead func(e int) float64) choice {
	c := newChoice()
	for _, e := range links {
		a, f := 0.0, true
		if ahead != nil {
			a = ahead(e)
		}
		if fresh != nil {
			f = fresh(e)
		}
		c.offer(e, score(e), f, a)
	}
	return c
}

// freshHead says whether link e leads to a node o's route has not been to
// (neither the node it stands on nor any node it has left).
func freshHead(net *engine.Network, o *engine.Observation) func(e int) bool {
	return func(e int) bool {
		j := net.Links[e].To
		return j != o.Node && !leftBefore(net, o.Prefix, j)
	}
}

// leftBefore says whether the route prefix has left node j (driven a link
// out of it).
func leftBefore(net *engine.Network, prefix []engine.Step, j int) bool {
	return slices.ContainsFunc(prefix, func(s engine.Step) bool { return net.Links[s.Link].From == j })
}

// letAhead is the expected time ahead through link e towards dest: e's
// mean then the least expected time from its head (the tie rule of the
// planners that score a link by a table of the rest).
func letAhead(let *LET, dest int) func(e int) float64 {
	t := let.Tree(dest)
	return func(e int) float64 {
		l := let.net.Links[e]
		return l.Mean + t.Time[l.To]
	}
}

package policy

import "math"

// scoreTie is how close two on-time scores must be to count as equal. DOT's
// tables are float32 (relative precision 6·10⁻⁸) and its link laws drop
// the mass beyond ±6σ (2·10⁻⁹), and a CondRule's covariances recomputed
// from an eigen factor differ in the last bits: differences below 10⁻⁶ are
// that noise, not a better route.
const scoreTie = 1e-6

// choice keeps the best link offered so far. Scores within scoreTie are
// ties, broken by the lower expected time still to drive (the link's mean
// plus the rest of the route's, as the policy sees it), then by the order
// of offers. Without that rule a planner whose scores saturate — every way
// out on time with probability 1 to float precision, or 0 — took the first
// link out, which on a two-way street is often the U-turn: on Andorra, dot
// drove a 5-link block 12 times and cdot a 2-link U-turn 28 times within
// one episode, and cdot burned its slack doing so and arrived late.
type choice struct {
	link         int
	score, ahead float64
}

func newChoice() choice { return choice{link: -1, score: math.Inf(-1), ahead: math.Inf(1)} }

// offer proposes link e with its on-time score and expected time ahead.
func (c *choice) offer(e int, score, ahead float64) {
	better := score > c.score+scoreTie
	tied := !better && score >= c.score-scoreTie && ahead < c.ahead
	if better || tied {
		c.link, c.score, c.ahead = e, score, ahead
	}
}

// argmaxLink returns the link of links with the highest score, ties broken
// by ahead (nil: by order), or -1 for no links.
func argmaxLink(links []int, score, ahead func(e int) float64) int {
	c := newChoice()
	for _, e := range links {
		a := 0.0
		if ahead != nil {
			a = ahead(e)
		}
		c.offer(e, score(e), a)
	}
	return c.link
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

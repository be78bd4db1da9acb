package policy

import (
	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// TimedCDOT is cdot on a law that changes over the day: at each node, each
// outgoing link's law given the times seen (read back to the static law's
// scale at their hours, as the time-dependent cgr does) is read at the
// clock of the time-dependent DOT's row, binned on its grid and integrated
// against its table at the link's head for the deadline; the links after
// it are judged by the table (their marginals), as cdot's are. A link
// already driven is judged by its marginal, as dot judges it: its known
// time made a 0.07-min link look like a way to spend slack (Rushtown,
// independent links: 55, 54, 55, 54), and cdot's static guard
// (throughDriven) reads static tables. So with independent links cdot
// decides as dot does.
type TimedCDOT struct {
	dot   *TimedDOT
	cgr   *TimedCGR // its condition: the prefix read back at its hours
	model *linktime.Gaussian
}

// NewTimedCDOT is cdot over dot's time-dependent tables.
func NewTimedCDOT(d *TimedDOT, model *linktime.Gaussian) *TimedCDOT {
	return &TimedCDOT{dot: d, cgr: NewTimedCGR(d.net, model, 1), model: model}
}

// Act takes the link with the highest conditional value.
func (c *TimedCDOT) Act(o *engine.Observation) int {
	cond := c.cgr.condition(o)
	driven := drivenTimes(o.Prefix)
	g := c.model
	return c.dot.actWith(o, func(e int) (float64, float64) {
		if _, ok := driven[e]; ok {
			return g.Latent[e], g.SD[e]
		}
		return cond.Latent(e)
	})
}

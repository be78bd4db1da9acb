package policy

import (
	"sync"

	"github.com/ontime-routing/ontime/engine"
)

// Clairvoyant is an upper bound, not a policy: for each realization it takes
// the hop-capped shortest realized path, as if every link time were known
// before departure. Its on-time rate bounds every method from above on the
// same realizations.
type Clairvoyant struct {
	net  *engine.Network
	pool sync.Pool
}

// NewClairvoyant returns the bound for net.
func NewClairvoyant(net *engine.Network) *Clairvoyant {
	c := &Clairvoyant{net: net}
	c.pool.New = func() any { return engine.NewCappedSearch(net) }
	return c
}

// BestTime is the least realized time from the origin to the destination
// over paths of at most maxLinks links.
func (c *Clairvoyant) BestTime(od engine.OD, maxLinks int, x []float64) float64 {
	s := c.pool.Get().(*engine.CappedSearch)
	defer c.pool.Put(s)
	return s.Time(od.Origin, od.Destination, maxLinks, x)
}

// Act exists so that Clairvoyant is an engine.Policy for the registry; the
// simulator scores oracles through BestTime and never calls it.
func (c *Clairvoyant) Act(o *engine.Observation) int { return c.net.Out(o.Node)[0] }

// BestPath is the path behind BestTime (nil when none reaches the
// destination within maxLinks).
func (c *Clairvoyant) BestPath(od engine.OD, maxLinks int, x []float64) ([]int, float64) {
	s := c.pool.Get().(*engine.CappedSearch)
	defer c.pool.Put(s)
	return s.Path(od.Origin, od.Destination, maxLinks, x)
}

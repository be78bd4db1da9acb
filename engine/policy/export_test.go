package policy

import "github.com/ontime-routing/ontime/engine"

// SolveWhole makes d solve every bin of every node (the table before the
// band): what the band is checked against.
func (d *DOT) SolveWhole() { d.wholeTables = true }

// SolveWholeTables makes env's DOT solve whole tables (SolveWhole).
func (env *Env) SolveWholeTables() { env.wholeTables = true }

// SplitTableBins makes DOT fill an uncapped table's bins a part a core
// however few nodes a bin holds (a test's small networks stand in for a
// city's), until restore is called.
func SplitTableBins() (restore func()) {
	saved := dotPartNodes
	dotPartNodes = 1
	return func() { dotPartNodes = saved }
}

// TableData is every level of the table towards dest, as stored.
func (d *DOT) TableData(dest int) [][]float32 { return d.tabs[dest].u }

// TableCells is how many values the table towards dest holds in one level
// and how many a whole table would.
func (d *DOT) TableCells(dest int) (held, whole int) {
	t := d.tabs[dest]
	return len(t.u[0]), t.n * len(d.net.Nodes)
}

// TableLevels is the table's number of levels (links left; 1 uncapped)
// and bins.
func (d *DOT) TableLevels(dest int) (levels, bins int) {
	t := d.tabs[dest]
	return len(t.u), t.n
}

// TableValue is the stored value at level h, node i, bin b.
func (d *DOT) TableValue(dest, h, i, b int) float32 { return d.tabs[dest].at(h, i, b) }

// Corridor is corridor with its link limit given (a test's small network
// stands in for a city).
func Corridor(net *engine.Network, o, d, k, maxLinks, limit int) ([][]int, bool) {
	return corridor(net, o, d, k, maxLinks, limit)
}

// KShortest is Yen's k shortest paths on the whole network.
func KShortest(net *engine.Network, o, d, k, maxLinks int) [][]int {
	return kShortest(net, o, d, k, maxLinks)
}

// OriginReach is originReach: the highest bin a read at each node can take
// in an episode from origin.
func (d *DOT) OriginReach(origin int, maxBudget float64, floors []float64) []int {
	return d.originReach(origin, maxBudget, floors)
}

// ReadBin is the bin a read at the remaining budget takes (readBin).
func (d *DOT) ReadBin(remaining float64) int { return d.readBin(remaining) }

// TimedConditions is the time-dependent cgr's conditioned law at o (kept
// per episode) and the same conditioned from scratch.
func TimedConditions(c *TimedCGR, o *engine.Observation) (kept, scratch func(e int) (float64, float64)) {
	return c.condition(o).Latent, c.conds.fromScratch(o).Latent
}

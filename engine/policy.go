package engine

// Step is one traversed link and the time it took.
type Step struct {
	Link int
	Time float64
}

// Observation is exactly what a traveller has seen at a decision: the route
// prefix (links, realized times, order), where they are, where they go and
// how much budget is left. It carries nothing of the unobserved realization.
type Observation struct {
	Node        int
	Destination int
	Remaining   float64 // budget minus time spent so far, minutes
	Step        int     // links traversed so far (== len(Prefix))
	Prefix      []Step
}

// Policy chooses the next link. Act must return one of net.Out(o.Node) and
// must be safe for concurrent use: the simulator runs episodes on all cores.
type Policy interface {
	Act(o *Observation) int
}

// BatchPolicy decides for many episodes stepping together (a learned policy
// runs one batched inference per step). links[i] answers obs[i].
type BatchPolicy interface {
	Policy
	ActBatch(obs []*Observation, links []int)
}

// PolicyFunc adapts a function to Policy.
type PolicyFunc func(o *Observation) int

func (f PolicyFunc) Act(o *Observation) int { return f(o) }

// Oracle is an upper bound, not a policy a traveller could follow: it sees
// the whole realization and returns the least time in which the destination
// could have been reached within maxLinks links. The simulator scores it on
// the same realizations as the policies.
type Oracle interface {
	BestTime(od OD, maxLinks int, x []float64) float64
}

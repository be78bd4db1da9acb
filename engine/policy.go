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
	// Clock is the time of day now, minutes after midnight (the departure
	// plus the time spent): what a method reads on a network whose law
	// changes over the day (Network.Timed); 0 and unread elsewhere.
	Clock float64
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

// HandsOver is a policy that hands an episode to a fallback where it was
// asked outside what it was trained for and its own choices could no
// longer arrive within the episode's step cap: a learned model off its
// training can wander until the cap ends every episode (Anaheim's model
// scored 0 on pairs it never saw, at any budget). The rule, played by the
// simulator once for every door: at the first decision where the policy's
// link would leave fewer links to the cap than the fewest that reach the
// destination from its end, the episode is handed over and from then on
// follows the fallback's LET path where that fits in the links left, else
// the fewest-links route; its result says so (sim.Result.HandedOver). So an
// episode handed over arrives within the cap (when it still could), an
// episode the policy drives home within the cap is never touched, and
// inside the policy's training nothing is (its numbers are its own).
type HandsOver interface {
	// Fallback is the fallback's LET and fewest-links trees towards o's
	// destination, or nil where o's episode (its OD pair and budget) lies
	// inside what the policy was trained for.
	Fallback(o *Observation) (*LETTree, *HopTree)
	// FallbackName names the fallback for reports ("let").
	FallbackName() string
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

// ClockOracle is an Oracle that knows the clock: the least time from
// leaving od's origin at clock time depart, each link's time the one its
// static time x[e] gives when entered at the hour it is reached
// (Clock.Time).
type ClockOracle interface {
	Oracle
	BestTimeAt(od OD, maxLinks int, x []float64, depart float64) float64
}

package lab

import (
	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/policy"
)

// TeachView is the five-node example at node B after the first link was
// observed to take a given time.
type TeachView struct {
	Budget   float64
	First    int     // the observed link (A→B)
	Observed float64 // its realized time
	// With history: each branch's on-time probability given the observed
	// time; without: the same from the marginal law (the observation hidden).
	WithHistory, WithoutHistory []policy.Branch
	Optimum                     int    // the closed-form optimum's link (the better conditional branch)
	NoHistoryChoice             int    // what a policy that ignores history picks
	Learned                     int    // the network's trained model's link; -1 when the model is unavailable
	LearnedErr                  string // why it is unavailable, in one plain sentence
}

// Teach computes the view for an observed first-link time. It works on any
// network whose first OD pair starts with a single link (twobranch's A→B).
func (n *Net) Teach(observed float64) (*TeachView, error) {
	if len(n.Net.ODs) == 0 {
		return nil, engine.Errorf(engine.EINVALID, "network %s has no OD pair", n.Net.Name)
	}
	od := n.Net.ODs[0]
	out := n.Net.Out(od.Origin)
	if len(out) != 1 {
		return nil, engine.Errorf(engine.EINVALID, "the teaching view needs an origin with one way out (twobranch)")
	}
	if !(observed > 0 && observed <= 1000) { // NaN fails every comparison
		return nil, engine.Errorf(engine.EINVALID, "observed time %.3g: give a time in (0, 1000]", observed)
	}
	let, err := n.Validate(od, 1)
	if err != nil {
		return nil, err
	}
	first := out[0]
	v := &TeachView{Budget: let, First: first, Observed: observed, Learned: -1}
	// The network's condrule is the closed-form rule; built once, like
	// every method, so a slider move only scores two branches.
	p, err := n.Policy(historyRole(historyRule))
	if err != nil {
		return nil, err
	}
	rule, ok := p.(*policy.CondRule)
	if !ok {
		return nil, engine.Errorf(engine.EINTERNAL, "the history lesson's rule is a %T", p)
	}
	seen := &engine.Observation{Node: n.Net.Links[first].To, Destination: od.Destination, Remaining: let - observed, Step: 1,
		Prefix: []engine.Step{{Link: first, Time: observed}}}
	v.WithHistory = rule.Branches(seen)
	hidden := *seen
	hidden.Prefix = nil
	v.WithoutHistory = rule.Branches(&hidden)
	v.Optimum = rule.Act(seen)
	if p, err := n.Policy(historyRole(historyBaseline)); err == nil {
		v.NoHistoryChoice = p.Act(&hidden)
	}
	if p, err := n.Policy(historyRole(historyLearned)); err != nil {
		v.LearnedErr = noModel(n.Net.Name, err, "")
	} else {
		v.Learned = p.Act(seen)
	}
	return v, nil
}

// The history lesson's roles (policy.Method Lessons["history"]): the
// closed-form rule that reads what was seen, the trained model, and a
// baseline that ignores history.
const (
	historyLesson   = "history"
	historyRule     = "rule"
	historyLearned  = "learned"
	historyBaseline = "baseline"
)

// historyRole is the method cast in a role of the history lesson.
func historyRole(role string) string {
	if names := policy.LessonNames(historyLesson, role); len(names) > 0 {
		return names[0]
	}
	return ""
}

// HistoryScoreMethods are the methods the history lesson scores: every one
// it casts, or without history (a lecture's first step) the rule and the
// baseline only.
func HistoryScoreMethods(withHistory bool) []string {
	if withHistory {
		return policy.LessonNames(historyLesson)
	}
	return policy.LessonNames(historyLesson, historyBaseline, historyRule)
}

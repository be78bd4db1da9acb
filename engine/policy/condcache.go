package policy

import (
	"slices"
	"sync"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// condCache keeps the model conditioned on each running episode's route,
// so that the next decision extends it by the one link just driven
// (Conditional.Observe, O(m·r + m²)) instead of conditioning on the whole
// route again (O(m²·r + m³)): cgr and cdot ask at every node, and on a
// 100-link trip the rebuild was most of their time. An episode is known by
// its route's storage (the runner keeps one per episode slot); the entry is
// used only when the route is the one it holds plus one link, so a slot
// reused by another episode just starts afresh. Results are those of
// conditioning from scratch, bit for bit (TestObserveEqualsConditionFromScratch).
type condCache struct {
	model *linktime.Gaussian
	// timed, on a network whose law changes over the day, reads each time
	// seen back to the static law's scale at the hour its link was entered
	// (nil: the times as seen)
	timed *engine.Network
	mu    sync.Mutex
	byKey map[*engine.Step]*condEntry
}

type condEntry struct {
	route []engine.Step
	cond  *linktime.Conditional
}

// condCacheSize bounds the entries (one a running episode: a pool per
// worker, and the rollouts' continuations); past it the cache starts afresh.
const condCacheSize = 1 << 12

func newCondCache(model *linktime.Gaussian) *condCache {
	return &condCache{model: model, byKey: map[*engine.Step]*condEntry{}}
}

// condition is the model conditioned on o's route.
func (cc *condCache) condition(o *engine.Observation) *linktime.Conditional {
	p := o.Prefix
	if len(p) == 0 || cc.model.F == nil {
		return cc.fromScratch(o) // nothing to extend, or nothing to regress
	}
	key := &p[0]
	cc.mu.Lock()
	ent := cc.byKey[key]
	cc.mu.Unlock()
	if ent != nil {
		n := len(ent.route)
		switch {
		case n == len(p) && slices.Equal(ent.route, p):
			return ent.cond
		case n == len(p)-1 && slices.Equal(ent.route, p[:n]) && ent.cond.Observe(p[n].Link, cc.static(p[n], o.Clock-p[n].Time)):
			ent.route = append(ent.route, p[n])
			return ent.cond
		}
	}
	ent = &condEntry{route: slices.Clone(p), cond: cc.fromScratch(o)}
	cc.mu.Lock()
	if len(cc.byKey) >= condCacheSize {
		clear(cc.byKey)
	}
	cc.byKey[key] = ent
	cc.mu.Unlock()
	return ent.cond
}

// static is a step's time on the static law's scale, its link entered at
// clock at.
func (cc *condCache) static(s engine.Step, at float64) float64 {
	if cc.timed == nil {
		return s.Time
	}
	return cc.timed.Clock.StaticTime(s.Link, at, s.Time, cc.timed.Links[s.Link].Mean)
}

// fromScratch conditions the model on o's whole route.
func (cc *condCache) fromScratch(o *engine.Observation) *linktime.Conditional {
	if cc.timed == nil {
		return conditionOn(cc.model, o)
	}
	links := make([]int, len(o.Prefix))
	times := make([]float64, len(o.Prefix))
	at := o.Clock
	for _, s := range o.Prefix {
		at -= s.Time // the departure
	}
	for k, s := range o.Prefix {
		links[k], times[k] = s.Link, cc.static(s, at)
		at += s.Time
	}
	return cc.model.Condition(links, times)
}

package lab

import (
	"context"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/sim"
)

// CompareRequest asks every method to drive through one realization.
type CompareRequest struct {
	OD     engine.OD
	Factor float64 // budget = Factor × the OD pair's LET time
	// Realization r is the first realization of common test pool r
	// (`ontime bench --pools r+1 --pool-size 1` scores the same one).
	Realization int
	Methods     []string
}

// Rollout is one method's drive.
type Rollout struct {
	Method string
	Steps  []engine.Step
	Result sim.Result
	// DecisionMS is the method's mean wall time per decision on this drive
	// (its tables or model already built): what it costs to follow it.
	DecisionMS float64
	Warning    string // outside what the method was trained for
	Err        string // the method could not run (the others still do)
}

// Route is the drive's links in order and the minutes spent on each.
func (ro Rollout) Route() (links []int, minutes []float64) {
	links, minutes = make([]int, len(ro.Steps)), make([]float64, len(ro.Steps))
	for i, s := range ro.Steps {
		links[i], minutes[i] = s.Link, s.Time
	}
	return links, minutes
}

// Comparison is every method on the same realization.
type Comparison struct {
	OD          engine.OD
	Budget      float64
	LETTime     float64
	Realization int
	Rollouts    []Rollout
}

// Realization draws the realization a comparison uses.
func (n *Net) Realization(r int) []float64 {
	return sim.NewPool(n.Model, n.Net.PoolKey(), sim.Test, r, 1, 0, nil).Row(0)
}

// Validate checks a request's OD pair and budget factor.
func (n *Net) Validate(od engine.OD, factor float64) (letTime float64, err error) {
	if od.Origin == od.Destination {
		return 0, engine.Errorf(engine.EINVALID, "origin and destination are the same node")
	}
	if !(factor > 0 && factor <= 5) { // NaN fails every comparison
		e := engine.Errorf(engine.EINVALID, "budget factor %.3g: give a factor in (0, 5]", factor)
		e.Field = "f"
		return 0, e
	}
	tree := n.Net.LET(od.Destination)
	if tree.Hops[od.Origin] < 0 {
		return 0, engine.Errorf(engine.EINVALID, "OD %s: the destination cannot be reached", n.Net.ODString(od))
	}
	if n.Net.Timed() {
		// budgets are factors of the time-dependent LET time at the
		// departure, as bench's are
		return sim.TimedLETTime(n.Net, od, n.departure()), nil
	}
	return tree.Time[od.Origin], nil
}

// departureText is the departure as HH:MM on a timed network, else "".
func (n *Net) departureText() string {
	if !n.Net.Timed() {
		return ""
	}
	return engine.FormatClock(n.departure())
}

// departure is when a run on n leaves: a network whose law changes over
// the day leaves at its departure (the questions' default, as bench and
// sim.Tasks do), never silently at midnight; a static one reads no clock.
func (n *Net) departure() float64 {
	if n.Net.Timed() {
		return n.Net.Clock.Depart
	}
	return 0
}

// Compare runs every method on one realization. A method that cannot be
// built or run gets its error in its rollout.
func (n *Net) Compare(ctx context.Context, req CompareRequest) (*Comparison, error) {
	let, err := n.Validate(req.OD, req.Factor)
	if err != nil {
		return nil, err
	}
	if req.Realization < 0 {
		return nil, engine.Errorf(engine.EINVALID, "realization %d: give a number ≥ 0", req.Realization)
	}
	c := &Comparison{OD: req.OD, Budget: req.Factor * let, LETTime: let, Realization: req.Realization}
	x := n.Realization(req.Realization)
	task := sim.Task{OD: req.OD, Budget: c.Budget, Cap: n.Net.StepCap, Depart: n.departure()}
	r := &sim.Runner{Net: n.Net}
	for _, m := range req.Methods {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ro := Rollout{Method: m, Warning: n.Scope(m, req.OD, req.Factor)}
		if !n.Runnable(m, req.OD) {
			ro.Err = ro.Warning
			c.Rollouts = append(c.Rollouts, ro)
			continue
		}
		p, err := n.Policy(m)
		if err == nil {
			t0 := time.Now()
			ro.Result, ro.Steps, err = r.Trace(p, task, x)
			if len(ro.Steps) > 0 {
				ro.DecisionMS = float64(time.Since(t0).Nanoseconds()) / 1e6 / float64(len(ro.Steps))
			}
		}
		if err != nil {
			ro.Err = err.Error()
		}
		c.Rollouts = append(c.Rollouts, ro)
	}
	return c, nil
}

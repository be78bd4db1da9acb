// Package depart answers the clock's questions on a network whose law
// changes over the day: "if I leave at 08:15, what are my chances of
// arriving by 09:00?" (the departure-time curve: P(arrive by D) against the
// departure, for every method) and "when must I leave to arrive by 09:00
// 95% of the time?" (the latest departure for a reliability). Every
// departure plays the same days (one test pool, its static draws read at
// the hours each link is entered), so the curve's points and the methods
// are paired.
package depart

import (
	"cmp"
	"context"
	"math"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/stats"
)

// Request is a departure-time curve's question.
type Request struct {
	Net      *engine.Network
	Model    *linktime.Gaussian
	OD       engine.OD
	Methods  []string
	Deadline float64   // arrive by, minutes after midnight
	Departs  []float64 // departures tried, each before the deadline
	Days     int       // days of the common test pool
	Models   string    // models directory (for a model method; refused anyway)
	// Purpose and Pool choose the days ("" : sim.Test; pool 0): the
	// battery replays a departure on fresh days.
	Purpose string
	Pool    int
}

// Curve is one method's on-time days at each departure, with Wilson 95%
// intervals of its rate.
type Curve struct {
	Method string    `json:"method"`
	Depart []float64 `json:"depart"`
	OnTime []int     `json:"on_time"`
	Rate   []float64 `json:"rate"`
	Lo     []float64 `json:"lo95"`
	Hi     []float64 `json:"hi95"`
	Days   int       `json:"days"`
	Bound  bool      `json:"bound,omitempty"`
}

// Curves plays every method at every departure on the same days.
func Curves(ctx context.Context, req Request) ([]Curve, error) {
	out, err := Outcomes(ctx, req)
	if err != nil {
		return nil, err
	}
	var curves []Curve
	for m, name := range req.Methods {
		meth, _ := policy.Lookup(name)
		c := Curve{Method: name, Days: req.Days, Bound: meth.IsBound()}
		for d, t := range req.Departs {
			k := 0
			for _, x := range out[m][d] {
				if x.OnTime {
					k++
				}
			}
			lo, hi := stats.Wilson(k, len(out[m][d]))
			c.Days = len(out[m][d])
			c.Depart = append(c.Depart, t)
			c.OnTime = append(c.OnTime, k)
			c.Rate = append(c.Rate, float64(k)/float64(c.Days))
			c.Lo, c.Hi = append(c.Lo, lo), append(c.Hi, hi)
		}
		curves = append(curves, c)
	}
	return curves, nil
}

// Outcomes plays every method at every departure on the same days:
// out[method][departure][day], the episodes themselves (the battery
// pairs them).
func Outcomes(ctx context.Context, req Request) ([][][]sim.Result, error) {
	net := req.Net
	if !net.Timed() {
		return nil, engine.Errorf(engine.EINVALID, "%s has no law over the day (its law is the same at every hour): ask for a budget, not a deadline", net.Name)
	}
	if len(req.Departs) == 0 {
		return nil, engine.Errorf(engine.EINVALID, "no departure times given")
	}
	var tasks []sim.Task
	for _, t := range req.Departs {
		if !(t < req.Deadline) {
			return nil, engine.Errorf(engine.EINVALID, "departure %s is not before the deadline %s", engine.FormatClock(t), engine.FormatClock(req.Deadline))
		}
		tasks = append(tasks, sim.Task{OD: req.OD, Budget: req.Deadline - t, Cap: net.StepCap, Depart: t})
	}
	env := &policy.Env{Net: net, Model: req.Model, Tasks: tasks, ModelsDir: req.Models, Ctx: ctx}
	pool := sim.NewPool(req.Model, net.PoolKey(), cmp.Or(req.Purpose, sim.Test), req.Pool, req.Days, 0, nil)
	r := &sim.Runner{Net: net}
	out := make([][][]sim.Result, len(req.Methods))
	for m, name := range req.Methods {
		meth, err := policy.Lookup(name)
		if err != nil {
			return nil, err
		}
		p, _, err := meth.Build(env)
		if err != nil {
			return nil, err
		}
		for _, task := range tasks {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			res := make([]sim.Result, pool.Size)
			if err := r.Run(p, task, pool, res); err != nil {
				return nil, err
			}
			out[m] = append(out[m], res)
		}
	}
	return out, nil
}

// Latest is the latest departure on c's grid whose rate reaches alpha,
// with an interval: the latest whose Wilson lower bound reaches alpha (a
// departure the days support surely) and the latest whose upper bound does
// (none later could). ok is false where no departure reaches alpha.
func (c Curve) Latest(alpha float64) (at, lo, hi float64, ok bool) {
	at, lo, hi = math.NaN(), math.NaN(), math.NaN()
	for i, t := range c.Depart {
		if c.Rate[i] >= alpha {
			at, ok = t, true
		}
		if c.Lo[i] >= alpha {
			lo = t
		}
		if c.Hi[i] >= alpha {
			hi = t
		}
	}
	return at, lo, hi, ok
}

// Grid is the departures from first to last (inclusive) every step minutes.
func Grid(first, last, step float64) []float64 {
	var ts []float64
	for i := 0; ; i++ {
		t := first + float64(i)*step
		if t > last+1e-9 {
			break
		}
		ts = append(ts, t)
	}
	return ts
}

// The battery on a network whose law changes over the day (issue 73).

package verify

import (
	"context"
	"fmt"
	"math"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/depart"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
)

// ClockInvariants are the battery's checks on a law over the day.
var ClockInvariants = []Invariant{
	{"clock-fifo", "the law is FIFO in expectation: on every link and step of the day, entering later never leaves earlier on average (engine.Clock.FIFOBreaks; exact)"},
	{"clock-constant-is-static", "the same network with every factor 1 gives every method's episodes of the static network, bit for bit (let, dot, cdot, cgr, fma, clairvoyant)"},
	{"clock-clairvoyant-bounds", "at every departure, on every episode, a method on time means the clairvoyant (the earliest arrival on the realized day) is (exact)"},
	{"clock-dot-not-below-let-independent", "with independent links the time-dependent DOT is optimal over policies of (node, clock): at every departure dot ≥ let − 0.01 (its grid) − Z paired standard errors"},
	{"clock-cdot-equals-dot-independent", "with independent links the law of the next link given the times seen is its marginal: the time-dependent cdot decides as the time-dependent dot on every episode at every departure (exact; both read the link's law at the clock of the table's row)"},
	{"clock-no-loops", "with independent links a second pass over a link only spends time: the time-dependent dot and cdot never drive a link twice in an episode (exact)"},
	{"clock-later-no-better", "without waiting at the origin, leaving later never helps the best policy where the day is FIFO: with independent links (where the time-dependent DOT is that policy, at its resolution) dot's rate at each departure is at most its rate 5 min earlier + Z paired standard errors. With waiting allowed it holds by construction (one may leave later). On correlated links dot is not the best policy and leaving later can help it: on Rushtown, 22-28, dot reached 0.06 more leaving at 07:27 than at 07:22 (2,000 days), so the check is not made there"},
	{"clock-latest-departure-reaches", "the latest departure that reaches α = 0.9 on one pool (dot, every 5 min), played on a fresh pool at that departure, reaches α − Z standard errors"},
}

// ClockCases are the timed cases: Rushtown as built, Rushtown's day on
// independent links, and a law over the day fitted to a year of
// Rushtown's traversals.
func ClockCases(logf func(string, ...any)) []Case {
	var cases []Case
	rush, err := builtin.Load(builtin.Rushtown, "")
	if err != nil {
		logf("verify: %s skipped: %v", builtin.Rushtown, err)
		return nil
	}
	cases = append(cases, Case{Name: builtin.Rushtown, Kind: "clock", Net: rush, Note: "two rush hours, spatially correlated links"})
	ind := *rush
	ind.Name += "-independent"
	ind.Correlation = engine.Correlation{Model: linktime.Independent}
	cases = append(cases, Case{Name: ind.Name, Kind: "clock", Net: &ind, Note: "Rushtown's day on independent links"})
	return cases
}

// clockDepartures are a case's departures to a deadline: every 5 min
// from an hour before it to 5 min before it.
func clockDepartures(deadline float64) []float64 {
	return depart.Grid(deadline-60, deadline-5, 5)
}

// runClockCase checks a timed case.
func runClockCase(ctx context.Context, c Case, o Options, model *linktime.Gaussian, ods []engine.OD) ([]Check, error) {
	net := c.Net
	var checks []Check
	add := func(ch Check) { ch.Case = c.Name; checks = append(checks, ch) }

	means := make([]float64, len(net.Links))
	for e, l := range net.Links {
		means[e] = l.Mean
	}
	br := net.Clock.FIFOBreaks(means)
	add(Check{Invariant: "clock-fifo", Value: float64(len(br)), OK: len(br) == 0, Detail: "link-steps where a later entry leaves earlier in expectation"})
	fifo := len(br) == 0

	size := o.Pools * o.PoolSize
	for _, od := range ods {
		if err := ctx.Err(); err != nil {
			return checks, err
		}
		// the deadline: 1.05 × the pair's time-dependent LET time from the
		// network's departure
		deadline := net.Clock.Depart + 1.05*sim.TimedLETTime(net, od, net.Clock.Depart)
		departs := clockDepartures(deadline)
		methods := []string{"let", "dot", "cgr", "cdot", "clairvoyant"}
		out, err := clockOutcomes(ctx, net, model, od, deadline, departs, methods, sim.Verify, 0, size)
		if err != nil {
			return checks, err
		}
		name := net.ODString(od)
		bad, ic := 0, len(methods)-1
		for m := range ic {
			for d := range departs {
				for e, res := range out[m][d] {
					if res.OnTime && !out[ic][d][e].OnTime {
						bad++
					}
				}
			}
		}
		add(Check{Invariant: "clock-clairvoyant-bounds", Value: float64(bad), OK: bad == 0, Detail: fmt.Sprintf("%s, arrive by %s, %d departures × %d days", name, engine.FormatClock(deadline), len(departs), size)})
		if net.Correlation.Model == linktime.Independent {
			differ := 0
			for d := range departs {
				for e := range out[1][d] {
					if out[1][d][e] != out[3][d][e] {
						differ++
					}
				}
			}
			loops := 0
			for _, m := range []int{1, 3} {
				for d := range departs {
					for _, res := range out[m][d] {
						if res.Revisit {
							loops++
						}
					}
				}
			}
			add(Check{Invariant: "clock-no-loops", Value: float64(loops), OK: loops == 0, Detail: fmt.Sprintf("%s: dot and cdot episodes that drive a link twice", name)})
			add(Check{Invariant: "clock-cdot-equals-dot-independent", Value: float64(differ), OK: differ == 0, Detail: fmt.Sprintf("%s: episodes where cdot and dot differ, %d departures × %d days", name, len(departs), size)})
			for d, t := range departs {
				mean, se := pairedDiff(out[1][d], out[0][d])
				bound := -0.01 - Z*se
				add(Check{Invariant: "clock-dot-not-below-let-independent", Value: mean, Bound: bound, OK: mean >= bound, Detail: fmt.Sprintf("%s leaving %s: dot − let", name, engine.FormatClock(t))})
			}
		}
		if fifo && net.Correlation.Model == linktime.Independent {
			for d := 1; d < len(departs); d++ {
				mean, se := pairedDiff(out[1][d], out[1][d-1])
				bound := Z * se
				add(Check{Invariant: "clock-later-no-better", Value: mean, Bound: bound, OK: mean <= bound, Detail: fmt.Sprintf("%s: dot leaving %s − leaving %s", name, engine.FormatClock(departs[d]), engine.FormatClock(departs[d-1]))})
			}
		}
		// the latest departure for α on one pool, played on a fresh one
		const alpha = 0.9
		grid := depart.Grid(deadline-90, deadline-1, 5)
		curves, err := depart.Curves(ctx, depart.Request{Net: net, Model: model, OD: od, Methods: []string{"dot"}, Deadline: deadline, Departs: grid, Days: o.PoolSize})
		if err != nil {
			return checks, err
		}
		if at, _, _, ok := curves[0].Latest(alpha); ok {
			fresh, err := clockOutcomes(ctx, net, model, od, deadline, []float64{at}, []string{"dot"}, sim.Verify, 1, size)
			if err != nil {
				return checks, err
			}
			k := 0
			for _, res := range fresh[0][0] {
				if res.OnTime {
					k++
				}
			}
			rate := float64(k) / float64(size)
			bound := alpha - Z*math.Sqrt(alpha*(1-alpha)/float64(size))
			add(Check{Invariant: "clock-latest-departure-reaches", Value: rate, Bound: bound, OK: rate >= bound, Detail: fmt.Sprintf("%s: arrive by %s, latest departure %s (dot, %d days), replayed on %d fresh days", name, engine.FormatClock(deadline), engine.FormatClock(at), o.PoolSize, size)})
		}
	}
	checks = append(checks, constantIsStatic(c.Name, net, model, ods)...)
	return checks, nil
}

// clockOutcomes plays each method at each departure to the deadline on
// the same days: out[method][departure][day].
func clockOutcomes(ctx context.Context, net *engine.Network, model *linktime.Gaussian, od engine.OD, deadline float64, departs []float64, methods []string, purpose string, index, size int) ([][][]sim.Result, error) {
	return depart.Outcomes(ctx, depart.Request{Net: net, Model: model, OD: od, Methods: methods, Deadline: deadline, Departs: departs, Days: size, Purpose: purpose, Pool: index})
}

// pairedDiff is the mean of a − b over paired episodes (on time 1, late 0)
// and its standard error.
func pairedDiff(a, b []sim.Result) (mean, se float64) {
	n := float64(len(a))
	var s, ss float64
	for i := range a {
		d := b2f(a[i].OnTime) - b2f(b[i].OnTime)
		s += d
		ss += d * d
	}
	mean = s / n
	return mean, math.Sqrt(math.Max(ss/n-mean*mean, 0) / n)
}

// constantIsStatic plays the network with every factor set to 1 against
// its static law, episode by episode.
func constantIsStatic(name string, net *engine.Network, model *linktime.Gaussian, ods []engine.OD) []Check {
	flat := *net
	c := *net.Clock
	c.Profiles = nil
	for _, p := range net.Clock.Profiles {
		q := engine.DayProfile{Name: p.Name, Mean: make([]float64, len(p.Mean)), Spread: make([]float64, len(p.Spread))}
		for k := range q.Mean {
			q.Mean[k], q.Spread[k] = 1, 1
		}
		c.Profiles = append(c.Profiles, q)
	}
	flat.Clock = &c
	static := *net
	static.Clock = nil
	tasks := sim.Tasks(&static, ods, []float64{0.95, 1.05})
	var checks []Check
	for _, m := range []string{"let", "dot", "cdot", "cgr", "fma", "clairvoyant"} {
		var got [2][]sim.Result
		for i, n := range []*engine.Network{&static, &flat} {
			env := &policy.Env{Net: n, Model: model, Tasks: tasks}
			meth, _ := policy.Lookup(m)
			p, _, err := meth.Build(env)
			if err != nil {
				checks = append(checks, Check{Case: name, Invariant: "clock-constant-is-static", OK: false, Detail: m + ": " + err.Error()})
				continue
			}
			pool := sim.NewPool(model, n.PoolKey(), sim.Verify, 0, 200, 0, nil)
			r := &sim.Runner{Net: n}
			for _, task := range tasks {
				out := make([]sim.Result, pool.Size)
				if err := r.Run(p, task, pool, out); err == nil {
					got[i] = append(got[i], out...)
				}
			}
		}
		diff := 0
		for k := range got[0] {
			if k >= len(got[1]) || got[0][k] != got[1][k] {
				diff++
			}
		}
		checks = append(checks, Check{Case: name, Invariant: "clock-constant-is-static", Value: float64(diff), OK: diff == 0 && len(got[0]) > 0, Detail: m + ": episodes that differ"})
	}
	return checks
}

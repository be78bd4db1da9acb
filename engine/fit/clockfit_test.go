package fit_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/fit"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// routeOnTime is the share of days drawn from net's law on which the
// route leaving at depart arrives within budget (each link read at the
// clock time it is entered).
func routeOnTime(t *testing.T, net *engine.Network, route []int, depart, budget float64, days int, seed uint64) float64 {
	model, err := linktime.New(net)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	row := make([]float64, len(net.Links))
	k := 0
	for range days {
		row = model.SampleN(rng, 1, row)
		c := depart
		for _, e := range route {
			c += net.Clock.Time(e, c, row[e], net.Links[e].Mean)
		}
		if c-depart <= budget {
			k++
		}
	}
	return float64(k) / float64(days)
}

// Recovery over the day. Traversals drawn from a known law over the day
// (Rushtown: rush hours that lengthen the ring road and widen its spread
// most, spatially correlated links, one draw a day read at every hour)
// are fitted back; fixed routes' on-time probabilities at several
// departures under the fitted law must match the true law's.
//
// The rule: for each route, departure and budget (the true law's 50% and
// 90% route times at that departure), |p_fitted − p_true| ≤
// 3·√(p(1−p)/D) + 3·√(2p(1−p)/N): the sampling error of the D days that
// inform the law at that hour, plus the Monte Carlo error of the N days
// each probability is counted on. D is the kernel's effective number of
// traversals, (Σw)²/Σw², of the route's least observed link at the
// departure (a traversal is a day: one draw a day). The rule first fixed
// took D as every day observed (365); it failed at 08:00 (fitted 0.62 and
// 0.56 where the truth is 0.51 and 0.50), where uniform traversals see
// each hour on far fewer days: a law at an hour is known from the days
// observed near it, not from the year.
func TestDayRecovery(t *testing.T) {
	truth, _ := testenv.Network(t, builtin.Rushtown, "")
	// A year of six traversals a day. With 120 days the held-out
	// likelihood chose a 60-min kernel that flattened the 08:00 peak
	// (fitted 0.78 where the truth is 0.51, beyond the rule): a known
	// limit of the fit, the bias the likelihood does not see.
	days, perDay := 365, 6
	obs, err := fit.SimulateDay(truth, days, perDay, 1)
	if err != nil {
		t.Fatal(err)
	}
	fitted, rep, err := fit.Fit(truth, obs)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Day == nil || !fitted.Timed() {
		t.Fatalf("traversals over the day fitted a static law: %+v", rep.Day)
	}
	t.Logf("bandwidth %g min (scores %+v); peak ×%.3f at %s; within-day score correlation %.3f over %d pairs; FIFO breaks %d",
		rep.Day.Bandwidth, rep.Day.Scores, rep.Day.Peak, engine.FormatClock(rep.Day.PeakAt), rep.Day.Within, rep.Day.WithinN, len(rep.Day.FIFO))
	if len(rep.Day.FIFO) != 0 {
		t.Errorf("the fitted day of a FIFO law breaks FIFO: %+v", rep.Day.FIFO[:min(3, len(rep.Day.FIFO))])
	}
	if !(rep.Day.Within > 0.95) {
		t.Errorf("within-day correlation %.3f: the true law holds one draw all day", rep.Day.Within)
	}
	const n = 20000
	for _, od := range truth.ODs[:2] {
		for _, at := range []float64{7 * 60, 8 * 60, 12 * 60, 17*60 + 30} {
			route, _ := truth.EarliestArrival(od.Origin, od.Destination, at, truth.MeanTimeAt())
			// the true law's route times at this departure, for the budgets
			model, _ := linktime.New(truth)
			rng := rand.New(rand.NewPCG(99, 1))
			row := make([]float64, len(truth.Links))
			var times []float64
			for range 4000 {
				row = model.SampleN(rng, 1, row)
				c := at
				for _, e := range route {
					c += truth.Clock.Time(e, c, row[e], truth.Links[e].Mean)
				}
				times = append(times, c-at)
			}
			sortFloats(times)
			for _, q := range []float64{0.5, 0.9} {
				budget := times[int(q*float64(len(times)))]
				pt := routeOnTime(t, truth, route, at, budget, n, 11)
				pf := routeOnTime(t, fitted, route, at, budget, n, 12)
				d := float64(days)
				for _, e := range route {
					d = math.Min(d, effectiveDays(obs.Links[e], at, rep.Day.Bandwidth))
				}
				tol := 3*math.Sqrt(pt*(1-pt)/d) + 3*math.Sqrt(2*pt*(1-pt)/n)
				t.Logf("%s at %s, budget %.3f: true %.4f fitted %.4f (tolerance %.4f, %.0f days)", truth.ODString(od), engine.FormatClock(at), budget, pt, pf, tol, d)
				if math.Abs(pf-pt) > tol {
					t.Errorf("%s leaving at %s, budget %.3f min: fitted P(on time) %.4f, true %.4f (tolerance %.4f)", truth.ODString(od), engine.FormatClock(at), budget, pf, pt, tol)
				}
			}
		}
	}
}

// effectiveDays is (Σw)²/Σw² of a Gaussian kernel of width h (minutes) at
// clock t over a link's traversals.
func effectiveDays(xs []fit.Obs, t, h float64) float64 {
	var s, s2 float64
	for _, x := range xs {
		d := math.Abs(x.Clock - t)
		d = math.Min(d, engine.MinutesPerDay-d)
		w := math.Exp(-d * d / (2 * h * h))
		s, s2 = s+w, s2+w*w
	}
	return s * s / s2
}

func sortFloats(xs []float64) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// Traversals whose times do not move with the clock fit the constant day:
// the static law, chosen by held-out likelihood, never a day made of noise.
func TestDayWithoutADayIsStatic(t *testing.T) {
	static, _ := testenv.Network(t, builtin.Ringtown, "")
	obs, err := fit.Simulate(static, 200, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	obs.Timed = true
	for e := range obs.Links {
		for i := range obs.Links[e] {
			obs.Links[e][i].Clock = float64(rng.IntN(engine.MinutesPerDay))
		}
	}
	fitted, rep, err := fit.Fit(static, obs)
	if err != nil {
		t.Fatal(err)
	}
	if fitted.Timed() || rep.Day == nil || rep.Day.Bandwidth != 0 {
		t.Fatalf("a day of noise fitted a law over the day: bandwidth %v, scores %+v", rep.Day.Bandwidth, rep.Day.Scores)
	}
}

// A file of traversals: a link seen several times in one day at different
// clock times is data; twice at the same time is refused; a time of day
// that is not HH:MM is refused naming the line and field.
func TestReadTraversals(t *testing.T) {
	net, _ := testenv.Network(t, builtin.Example, "")
	ok := "link,day,time,time_of_day\n1,d1,4,07:00\n1,d1,6,08:00\n1,d2,5,07:30\n2,d1,3,07:00\n"
	o, err := fit.ReadObservations("obs.csv", strings.NewReader(ok), net, 1, nil)
	if err != nil || !o.Timed || len(o.Links[0]) != 3 || o.Links[0][1].Clock != 480 {
		t.Fatalf("traversals: %+v, %v", o, err)
	}
	for _, c := range []struct{ csv, want string }{
		{"link,day,time,time_of_day\n1,d1,4,07:00\n1,d1,6,07:00\n", "obs.csv:3: field day: link"},
		{"link,day,time,time_of_day\n1,d1,4,24:00\n", "obs.csv:2: field time_of_day"},
		{"link,day,time,time_of_day\n1,d1,4,\n", "obs.csv:2: field time_of_day"},
	} {
		_, err := fit.ReadObservations("obs.csv", strings.NewReader(c.csv), net, 1, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.csv, err, c.want)
		}
	}
}

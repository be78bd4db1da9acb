package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

func ringtownNet(t *testing.T, corr engine.Correlation) *Net {
	t.Helper()
	net, err := builtin.Load(builtin.Ringtown, "")
	if err != nil {
		t.Fatal(err)
	}
	net.Correlation = corr
	model, err := linktime.New(net)
	if err != nil {
		t.Fatal(err)
	}
	return newNet(net, model, Options{}, "")
}

// What any correct least-budget search satisfies on Ringtown: let's budget
// is the ⌈αn⌉-th smallest time of its route over the common realizations;
// every budget lies in its interval and grows with α; under independent
// links DOT's table answer (exact for its rounded-up law) is no less than
// the simulated interval's lower end and within a step per link of its
// upper end.
func TestPlanInvariants(t *testing.T) {
	if testing.Short() {
		t.Skip("the search runs on one goroutine: the plain pass checks it, the race run has nothing to find")
	}
	const episodes = 1000
	laws := []engine.Correlation{{Model: linktime.Independent}, {Model: linktime.Spatial, Strength: 0.8, Length: 1500}}
	for _, corr := range laws {
		n := ringtownNet(t, corr)
		od := n.Net.ODs[0]
		route := n.Net.LET(od.Destination).Path(od.Origin, n.Net)
		pool := sim.NewPool(n.Model, n.Net.PoolKey(), sim.Test, 0, PoolSize, 0, nil)
		sums := make([]float64, episodes)
		for i := range sums {
			for _, e := range route {
				sums[i] += pool.Row(i)[e]
			}
		}
		sort.Float64s(sums)
		prev := map[string]float64{}
		for _, alpha := range []float64{0.8, 0.9, 0.95} {
			p, err := n.Plan(context.Background(), PlanRequest{OD: od, Alpha: alpha, Methods: []string{"let", "dot"}, Episodes: episodes, Routes: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range p.Rows {
				if r.Err != "" || r.Hi == nil {
					t.Fatalf("%s, α %v, %s: %+v", corr.Model, alpha, r.Method, r)
				}
				if !(r.Lo <= r.Budget.Budget && r.Budget.Budget <= *r.Hi) || r.Rate < alpha || r.Budget.Budget < prev[r.Method] {
					t.Errorf("%s, α %v, %s: budget %.3f in [%.3f, %.3f] at rate %.4f (at α before: %.3f)", corr.Model, alpha, r.Method, r.Budget.Budget, r.Lo, *r.Hi, r.Rate, prev[r.Method])
				}
				prev[r.Method] = r.Budget.Budget
			}
			let := p.Rows[0]
			want := sums[int(math.Ceil(alpha*episodes))-1]
			if let.Budget.Budget < want || let.Budget.Budget > want+let.Tol {
				t.Errorf("%s, α %v: let's budget %.4f, its route's %d-th time is %.4f", corr.Model, alpha, let.Budget.Budget, int(math.Ceil(alpha*episodes)), want)
			}
			// The fastest route's planning time (its 95th percentile) is
			// let's least budget for 0.95, computed the other way.
			if len(p.Routes) != 2 || !slices.Equal(p.Routes[0].Links, route) || p.Routes[0].N != episodes {
				t.Fatalf("%s: routes %+v, the LET route %v", corr.Model, p.Routes, route)
			}
			if ix := p.Routes[0].Indices; alpha == 0.95 && (let.Budget.Budget < ix.P95 || let.Budget.Budget > ix.P95+let.Tol) {
				t.Errorf("%s: let's budget for 0.95 is %.4f, its route's 95th percentile %.4f", corr.Model, let.Budget.Budget, ix.P95)
			}
			dot := p.Rows[1]
			if dot.Table == nil || dot.Table.Err != "" {
				t.Fatalf("dot has no table answer: %+v", dot.Table)
			}
			t.Logf("%s, α %v: let %.2f [%.2f, %.2f]; dot %.2f [%.2f, %.2f], its table %.2f (step %.3f)", corr.Model, alpha,
				let.Budget.Budget, let.Lo, *let.Hi, dot.Budget.Budget, dot.Lo, *dot.Hi, dot.Table.Budget, dot.Table.Step)
			if corr.Model == linktime.Independent {
				slack := float64(len(route)) * dot.Table.Step
				if dot.Table.Budget < dot.Lo || dot.Table.Budget > *dot.Hi+slack {
					t.Errorf("α %v: dot's table %.3f outside its simulated [%.3f, %.3f] (+ %.3f for rounding)", alpha, dot.Table.Budget, dot.Lo, *dot.Hi, slack)
				}
			}
		}
	}
}

func TestPlanRefuses(t *testing.T) {
	if testing.Short() {
		t.Skip("one goroutine: the plain pass checks it")
	}
	n := ringtownNet(t, engine.Correlation{Model: linktime.Independent})
	od := n.Net.ODs[0]
	for _, tc := range []struct {
		req  PlanRequest
		want string
	}{
		{PlanRequest{OD: od, Alpha: 1.5, Methods: []string{"let"}}, "between 0 and 1"},
		{PlanRequest{OD: od, Alpha: 0, Methods: []string{"let"}}, "between 0 and 1"},
		{PlanRequest{OD: engine.OD{Origin: od.Origin, Destination: od.Origin}, Alpha: 0.9, Methods: []string{"let"}}, "the same node"},
		{PlanRequest{OD: od, Alpha: 0.9, Methods: []string{"let"}, MaxFactor: 0.5}, "largest budget factor"},
	} {
		_, err := n.Plan(context.Background(), tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.req, err, tc.want)
		}
	}
	// A range that never reaches the target: the row says how far it got.
	p, err := n.Plan(context.Background(), PlanRequest{OD: od, Alpha: 0.999, Methods: []string{"let", "dot"}, MaxFactor: 1.01, Episodes: 500})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Rows {
		if !strings.Contains(r.Err, "out of reach within") {
			t.Errorf("%s: %q", r.Method, r.Err)
		}
	}
	if tb := p.Rows[1].Table; tb == nil || tb.Err == "" {
		t.Errorf("dot's table within 1.01 × LET: %+v", tb)
	}
}

// Issue 47: where a network's days do not fit in pagePoolBytes (a pool of
// 2,000 days of the 249,000-link grid is 3.7 GB), a live run and a plan
// play the first days of test pool 0 that fit and say so; those days are
// the pool's own (a run asked for that many plays the same rates), for the
// independent and the factor models, the two kinds that grow that large.
// Where not even minDays fit, both are refused with the reason.
func TestRunsPlayTheDaysThatFit(t *testing.T) {
	for _, corr := range []engine.Correlation{{Model: linktime.Independent}, {Model: linktime.SpatialFactor, Strength: 0.5, Length: 3, Factors: 4}} {
		n := ringtownNet(t, corr)
		od := n.Net.ODs[0]
		live := func(days int) (*LiveResult, error) {
			return n.Live(context.Background(), LiveRequest{OD: od, Factor: 1, Methods: []string{"let", "cgr"}, Episodes: days, Curve: []float64{0.9, 1.1}}, func(LiveUpdate) error { return nil })
		}
		plan := func(days int) (*Plan, error) {
			return n.Plan(context.Background(), PlanRequest{OD: od, Alpha: 0.9, Methods: []string{"let"}, Episodes: days, Routes: 1})
		}
		const fit = 500
		wantLive, err := live(fit)
		if err != nil {
			t.Fatal(err)
		}
		wantPlan, err := plan(fit)
		if err != nil {
			t.Fatal(err)
		}
		if wantLive.Note != "" || wantPlan.Note != "" || wantPlan.Days != fit {
			t.Fatalf("%s: a network that fits: notes %q, %q, %d days", corr.Model, wantLive.Note, wantPlan.Note, wantPlan.Days)
		}
		func() {
			defer func(b int) { pagePoolBytes = b }(pagePoolBytes)
			pagePoolBytes = fit*n.Model.Dim()*8 + 7
			note := fmt.Sprintf("ringtown plays %d days, not the 2,000 asked: a day holds all 168 links' times", fit)
			got, err := live(PoolSize)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got.Note, note) || got.Asked != PoolSize {
				t.Errorf("%s: live's note %q (asked %d)", corr.Model, got.Note, got.Asked)
			}
			for i, r := range got.Rates {
				if w := wantLive.Rates[i]; r.N != fit || r.OnTime != w.OnTime {
					t.Errorf("%s: live %s: %d of %d on time, asked for %d days %d", corr.Model, r.Method, r.OnTime, r.N, fit, w.OnTime)
				}
			}
			if !reflect.DeepEqual(got.Curve, wantLive.Curve) {
				t.Errorf("%s: live's curve %v, asked for %d days %v", corr.Model, got.Curve, fit, wantLive.Curve)
			}
			p, err := plan(PoolSize)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(p.Note, note) || p.Days != fit || p.Asked != PoolSize {
				t.Errorf("%s: plan's note %q, %d days of %d", corr.Model, p.Note, p.Days, p.Asked)
			}
			if !reflect.DeepEqual(p.Rows, wantPlan.Rows) || !reflect.DeepEqual(p.Routes, wantPlan.Routes) {
				t.Errorf("%s: plan %+v %+v, asked for %d days %+v %+v", corr.Model, p.Rows, p.Routes, fit, wantPlan.Rows, wantPlan.Routes)
			}
			pagePoolBytes = minDays*n.Model.Dim()*8 - 1
			_, err = live(100)
			_, perr := plan(100)
			for name, err := range map[string]error{"live": err, "plan": perr} {
				if engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(engine.ErrorMessage(err), "ringtown is too large for a run of many days here: 400 days of its 168 links' times") {
					t.Errorf("%s: %s under %d days: %v", corr.Model, name, minDays, err)
				}
			}
		}()
	}
}

// Live and the plan play their episodes on every core (sim.Crew): their
// answers are those of one core, with planners that condition on what
// they saw (cdot, cgr), DOT's tables and the clairvoyant bound, on
// correlated links.
func TestRunsOnEveryCoreAnswerAsOnOne(t *testing.T) {
	n := ringtownNet(t, engine.Correlation{Model: linktime.SpatialFactor, Strength: 0.5, Length: 3, Factors: 4})
	od := n.Net.ODs[0]
	methods := []string{"let", "dot", "cdot", "cgr", "clairvoyant"}
	days := testenv.Sized(600, 150) // the race run: the same crew on fewer days (53 s at 600)
	run := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		live, err := n.Live(context.Background(), LiveRequest{OD: od, Factor: 1, Methods: methods, Episodes: days, Curve: []float64{0.9, 1.1}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := n.Plan(context.Background(), PlanRequest{OD: od, Alpha: 0.9, Methods: methods, Episodes: days})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range append(slices.Clone(live.Rates), Rate{Err: plan.Rows[0].Err}) {
			if r.Err != "" {
				t.Fatalf("%s: %s", r.Method, r.Err)
			}
		}
		times := fmt.Sprint(live.Times) // NaN prints alike, where it compares unequal
		live.Times = nil
		js, err := json.Marshal([]any{live, plan})
		if err != nil {
			t.Fatal(err)
		}
		return times + string(js)
	}
	if one, three := run(1), run(3); one != three {
		t.Errorf("on one core and on three, the answers differ:\n%.2000s\n%.2000s", one, three)
	}
}

// Issue 71, cause 3: a plan holds at most PlanPoolBytes of link times,
// whatever it asks for, and says how many days it played; its answer is
// the plan of those days.
func TestPlanMemoryIsBounded(t *testing.T) {
	n := ringtownNet(t, engine.Correlation{Model: linktime.Independent})
	od := n.Net.ODs[0]
	plan := func(days int) *Plan {
		p, err := n.Plan(context.Background(), PlanRequest{OD: od, Alpha: 0.9, Methods: []string{"let"}, Episodes: days})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	want := plan(600)
	defer func(b int) { PlanPoolBytes = b }(PlanPoolBytes)
	PlanPoolBytes = 600 * n.Model.Dim() * 8
	got := plan(5000)
	if got.Days != 600 || got.Asked != 5000 || !strings.Contains(got.Note, "ringtown plans on 600 days, not the 5,000 asked") {
		t.Errorf("%d days of %d: %q", got.Days, got.Asked, got.Note)
	}
	if !reflect.DeepEqual(got.Rows, want.Rows) {
		t.Errorf("the bounded plan %+v, the plan of 600 days %+v", got.Rows, want.Rows)
	}
	PlanPoolBytes = 10 // below minDays: a plan still plays minDays
	if got := plan(5000); got.Days != minDays {
		t.Errorf("%d days, want the least, %d", got.Days, minDays)
	}
}

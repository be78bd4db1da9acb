package lab

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/sim"
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

// A network whose test pool would pass the pages' bound is refused by the
// live run and the plan, saying why (a 4 GB pool on the 249,000-link grid
// held the server at 4.5 GB for one method's plan); under it both run.
func TestManyDaysRefusedWherePoolsDoNotFit(t *testing.T) {
	n := ringtownNet(t, engine.Correlation{Model: linktime.Independent})
	od := n.Net.ODs[0]
	live := func() error {
		_, err := n.Live(context.Background(), LiveRequest{OD: od, Factor: 1, Methods: []string{"let"}, Episodes: 100}, func(LiveUpdate) error { return nil })
		return err
	}
	plan := func() error {
		_, err := n.Plan(context.Background(), PlanRequest{OD: od, Alpha: 0.9, Methods: []string{"let"}, Episodes: 100})
		return err
	}
	for name, run := range map[string]func() error{"live": live, "plan": plan} {
		if err := run(); err != nil {
			t.Fatalf("%s under the bound: %v", name, err)
		}
	}
	defer func(b int) { pagePoolBytes = b }(pagePoolBytes)
	pagePoolBytes = PoolSize*n.Model.Dim()*8 - 1
	for name, run := range map[string]func() error{"live": live, "plan": plan} {
		err := run()
		if engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(engine.ErrorMessage(err), "ringtown is too large for a run of many days here: a pool of 2,000 days of its 168 links' times") {
			t.Errorf("%s over the bound: %v", name, err)
		}
	}
}

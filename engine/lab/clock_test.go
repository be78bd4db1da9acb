package lab

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/sim"
)

// On a network whose law changes over the day every run leaves at its
// departure, budgets as factors of the time-dependent LET time there
// (never silently at midnight on the static law): the comparison, Live
// and the plan say the departure; a method without the clock says why;
// the plan's static table budget and route indices, which would ignore
// the hour, are left out with a note.
func TestRunsOnATimedNetworkLeaveAtItsDeparture(t *testing.T) {
	net, err := builtin.Load(builtin.Rushtown, "")
	if err != nil {
		t.Fatal(err)
	}
	model, err := linktime.New(net)
	if err != nil {
		t.Fatal(err)
	}
	n := newNet(net, model, Options{}, "")
	od := net.ODs[0]
	want := sim.TimedLETTime(net, od, net.Clock.Depart)
	ctx := context.Background()
	c, err := n.Compare(ctx, CompareRequest{OD: od, Factor: 1.05, Methods: []string{"let", "fma"}})
	if err != nil || math.Abs(c.LETTime-want) > 1e-12 || c.Rollouts[1].Err == "" || !strings.Contains(c.Rollouts[1].Err, "does not know the clock") {
		t.Fatalf("compare: LET %v (want %v), %+v, %v", c.LETTime, want, c.Rollouts, err)
	}
	live, err := n.Live(ctx, LiveRequest{OD: od, Factor: 1.05, Methods: []string{"let", "clairvoyant"}, Episodes: 200}, func(LiveUpdate) error { return nil })
	if err != nil || live.Depart != "07:30" || math.Abs(live.LETTime-want) > 1e-12 || live.Rates[0].OnTime > live.Rates[1].OnTime {
		t.Fatalf("live: %+v, %v", live, err)
	}
	p, err := n.Plan(ctx, PlanRequest{OD: od, Alpha: 0.9, Methods: []string{"let"}, Episodes: 200, Routes: 2})
	if err != nil || p.Depart != "07:30" || len(p.Routes) != 0 || !strings.Contains(p.Note, "by departure hour") {
		t.Fatalf("plan: %+v, %v", p, err)
	}
	if tb := n.tableBudget("dot", od, 0.9, 20); tb != nil {
		t.Errorf("a static DOT table's budget on a law over the day: %+v", tb)
	}
	static := ringtownNet(t, net.Correlation)
	if p, err := static.Plan(ctx, PlanRequest{OD: od, Alpha: 0.9, Methods: []string{"let"}, Episodes: 100}); err != nil || p.Depart != "" {
		t.Fatalf("a static plan: %+v, %v", p, err)
	}
}

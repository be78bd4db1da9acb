package bench_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// A benchmark on a network whose law changes over the day leaves at its
// departure: each pair's row names the time-dependent LET path and time
// at it, budgets are factors of that time, and the clairvoyant bound holds
// in every cell; --arrive-by asks one budget, the deadline less the
// departure. A departure on a static network and a deadline before the
// departure are refused.
func TestBenchAtADeparture(t *testing.T) {
	net, model := testenv.Network(t, builtin.Rushtown, "")
	at, by := 8*60.0, 8*60.0+8
	cfg := bench.Config{Net: net, Model: model, Methods: []string{"let", "dot", "clairvoyant"}, ODs: net.ODs[:2],
		Budgets: []float64{0.95, 1.1}, Pools: 2, PoolSize: 200, Depart: &at}
	rep, err := bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, od := range rep.ODs {
		want := sim.TimedLETTime(net, net.ODs[i], at)
		if od.Depart != "08:00" || math.Abs(od.LETTime-want) > 1e-12 {
			t.Errorf("%s: depart %q, LET %v; want 08:00 and the time-dependent %v", od.OD, od.Depart, od.LETTime, want)
		}
	}
	if rep.Provenance.Depart != "08:00" || !strings.Contains(rep.Provenance.OnTime, "time-dependent LET") {
		t.Errorf("provenance %q %q", rep.Provenance.Depart, rep.Provenance.OnTime)
	}
	for _, od := range rep.ODs {
		for _, b := range rep.Budgets {
			row := rep.ODRow(od.OD, b)
			for m := range row {
				if row[m].Mean > row[2].Mean+1e-12 {
					t.Errorf("%s ×%v: %s %.4f above the clairvoyant bound %.4f", od.OD, b, rep.Methods[m], row[m].Mean, row[2].Mean)
				}
			}
		}
	}
	cfg.ArriveBy = &by
	rep, err = bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Budgets) != 1 || rep.Budgets[0] != 8 || rep.Provenance.ArriveBy != "08:08" {
		t.Errorf("arrive by 08:08 leaving 08:00: budgets %v, provenance %q", rep.Budgets, rep.Provenance.ArriveBy)
	}
	early := 7 * 60.0
	cfg.ArriveBy = &early
	if _, err := bench.Run(context.Background(), cfg); engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(err.Error(), "not after the departure") {
		t.Errorf("a deadline before the departure: %v", err)
	}
	static, sm := testenv.Network(t, builtin.Ringtown, "")
	cfg = bench.Config{Net: static, Model: sm, Methods: []string{"let"}, ODs: static.ODs[:1], Budgets: []float64{1}, Pools: 1, PoolSize: 10, Depart: &at}
	if _, err := bench.Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "same law at every hour") {
		t.Errorf("a departure on a static network: %v", err)
	}
}

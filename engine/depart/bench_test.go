package depart_test

import (
	"context"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/depart"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// BenchmarkCurveAnaheim is issue 73's curve target (under 60 s): every 5
// minutes over the 3 hours before 09:00, on Anaheim under a weekday's rush
// hours, 2,000 days each, for let, dot, cdot and cgr.
func BenchmarkCurveAnaheim(b *testing.B) {
	net, model := testenv.Network(b, "anaheim", testenv.DataDir(b))
	net.Clock = &engine.Clock{Step: 15, Profiles: []engine.DayProfile{engine.RushHourProfile(15, 0.8, 0.5)}, Depart: 8 * 60}
	od := net.ODs[0]
	deadline := 8*60 + 1.2*sim.TimedLETTime(net, od, 8*60)
	for range b.N {
		t0 := time.Now()
		curves, err := depart.Curves(context.Background(), depart.Request{Net: net, Model: model, OD: od, Methods: []string{"let", "dot", "cdot", "cgr"},
			Deadline: deadline, Departs: depart.Grid(deadline-180, deadline-5, 5), Days: 2000})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(t0).Seconds(), "s/curve")
		b.Logf("anaheim %s, arrive by %s: %d departures × 4 methods × 2000 days in %v", net.ODString(od), engine.FormatClock(deadline), len(curves[0].Depart), time.Since(t0))
	}
}

package policy_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// benchTimedDOTWindow is issue 73's speed target: the time-dependent DOT
// for one deadline (09:00) over a 3-hour departure window (its table from
// 06:00 on, less the trip), on a benchmark network under a weekday's rush
// hours, its step a thousandth of the first pair's budget at 08:00
// (1.1 × its time-dependent LET time).
func benchTimedDOTWindow(b *testing.B, name string) {
	net, model := testenv.Network(b, name, testenv.DataDir(b))
	timedDOTWindow(b, name, net, model)
}

func timedDOTWindow(b *testing.B, name string, net *engine.Network, model *linktime.Gaussian) {
	net.Clock = &engine.Clock{Step: 15, Profiles: []engine.DayProfile{engine.RushHourProfile(15, 0.8, 0.5)}, Depart: 8 * 60}
	od := net.ODs[0]
	deadline := 9 * 60.0
	budget := 1.1 * sim.TimedLETTime(net, od, 8*60)
	horizon := 180.0
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		t0 := time.Now()
		d := policy.NewTimedDOT(net, model, budget/1000)
		d.Solve(od.Destination, deadline, horizon)
		runtime.ReadMemStats(&after)
		b.ReportMetric(time.Since(t0).Seconds(), "s/solve")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), "MB-allocated")
		b.ReportMetric(float64(after.Sys)/(1<<20), "MB-sys")
		b.Logf("%s: %d nodes, %d links, step %.4f min, %d rows: %v; P(on time) leaving 06:00 %.4f, 08:00 %.4f, 08:30 %.4f",
			name, len(net.Nodes), len(net.Links), budget/1000, int(horizon/(budget/1000)), time.Since(t0),
			d.Value(od.Destination, od.Origin, deadline, 180), d.Value(od.Destination, od.Origin, deadline, 60), d.Value(od.Destination, od.Origin, deadline, 30))
	}
}

func BenchmarkTimedDOTWindowSFN(b *testing.B)     { benchTimedDOTWindow(b, "sfn") }
func BenchmarkTimedDOTWindowAnaheim(b *testing.B) { benchTimedDOTWindow(b, "anaheim") }

// BenchmarkTimedDOTWindowChicagoRegional is the city target (under 2 min
// and 4 GB): Chicago Regional's TNTP files imported with the defaults.
func BenchmarkTimedDOTWindowChicagoRegional(b *testing.B) {
	p := filepath.Join(testenv.DataDir(b), "tntp", "ChicagoRegional_net.tntp")
	if _, err := os.Stat(p); err != nil {
		testenv.Missing(b, "ChicagoRegional_net.tntp in the data directory")
	}
	files, err := netfile.ReadFiles(p)
	if err != nil {
		b.Fatal(err)
	}
	net, _, err := netfile.Import(files, netfile.ImportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	model, err := linktime.New(net)
	if err != nil {
		b.Fatal(err)
	}
	timedDOTWindow(b, "chicago-regional", net, model)
}

package bench_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
	"github.com/ontime-routing/ontime/internal/procstatus"
)

// cityFiles reads Chicago Regional's TNTP files (39,018 links).
func cityFiles(tb testing.TB) []netfile.File {
	tb.Helper()
	p := filepath.Join(testenv.DataDir(tb), "tntp", "ChicagoRegional_net.tntp")
	if _, err := os.Stat(p); err != nil {
		testenv.Missing(tb, "ChicagoRegional_net.tntp in the data directory")
	}
	files, err := netfile.ReadFiles(p)
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// cityModel imports Chicago Regional with the defaults and builds its model.
func cityModel(b *testing.B) (*engine.Network, *linktime.Gaussian) {
	b.Helper()
	net, _, err := netfile.Import(cityFiles(b), netfile.ImportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	model, err := linktime.New(net)
	if err != nil {
		b.Fatal(err)
	}
	return net, model
}

// peakRSSMB is the process's peak resident memory (VmHWM), in MB.
func peakRSSMB() float64 {
	n, _ := procstatus.Bytes("VmHWM")
	return float64(n) / (1 << 20)
}

// BenchmarkCityImport measures, on Chicago Regional, what `ontime networks
// add` and opening the network cost: reading and validating the files, the
// default spatial factor model, and the LET trees of the 5 OD pairs.
// Reported: peak resident memory of the process.
//
//	ONTIME_DATA=../shared/networks go test -run '^$' -bench CityImport -benchtime 1x ./engine/bench/
func BenchmarkCityImport(b *testing.B) {
	for range b.N {
		net, _, err := netfile.Import(cityFiles(b), netfile.ImportOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := linktime.New(net); err != nil {
			b.Fatal(err)
		}
		for _, od := range net.ODs {
			net.LET(od.Destination)
		}
	}
	b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
}

// BenchmarkCityDOT measures one DOT table on Chicago Regional (the first OD
// pair's destination, budgets up to 1.05 × its LET time): uncapped above
// policy.DOTTableLimit, which it reports.
//
//	ONTIME_DATA=../shared/networks go test -run '^$' -bench CityDOT -benchtime 1x ./engine/bench/
func BenchmarkCityDOT(b *testing.B) {
	net, model := cityModel(b)
	od := net.ODs[0]
	budget := 1.05 * net.LET(od.Destination).Time[od.Origin]
	env := &policy.Env{Net: net, Model: model, Tasks: []sim.Task{{OD: od, Budget: budget, Cap: net.StepCap}}}
	b.ResetTimer()
	var dot *policy.DOT
	for range b.N {
		dot = env.NewDOT()
		dot.Solve(od.Destination, budget)
	}
	b.StopTimer()
	if dot.CapIgnored {
		b.Logf("the table dropped the step cap (%d links) to stay under %d bytes", net.StepCap, policy.DOTTableLimit)
	}
	b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
}

// BenchmarkCityDecisions measures cgr's and cdot's decisions on Chicago
// Regional (the spatial factor model): 50 realizations of the first OD
// pair at budget factor 1, one goroutine. Reported: decisions/s.
//
//	ONTIME_DATA=../shared/networks go test -run '^$' -bench CityDecisions -benchtime 1x ./engine/bench/
func BenchmarkCityDecisions(b *testing.B) {
	net, model := cityModel(b)
	od := net.ODs[0]
	task := sim.Task{OD: od, Budget: net.LET(od.Destination).Time[od.Origin], Cap: net.StepCap}
	env := &policy.Env{Net: net, Model: model, Tasks: []sim.Task{task}}
	pool := sim.NewPool(model, net.PoolKey(), sim.Test, 0, 50, 0, nil)
	for _, name := range []string{"cgr", "cdot"} {
		b.Run(name, func(b *testing.B) {
			m, err := policy.Lookup(name)
			if err != nil {
				b.Fatal(err)
			}
			pol, _, err := m.New(env)
			if err != nil {
				b.Fatal(err)
			}
			r := &sim.Runner{Net: net}
			res := make([]sim.Result, pool.Size)
			decisions := 0
			b.ResetTimer()
			for range b.N {
				if err := r.Run(pol, task, pool, res); err != nil {
					b.Fatal(err)
				}
				for _, x := range res {
					decisions += x.Links
				}
			}
			b.ReportMetric(float64(decisions)/b.Elapsed().Seconds(), "decisions/s")
		})
	}
}

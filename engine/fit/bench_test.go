package fit_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/fit"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// cityGrid is a w × h grid of two-way streets (about 4wh links) under the
// log-normal law with spatial-factor correlation: a stand-in city whose
// observations a benchmark fits.
func cityGrid(w, h int) *engine.Network {
	net := testenv.GridNetwork(fmt.Sprintf("grid%dx%d", w, h), w, h, 100, func(a, b int) (float64, float64) {
		m := 1 + float64((a*7+b*13)%17)/4
		return m, 0.09 * m * m
	})
	net.Law = linktime.LogNormalLaw
	net.Correlation = engine.Correlation{Model: linktime.SpatialFactor, Strength: 0.6, Length: float64(max(w, h)) * 15, Factors: 16}
	return net
}

func benchFit(b *testing.B, w, h, days int) {
	net := cityGrid(w, h)
	obs, err := fit.Simulate(net, days, 0.1, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		t0 := time.Now()
		_, rep, err := fit.Fit(net, obs)
		if err != nil {
			b.Fatal(err)
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(time.Since(t0).Seconds(), "s/fit")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), "MB-allocated")
		b.Logf("%d links × %d days (%d rows): rank %d, explained %.2f, %v", len(net.Links), days, obs.Rows, rep.Rank, rep.Explained, time.Since(t0))
	}
}

// BenchmarkFit3000Links1000Days is the first speed target (under 30 s).
func BenchmarkFit3000Links1000Days(b *testing.B) { benchFit(b, 28, 28, 1000) }

// BenchmarkFit40000Links365Days is the city target (under 5 min, 4 GB).
func BenchmarkFit40000Links365Days(b *testing.B) { benchFit(b, 100, 100, 365) }

// BenchmarkFitDay3000Links365Days6Traversals is the day's target (issue
// 73: under 5 min and 4 GB): a city grid with a weekday's rush hours, six
// traversals of each link a day at clock times over the day.
func BenchmarkFitDay3000Links365Days6Traversals(b *testing.B) {
	net := cityGrid(28, 28)
	net.Clock = &engine.Clock{Step: 15, Profiles: []engine.DayProfile{engine.RushHourProfile(15, 0.8, 0.5)}, Depart: 7 * 60}
	obs, err := fit.SimulateDay(net, 365, 6, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		t0 := time.Now()
		_, rep, err := fit.Fit(net, obs)
		if err != nil {
			b.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		b.ReportMetric(time.Since(t0).Seconds(), "s/fit")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), "MB-allocated")
		b.ReportMetric(float64(after.Sys)/(1<<20), "MB-sys")
		b.Logf("%d links × %d days × %d traversals (%d rows): kernel σ %g min, %v", len(net.Links), 365, 6, obs.Rows, rep.Day.Bandwidth, time.Since(t0))
	}
}

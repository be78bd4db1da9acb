package perf

import (
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine/bench"
)

// The comparison with the published report finds one changed pool, and
// only compares the methods both reports have.
func TestComparePublished(t *testing.T) {
	report := func(methods ...string) *bench.Report {
		r := &bench.Report{Network: "net", Provenance: bench.Provenance{Pools: make([]bench.PoolInfo, 2)}}
		for _, m := range methods {
			for _, b := range []float64{0.95, 1} {
				r.PerOD = append(r.PerOD, bench.ODSummary{Method: m, OD: "1-2", Budget: b, PoolMeans: []float64{0.25, 0.5}})
			}
		}
		return r
	}
	pub := report("let", "dot", "segac-let")
	if got := comparePublished(report("let", "dot", "cgr"), pub); !strings.Contains(got, "all 4 (pool, OD pair, budget) rates of each of the 2 methods (let, dot)") {
		t.Errorf("the same rates: %s", got)
	}
	moved := report("let", "dot")
	moved.PerOD[3].PoolMeans = []float64{0.25, 0.5000000000000001}
	if got := comparePublished(moved, pub); !strings.Contains(got, "differ") || !strings.Contains(got, "dot on 1-2 at 1") || !strings.Contains(got, "in 1 of 4") {
		t.Errorf("one rate moved by an ulp: %s", got)
	}
	if got := comparePublished(report("cgr"), pub); !strings.Contains(got, "No method in common") {
		t.Errorf("no method in common: %s", got)
	}
}

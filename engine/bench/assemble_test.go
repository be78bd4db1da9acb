package bench_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/internal/testenv"
)

// comparable is a report's JSON without its timings.
func comparable(t *testing.T, rep *bench.Report) string {
	t.Helper()
	b, err := json.Marshal(rep.WithoutTimings())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Evaluated in parts (by OD pair and by ranges of pools, in any order) and
// assembled, a benchmark gives the report of one Run, bit for bit.
func TestAssembledPartsEqualOneRun(t *testing.T) {
	net, model := testenv.Network(t, "ringtown", "")
	cfg := bench.Config{Net: net, Model: model, Methods: []string{"let", "dot", "cgr"}, Budgets: []float64{0.95, 1.05},
		ODs: net.ODs[:2], Pools: 5, PoolSize: testenv.Sized(200, 40), Workers: 2}
	ctx := context.Background()
	whole, err := bench.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := comparable(t, whole)
	// Prepared for one OD pair only, as a sweep's task is.
	perOD := make([]*bench.Prepared, len(cfg.ODs))
	for od := range cfg.ODs {
		ocfg := cfg
		ocfg.Evaluate = []int{od}
		if perOD[od], err = bench.Prepare(ctx, ocfg); err != nil {
			t.Fatal(err)
		}
	}
	methods := perOD[0].Methods
	for _, split := range [][][]int{{{0, 1, 2, 3, 4}}, {{4, 2}, {0}, {3, 1}}, {{0}, {1}, {2}, {3}, {4}}} {
		var parts [][]bench.Counts
		for od, p := range perOD {
			if _, err := p.Count(ctx, []int{1 - od}, split[0]); err == nil {
				t.Error("counted an OD pair not prepared for")
			}
			for i := len(split) - 1; i >= 0; i-- { // any order
				c, err := p.Count(ctx, []int{od}, split[i])
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, c)
			}
		}
		rep, err := bench.Assemble(cfg, methods, parts, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := comparable(t, rep); got != want {
			t.Errorf("split %v: the assembled report differs from one run", split)
		}
		// A part missing or given twice is refused, not averaged over.
		if _, err := bench.Assemble(cfg, methods, parts[1:], 1); err == nil {
			t.Errorf("split %v: a missing part was not noticed", split)
		}
		if _, err := bench.Assemble(cfg, methods, append(parts, parts[0]), 1); err == nil {
			t.Errorf("split %v: a part given twice was not noticed", split)
		}
	}
}

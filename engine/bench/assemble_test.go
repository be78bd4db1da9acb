package bench_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/testenv"
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

// Run evaluates the planners while the learners train; its report is
// Prepare's then Count's, bit for bit, with one worker or several (the
// learners first in the list or last). Its progress is told one call at a
// time: every method built, and rollouts (a method on a pool) counted up
// to methods × pools, never down.
func TestRunWhileLearnersTrainEqualsPrepareThenCount(t *testing.T) {
	net, model := testenv.Network(t, "ringtown", "")
	ctx := context.Background()
	// -short (the race run): ctd, which trains in a tenth of a second here,
	// as the only learner, beside let and fma; pql's training and dot's
	// tables take seconds, and a minute under the race detector.
	lists := testenv.Sized([][]string{{"let", "pql", "dot", "ctd", "cgr"}, {"ctd", "pql", "let"}}, [][]string{{"let", "ctd", "fma"}, {"ctd", "let"}})
	for _, methods := range lists {
		cfg := bench.Config{Net: net, Model: model, Methods: methods, Budgets: []float64{0.95, 1.05},
			ODs: net.ODs[:2], Pools: 4, PoolSize: testenv.Sized(200, 50)}
		p, err := bench.Prepare(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		counts, err := p.Count(ctx, nil, []int{0, 1, 2, 3})
		if err != nil {
			t.Fatal(err)
		}
		apart, err := bench.Assemble(cfg, p.Methods, [][]bench.Counts{counts}, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := comparable(t, apart)
		for _, workers := range []int{1, 2, 3} {
			var (
				busy          atomic.Int32
				built, rolled int
			)
			cfg.Workers = workers
			cfg.OnProgress = func(stage string, done, total int) {
				if busy.Add(1) != 1 {
					t.Error("progress told from two stages at once")
				}
				defer busy.Add(-1)
				switch stage {
				case "methods":
					built = done
				case "rollouts":
					if done <= rolled || total != len(methods)*cfg.Pools {
						t.Errorf("rollouts %d of %d after %d", done, total, rolled)
					}
					rolled = done
				}
			}
			rep, err := bench.Run(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := comparable(t, rep); got != want {
				t.Errorf("%v on %d workers: Run's report differs from Prepare's then Count's", methods, workers)
			}
			if built != len(methods) || rolled != len(methods)*cfg.Pools {
				t.Errorf("%v on %d workers: progress ended at %d built, %d rollouts", methods, workers, built, rolled)
			}
		}
	}
}

package bench_test

import (
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// BenchmarkPoolsAndLET measures, on one goroutine, drawing every pool of a
// benchmark (a validation pool and 10 test pools of 2000: 22,000 joint
// realizations) and rolling out `let` on all of them for the network's OD
// pairs at three budgets. Reported: realizations/s while drawing and
// decisions/s while rolling out; ns/op is the whole job.
//
//	go test -run '^$' -bench PoolsAndLET ./engine/bench/
func BenchmarkPoolsAndLET(b *testing.B) {
	dir := testenv.DataDir(b)
	for _, name := range []string{"sfn", "anaheim"} {
		b.Run(name, func(b *testing.B) {
			net, model := testenv.Network(b, name, dir)
			tasks := sim.Tasks(net, net.ODs, []float64{0.95, 1, 1.05})
			env := &policy.Env{Net: net, Model: model, Tasks: tasks}
			let := policy.NewLET(net, env.Destinations()...)
			r := &sim.Runner{Net: net}
			res := make([]sim.Result, 2000)
			pools := make([]*sim.Pool, 11)
			var drawT, rollT time.Duration
			var decisions, draws int
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				for k := range pools {
					purpose, idx := sim.Test, k-1
					if k == 0 {
						purpose, idx = sim.Validation, 0
					}
					var buf []float64
					if pools[k] != nil {
						buf = pools[k].X
					}
					pools[k] = sim.NewPool(model, net.PoolKey(), purpose, idx, 2000, 0, buf)
					draws += 2000
				}
				t1 := time.Now()
				for _, p := range pools {
					for _, task := range tasks {
						if err := r.Run(let, task, p, res); err != nil {
							b.Fatal(err)
						}
						for _, x := range res {
							decisions += x.Links
						}
					}
				}
				drawT += t1.Sub(t0)
				rollT += time.Since(t1)
			}
			b.ReportMetric(float64(draws)/drawT.Seconds(), "realizations/s")
			b.ReportMetric(float64(decisions)/rollT.Seconds(), "decisions/s")
		})
	}
}

// BenchmarkDOTSolve measures one DOT table (one destination, every budget up
// to 1.05 × the LET time of the network's first OD pair) on one core.
//
//	GOMAXPROCS=1 go test -run '^$' -bench DOTSolve ./engine/bench/
func BenchmarkDOTSolve(b *testing.B) {
	dir := testenv.DataDir(b)
	for _, name := range []string{"sfn", "anaheim"} {
		b.Run(name, func(b *testing.B) {
			net, model := testenv.Network(b, name, dir)
			od := net.ODs[0]
			budget := 1.05 * net.LET(od.Destination).Time[od.Origin]
			env := &policy.Env{Net: net, Model: model, Tasks: []sim.Task{{OD: od, Budget: budget, Cap: net.StepCap}}}
			delta := env.DefaultDOTDelta()
			b.ResetTimer()
			for range b.N {
				policy.NewDOT(net, model, delta).Solve(od.Destination, budget)
			}
		})
	}
}

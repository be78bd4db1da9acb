package bench

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/split"
)

// unit is one method on one task (OD pair × budget) over one pool of a
// batch: the grain Count spreads over the workers. method indexes
// Config.Methods.
type unit struct{ pool, method, task int }

// units is what forEachUnit evaluates: every method of methods (indexes
// into Config.Methods) on tasks tasks over pools.
type units struct {
	pools   []int
	methods []int
	tasks   int
	// cores, when set, is shared with work running beside the units (a
	// run's builds): each draw and each unit holds one of its tokens.
	cores cores
	// done hears the pools of this evaluation done after each batch; nil
	// reports them as the "pools" stage and on Config.Progress.
	done func(pools int)
}

// forEachUnit evaluates pools a batch at a time: a batch is as many pools
// as there are workers (fewer when pools are large: poolsAtOnce), drawn in
// parallel, then every (pool, method, task) of the batch shared out among
// the workers. A sweep's task has few pools (five on two cores would leave
// a core idle for a third of the run if pools were the grain); memory
// stays at one pool a worker at most.
func forEachUnit(ctx context.Context, cfg Config, us units, fn func(pool *sim.Pool, u unit, r *sim.Runner, res []sim.Result) error) error {
	workers := cfg.workers()
	perBatch := cfg.poolsAtOnce()
	runners := make([]*sim.Runner, workers)
	results := make([][]sim.Result, workers)
	for w := range workers {
		runners[w] = &sim.Runner{Net: cfg.Net}
		results[w] = make([]sim.Result, cfg.PoolSize)
	}
	bufs := make([][]float64, perBatch)
	start := time.Now()
	pools, methods, tasks := us.pools, len(us.methods), us.tasks
	for from := 0; from < len(pools); from += perBatch {
		batch := pools[from:min(from+perBatch, len(pools))]
		drawn := make([]*sim.Pool, len(batch))
		if err := split.Each(ctx, len(batch), workers, "bench worker", func(_, i int) error {
			return us.cores.hold(ctx, func() {
				drawn[i] = sim.NewPool(cfg.Model, cfg.Net.PoolKey(), cfg.purpose(), batch[i], cfg.PoolSize, cfg.Seed, bufs[i])
				bufs[i] = drawn[i].X
			})
		}); err != nil {
			return err
		}
		n := len(batch) * methods * tasks
		if err := split.Each(ctx, n, workers, "bench worker", func(w, i int) error {
			u := unit{pool: i / (methods * tasks), method: us.methods[i/tasks%methods], task: i % tasks}
			var err error
			if herr := us.cores.hold(ctx, func() { err = fn(drawn[u.pool], u, runners[w], results[w]) }); herr != nil {
				return herr
			}
			return err
		}); err != nil {
			return err
		}
		done := from + len(batch)
		if us.done != nil {
			us.done(done)
			continue
		}
		if cfg.OnProgress != nil {
			cfg.OnProgress("pools", done, len(pools))
		}
		if cfg.Progress != nil && (cfg.ProgressTTY || done == len(pools)) {
			fmt.Fprintf(cfg.Progress, "\rbench %s: pool %d/%d done, %.1fs", cfg.Net.Name, done, len(pools), time.Since(start).Seconds())
			if done == len(pools) {
				fmt.Fprintln(cfg.Progress)
			}
		}
	}
	return nil
}

// cores bounds the CPU work of a run's stages that go on at once (the
// learners' training beside the other methods' evaluation): a build, a
// draw or a unit holds one of its tokens while it works. nil bounds
// nothing (the workers do).
type cores chan struct{}

// hold runs fn holding a token, or returns ctx's error while waiting for one.
func (c cores) hold(ctx context.Context, fn func()) error {
	if c != nil {
		select {
		case c <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-c }()
	}
	fn()
	return nil
}

// poolBatchBytes bounds the realizations a batch holds at once. A pool
// is PoolSize × links float64s: 15 MB on Anaheim at 2,000, 2 GB on a city
// of 249,000 links at 1,000. Two such pools at once, with Go's collector
// letting the heap grow to about twice what is live, peaked at 11.2 GB;
// one at a time leaves the units of that pool (methods × tasks, 60 in a
// city benchmark) to share the workers. Results are the same: a unit
// reads only its own pool.
const poolBatchBytes = 1 << 30

// poolsAtOnce is how many pools a batch draws: one a worker, or as many
// as the budget holds when fewer (never less than one).
func (cfg *Config) poolsAtOnce() int {
	budget := poolBatchBytes
	if cfg.poolBytes > 0 {
		budget = cfg.poolBytes
	}
	per := max(1, cfg.PoolSize*cfg.Model.Dim()*8)
	return max(1, min(cfg.workers(), budget/per))
}

// workers is how many goroutines the run works on (Workers, or all cores).
func (cfg *Config) workers() int {
	if cfg.Workers > 0 {
		return cfg.Workers
	}
	return runtime.GOMAXPROCS(0)
}

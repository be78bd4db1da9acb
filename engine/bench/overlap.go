package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ontime-routing/ontime/engine/policy"
)

// overlap builds every method and counts every method on every OD pair
// and pool, evaluating the methods that do not train while the learners
// train. A learner trains on one core for minutes (SEGAC 28 s on Sioux
// Falls, 100 s on Anaheim, sequential by its seeded stream); the planners
// and models build in seconds, so Prepare then Count left the other cores
// idle until the last learner ended. Here the learners start first, the
// others build beside them, and once all the others are built they are
// evaluated on the pools with the cores the learners leave (one token a
// core, held by each build, draw and unit). The learners are evaluated
// last, on the same pools drawn again: a pool is drawn from its seed, the
// same bits each time, and drawing costs 0.2 s a pool on Anaheim against
// a core idle for a minute. No build reads another method's policy or
// the pools, and a unit's count depends only on its method, task and pool,
// so the counts are Count's, bit for bit, whatever the timing.
// When both go on at once, a failed evaluation stops the builds (a
// learner checks its context between iterations) and a failed build the
// evaluation.
func (p *Prepared) overlap(ctx context.Context) ([]Counts, error) {
	cfg := p.cfg
	trained, others := buildOrder(cfg.Methods)
	cancel := func(error) {}
	if len(trained) > 0 && len(others) > 0 {
		var stop context.CancelCauseFunc
		ctx, stop = context.WithCancelCause(ctx)
		defer stop(nil)
		p.env.Ctx, cancel = ctx, stop
	}
	c := make(cores, cfg.workers())
	pools := indexes(cfg.Pools)
	total := len(cfg.Methods) * cfg.Pools
	start := time.Now()
	// progress counts a method's evaluation on one pool as a rollout.
	progress := func(methods int) func(done int) {
		last := 0
		return func(done int) {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.rollouts += methods * (done - last)
			last = done
			p.tell("rollouts", p.rollouts, total)
			if cfg.Progress != nil && (cfg.ProgressTTY || p.rollouts == total) {
				fmt.Fprintf(cfg.Progress, "\rbench %s: %d of %d rollouts done (a method on a pool), %.1fs", cfg.Net.Name, p.rollouts, total, time.Since(start).Seconds())
				if p.rollouts == total {
					fmt.Fprintln(cfg.Progress)
				}
			}
		}
	}

	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		early []Counts
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
		cancel(err)
	}
	// The last of the others built starts their evaluation; when a build
	// fails first, it never starts.
	left := len(others)
	err := p.build(ctx, append(slices.Clone(trained), others...), c, func(i int) {
		if policy.IsLearner(cfg.Methods[i]) {
			return
		}
		mu.Lock()
		left--
		last := left == 0
		mu.Unlock()
		if last {
			wg.Go(func() {
				var err error
				if early, err = p.count(ctx, nil, units{pools: pools, methods: others, cores: c, done: progress(len(others))}); err != nil {
					fail(err)
				}
			})
		}
	})
	if err != nil {
		fail(err)
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if len(trained) == 0 {
		return early, nil
	}
	late, err := p.count(ctx, nil, units{pools: pools, methods: trained, done: progress(len(trained))})
	if err != nil || early == nil {
		return late, err
	}
	for od := range early {
		for _, mi := range trained {
			early[od].OnTime[mi] = late[od].OnTime[mi]
			early[od].HandedOver[mi] = late[od].HandedOver[mi]
		}
	}
	return early, nil
}

package split

import (
	"context"
	"sync"

	"github.com/ontime-routing/ontime/engine"
)

// Each calls fn(worker, i) for every i in [0, n) on up to workers
// goroutines (at least one), each taking the next index as it finishes
// one: the work queue of a benchmark's units and a training's episodes,
// whose items take very different times. worker (0 ≤ worker < workers)
// lets fn keep per-goroutine state, such as a sim.Runner. The first error
// stops the rest and is returned; a panic in fn is that error, as an
// internal error naming where (a policy's bug fails the run, not the
// process); when ctx ends first, Each returns ctx.Err() without starting
// another item.
func Each(ctx context.Context, n, workers int, where string, fn func(worker, i int) error) error {
	workers = max(1, min(workers, n))
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if first != nil || next >= n {
			return 0, false
		}
		if err := ctx.Err(); err != nil {
			first = err
			return 0, false
		}
		next++
		return next - 1, true
	}
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = err
		}
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					fail(engine.PanicError(where, p))
				}
			}()
			for {
				i, ok := take()
				if !ok {
					return
				}
				if err := fn(w, i); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// Package split shares independent work over the cores, in the two shapes
// ontime's work takes: Ranges, contiguous parts side by side (the plan's
// episodes, DOT's bins, a pool's rows), and Each, a queue of items taken
// one at a time (a benchmark's units, a training's episodes).
package split

import "sync"

// Ranges calls fn(part, from, to) for parts contiguous ranges covering
// [0, n) in order, each on its own goroutine, and returns when all have
// returned. With fewer than two parts it calls fn(0, 0, n) on the caller's
// goroutine. fn must not panic: a part recovers its own where it may.
func Ranges(n, parts int, fn func(part, from, to int)) {
	if parts < 2 {
		fn(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for k := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(k, k*n/parts, (k+1)*n/parts)
		}()
	}
	wg.Wait()
}

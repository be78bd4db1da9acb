package linktime

import (
	"sync"

	"github.com/puzpuzpuz/xsync/v4"
)

// dotCache keeps dot products that many goroutines ask for again (the
// benchmark's workers play episodes on the same model): read under
// xsync's reader-biased lock, since with sync.RWMutex or a Mutex every
// lookup wrote one cache line that the cores then sent to each other
// (12% of cdot's profile on Anaheim). A product is computed outside the
// lock and kept at most limit entries (0: no limit); two goroutines that
// miss the same key compute the same bits, so either may store it.
type dotCache[K comparable] struct {
	once  sync.Once // makes mu: a zero RBMutex is never reader-biased
	mu    *xsync.RBMutex
	m     map[K]float64
	limit int
}

// fill sets out[j] to the product of key(j) for j < len(out), computing
// those it does not hold with dot(j).
func (c *dotCache[K]) fill(out []float64, key func(j int) K, dot func(j int) float64) {
	c.once.Do(func() { c.mu = xsync.NewRBMutex() })
	var miss []int
	tok := c.mu.RLock()
	for j := range out {
		x, ok := c.m[key(j)]
		if !ok {
			miss = append(miss, j)
		}
		out[j] = x
	}
	c.mu.RUnlock(tok)
	if len(miss) == 0 {
		return
	}
	for _, j := range miss {
		out[j] = dot(j)
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[K]float64{}
	}
	for _, j := range miss {
		if c.limit > 0 && len(c.m) >= c.limit {
			break
		}
		c.m[key(j)] = out[j]
	}
	c.mu.Unlock()
}

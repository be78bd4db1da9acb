package split

import (
	"sync"
	"testing"
)

// Every index of [0, n) falls in exactly one part, the parts in order and
// contiguous, for counts that parts do and do not divide (and parts beyond
// n, which leave some empty), and with fewer than two parts.
func TestRangesCoverEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 64, 1000} {
		for _, parts := range []int{0, 1, 2, 3, 8, 13} {
			seen := make([]int, n)
			bounds := make([][2]int, max(parts, 1))
			var mu sync.Mutex
			Ranges(n, parts, func(k, from, to int) {
				mu.Lock()
				defer mu.Unlock()
				bounds[k] = [2]int{from, to}
				for i := from; i < to; i++ {
					seen[i]++
				}
			})
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("n %d, %d parts: index %d done %d times", n, parts, i, c)
				}
			}
			for k := 1; k < len(bounds); k++ {
				if bounds[k][0] != bounds[k-1][1] {
					t.Fatalf("n %d, %d parts: part %d starts at %d, part %d ends at %d", n, parts, k, bounds[k][0], k-1, bounds[k-1][1])
				}
			}
		}
	}
}

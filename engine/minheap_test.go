package engine

import (
	"container/heap"
	"math/rand/v2"
	"testing"
)

// refHeap is container/heap's min-heap on dist: what LET used before.
type refHeap []distItem

func (h refHeap) Len() int           { return len(h) }
func (h refHeap) Less(i, j int) bool { return h[i].dist < h[j].dist }
func (h refHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *refHeap) Push(x any)        { *h = append(*h, x.(distItem)) }
func (h *refHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// pushMin and popMin pop items in container/heap's order, equal distances
// included (a Dijkstra's ties settle the same way): random pushes and pops
// with distances from a few values, on many seeds.
func TestMinHeapPopsAsContainerHeap(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 0x68656170)) // "heap"
		values := 1 + rng.IntN(6)
		var q []distItem
		ref := &refHeap{}
		for step := range 400 {
			if rng.IntN(3) > 0 || len(q) == 0 {
				it := distItem{step, float64(rng.IntN(values))}
				q = pushMin(q, it)
				heap.Push(ref, it)
				continue
			}
			got := q[0]
			q = popMin(q)
			if want := heap.Pop(ref).(distItem); got != want {
				t.Fatalf("seed %d step %d: popped %v, container/heap %v", seed, step, got, want)
			}
		}
	}
}

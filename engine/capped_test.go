package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Time (Dijkstra, the rounds where its path is over the cap) is the rounds'
// time, bit for bit, on many generated networks: weights continuous (as a
// realization's are), small integers (many tied paths, some over the cap
// and some within it) and spread over six decades (sums that round); caps
// from one link to none; pairs that cannot be reached; and a search reused
// across networks of other sizes. Both searches must also have been taken:
// Dijkstra's answer alone, and the rounds after a path over the cap.
func TestTimeIsTheRoundsTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 1))
	weights := map[string]func() float64{
		"continuous": func() float64 { return 0.1 + 5*rng.Float64() },
		"integer":    func() float64 { return float64(1 + rng.IntN(3)) },
		"decades":    func() float64 { return math.Pow(10, -3+6*rng.Float64()) },
	}
	s := NewCappedSearch(nil)
	direct, rounds := 0, 0
	for trial := range 300 {
		n := 2 + rng.IntN(40)
		net := &Network{}
		for range n {
			net.Nodes = append(net.Nodes, Node{})
		}
		for range rng.IntN(4 * n) {
			net.Links = append(net.Links, Link{From: rng.IntN(n), To: rng.IntN(n), Mean: 1})
		}
		net.Index()
		s.net = net
		for kind, draw := range weights {
			w := make([]float64, len(net.Links))
			for e := range w {
				w[e] = draw()
			}
			for range 5 {
				o, d, maxLinks := rng.IntN(n), rng.IntN(n), rng.IntN(6)
				want, _ := s.run(o, d, maxLinks, w, false)
				got := s.Time(o, d, maxLinks, w)
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("trial %d (%s weights, %d nodes, %d links): %d→%d within %d links: Time %v, the rounds %v",
						trial, kind, n, len(net.Links), o, d, maxLinks, got, want)
				}
				if _, hops := s.shortest(o, d, w); hops >= 0 && maxLinks > 0 && hops > maxLinks {
					rounds++
				} else {
					direct++
				}
			}
		}
	}
	if direct == 0 || rounds == 0 {
		t.Errorf("%d pairs answered by Dijkstra, %d by the rounds: want both", direct, rounds)
	}
}

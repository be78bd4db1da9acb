package linktime

import (
	"sync"

	"github.com/puzpuzpuz/xsync/v4"
	"gonum.org/v1/gonum/floats"
)

// pairDots keeps the products F_a·F_b of the dense model's rows that the
// links' space conditioning asks for: each observed link is regressed on
// the ones before it (appendRow), each unseen one on the seen (Latent), and on Anaheim (rank 481) these r-long
// products were a third of cgr's and cdot's time, the same pairs asked
// again in every episode that drives the same links. A product is the same
// bits whichever way round it is taken (each term commutes and the sum runs
// in the same order), so one entry serves both. Readers take a
// reader-biased lock: with sync.RWMutex every lookup wrote the lock's one
// reader count, and the cores sending that cache line to each other took
// 12% of cdot's time on Anaheim (33.6 CPU-s; 29.4 with xsync's lock).
type pairDots struct {
	once sync.Once // makes mu: a zero RBMutex is never reader-biased
	mu   *xsync.RBMutex
	m    map[uint64]float64
}

// pairDotsMax bounds the entries (16 bytes and a map slot each, about 40 MB
// in all: a server keeps its models); past it the products are computed
// and not kept.
const pairDotsMax = 1 << 20

// rowDotsWith sets out[j] = F_{links[j]}·F_e.
func (g *Gaussian) rowDotsWith(e int, links []int, out []float64) {
	p := &g.rowDots
	p.once.Do(func() { p.mu = xsync.NewRBMutex() })
	var miss []int
	tok := p.mu.RLock()
	for j, a := range links {
		x, ok := p.m[pairKey(a, e)]
		if !ok {
			miss = append(miss, j)
		}
		out[j] = x
	}
	p.mu.RUnlock(tok)
	if len(miss) == 0 {
		return
	}
	row := g.F.RawRowView(e)
	for _, j := range miss {
		out[j] = floats.Dot(g.F.RawRowView(links[j]), row)
	}
	p.mu.Lock()
	if p.m == nil {
		p.m = map[uint64]float64{}
	}
	if len(p.m) < pairDotsMax {
		for _, j := range miss {
			p.m[pairKey(links[j], e)] = out[j]
		}
	}
	p.mu.Unlock()
}

// rowDot is F_e·F_e, kept with the pairs.
func (g *Gaussian) rowDot(e int) float64 {
	var x [1]float64
	g.rowDotsWith(e, []int{e}, x[:])
	return x[0]
}

func pairKey(a, b int) uint64 {
	return uint64(min(a, b))<<32 | uint64(max(a, b))
}

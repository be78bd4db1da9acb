package linktime

import (
	"gonum.org/v1/gonum/floats"
)

// pairDots keeps the products F_a·F_b of the dense model's rows that the
// links' space conditioning asks for: each observed link is regressed on
// the ones before it (appendRow), each unseen one on the seen (Latent), and on Anaheim (rank 481) these r-long
// products were a third of cgr's and cdot's time, the same pairs asked
// again in every episode that drives the same links. A product is the same
// bits whichever way round it is taken (each term commutes and the sum runs
// in the same order), so one entry serves both.
type pairDots = dotCache[uint64]

// pairDotsMax bounds the entries (16 bytes and a map slot each, about 40 MB
// in all: a server keeps its models); past it the products are computed
// and not kept.
const pairDotsMax = 1 << 20

// rowDotsWith sets out[j] = F_{links[j]}·F_e.
func (g *Gaussian) rowDotsWith(e int, links []int, out []float64) {
	row := g.F.RawRowView(e)
	g.rowDots.fill(out[:len(links)],
		func(j int) uint64 { return pairKey(links[j], e) },
		func(j int) float64 { return floats.Dot(g.F.RawRowView(links[j]), row) })
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

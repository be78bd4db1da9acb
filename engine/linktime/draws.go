package linktime

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
)

// Draws are k joint realizations of a conditional law whose links are made
// when first read. A rollout's continuations read a few dozen of a
// network's links, and drawing every link of every draw (k × links ×
// factors) was most of a decision's cost on Anaheim (914 links, rank 481).
//
// The law is the model's conditioned on the links seen: each draw's factor
// weights by Matheron's rule (Conditional.weights, drawn from rng in draw
// order), floored, the observed links at their times. An unobserved link's
// own variate (independent models, factor models' idiosyncratic part) comes
// from a hash of the draws' seed, the draw and the link, so a link's value
// does not depend on which links were read before it.
type Draws struct {
	c     *Conditional
	k, n  int
	r     int
	w     []float64 // k × r factor weights, corrected for the observed links
	x     []float64 // k × n values, valid where made is set
	made  []uint64  // k × n bits
	known []float64 // n: an observed link's time, NaN otherwise
	key   uint64
}

// Lazy returns k draws of the conditional law; their factor weights are
// drawn now, their links when read.
func (c *Conditional) Lazy(rng *rand.Rand, k int) *Draws {
	g := c.g
	n := g.Dim()
	d := &Draws{c: c, k: k, n: n, x: make([]float64, k*n), made: make([]uint64, (k*n+63)/64), known: make([]float64, n), key: rng.Uint64()}
	for e := range d.known {
		d.known[e] = math.NaN()
	}
	for i, e := range c.known {
		d.known[e] = c.times[i]
	}
	if g.F == nil {
		return d
	}
	_, d.r = g.F.Dims()
	d.w = make([]float64, k*d.r)
	scratch := make([]float64, 2*c.m)
	for s := range k {
		c.weights(rng, d.w[s*d.r:(s+1)*d.r], scratch)
	}
	return d
}

// Len is the number of draws.
func (d *Draws) Len() int { return d.k }

// At is link e's time in draw i.
func (d *Draws) At(i, e int) float64 {
	if t := d.known[e]; !math.IsNaN(t) {
		return t
	}
	j := i*d.n + e
	if d.made[j>>6]&(1<<(j&63)) != 0 {
		return d.x[j]
	}
	g := d.c.g
	x := g.Latent[e]
	switch {
	case g.F == nil:
		x += g.SD[e] * d.own(i, e)
	default:
		x += floats.Dot(g.F.RawRowView(e), d.w[i*d.r:(i+1)*d.r])
		if g.Idio != nil {
			x += g.Idio[e] * d.own(i, e)
		}
	}
	x = g.TimeOf(e, x)
	d.x[j] = x
	d.made[j>>6] |= 1 << (j & 63)
	return x
}

// Rows makes every link of every draw and returns them row-major (k × n),
// for callers that need whole realizations (sim.Runner).
func (d *Draws) Rows() []float64 {
	for i := range d.k {
		for e := range d.n {
			d.x[i*d.n+e] = d.At(i, e)
		}
	}
	return d.x
}

// own is the standard normal variate of draw i's link e: Box–Muller on two
// uniforms hashed from the draws' key, the draw and the link.
func (d *Draws) own(i, e int) float64 {
	h := splitmix(d.key ^ splitmix(uint64(i)<<32|uint64(uint32(e))))
	u1 := (float64(h>>11) + 0.5) / (1 << 53) // in (0, 1): log is finite
	u2 := float64(splitmix(h)>>11) / (1 << 53)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// splitmix is SplitMix64's finalizer: a bijective mix of 64 bits.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

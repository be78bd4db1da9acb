package linktime

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
)

// LazyN is what SampleN would draw, kept as its normal variates: a link's
// time is computed when read, bit for bit SampleN's value for the same rng
// and k. A learner's episode reads the dozen links it crosses, and SEGAC's
// training drew 640,000 rows of every link on Anaheim (914 links, full
// rank): the dense product was 70% of its 164 s.
type LazyN struct {
	g    *Gaussian
	n, r int
	z    []float64 // k × r factor variates, or k × n own ones without factors
	own  []float64 // factor models: k × n own variates
	// blocked: gonum's Gemm summed each product in blocks of gemmBlock
	// (it does when the product spans enough blocks to go parallel); the
	// sums here follow the same order to keep the same bits.
	blocked bool
}

// gemmBlock and gemmParBlocks are gonum's blas/gonum blockSize and
// minParBlock: SampleN's product Z Fᵀ sums its k dimension in blocks of
// gemmBlock when it has at least gemmParBlocks blocks of C
// (TestLazyNMatchesSampleN holds every shape of the rule to the bit).
const gemmBlock, gemmParBlocks = 64, 4

// SampleLazyN takes from rng what SampleN(rng, k, ·) takes, in the same
// order, and returns the draws unmade.
func (g *Gaussian) SampleLazyN(rng *rand.Rand, k int) *LazyN {
	n := g.Dim()
	d := &LazyN{g: g, n: n}
	switch {
	case g.F == nil:
		d.z = normals(rng, k*n)
	case g.Idio != nil: // sampleFactor: per row, the K factor variates, then one per link
		_, d.r = g.F.Dims()
		d.z = make([]float64, k*d.r)
		d.own = make([]float64, k*n)
		for s := range k {
			fill(rng, d.z[s*d.r:(s+1)*d.r])
			fill(rng, d.own[s*n:(s+1)*n])
		}
	default:
		_, d.r = g.F.Dims()
		d.z = normals(rng, k*d.r)
		d.blocked = blocks(k)*blocks(n) >= gemmParBlocks
	}
	return d
}

func blocks(dim int) int { return (dim + gemmBlock - 1) / gemmBlock }

func normals(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	fill(rng, x)
	return x
}

func fill(rng *rand.Rand, x []float64) {
	for i := range x {
		x[i] = rng.NormFloat64()
	}
}

// At is link e's time in realization s.
func (d *LazyN) At(s, e int) float64 {
	g := d.g
	var y float64
	switch {
	case g.F == nil:
		y = max(g.Latent[e]+g.SD[e]*d.z[s*d.n+e], g.Floors[e])
	case d.own != nil:
		y = max(g.Latent[e]+floats.Dot(g.F.RawRowView(e), d.z[s*d.r:(s+1)*d.r])+g.Idio[e]*d.own[s*d.n+e], g.Floors[e])
	default:
		z, f := d.z[s*d.r:(s+1)*d.r], g.F.RawRowView(e)
		var c float64 // Gemm's C starts at zero (β = 0) and adds α = 1 times each block's sum
		if !d.blocked {
			c += floats.Dot(z, f)
		} else {
			for k := 0; k < d.r; k += gemmBlock {
				hi := min(k+gemmBlock, d.r)
				c += floats.Dot(z[k:hi], f[k:hi])
			}
		}
		y = max(c+g.Latent[e], g.Floors[e])
	}
	if g.Warps != nil && g.Warps[e] != nil {
		y = g.Warps[e].TimeAt((y - g.Latent[e]) / g.SD[e])
	}
	return y
}

package linktime

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ontime-routing/ontime/engine"
)

// SpatialFactor is the correlation model that scales to city networks:
// Σ = diag(σ) (s·W Wᵀ + (1−s)·I) diag(σ), with W one row per link over K
// spatial factors. Factor k is a Gaussian bump at a centre of a √K × √K grid
// over the network's extent; a link loads on the bumps by its midpoint's
// distance to their centres, each row of W normalized to unit length. So
// coincident links correlate s, links far apart about 0, and every link
// keeps (1−s) of its variance as its own. Memory is links × K (39,018 links
// × 64 factors: 20 MB); a draw costs links × K; conditioning on m observed
// links costs m² K + m³, never links².
const SpatialFactor = "spatial-factor"

// DefaultFactors is the factor count K when none is given: an 8 × 8 grid.
const DefaultFactors = 64

// MaxFactors bounds K (a links × K factor: 39,018 × 1,024 is 320 MB).
const MaxFactors = 1024

// summaryPairs is how many seeded random link pairs estimate the factor
// model's |ρ| summary (the dense models' summary reads every pair).
const summaryPairs = 200_000

// spatialFactorModel fills g's factor F, own deviations Idio and stats.
func spatialFactorModel(g *Gaussian, net *engine.Network) error {
	c := net.Correlation
	if net.Coords == engine.CoordNone {
		return engine.Errorf(engine.EINVALID, "network %s has no coordinates: %s correlation needs them", net.Name, SpatialFactor)
	}
	if c.Strength < 0 || c.Strength > 1 || !(c.Length > 0) {
		return engine.Errorf(engine.EINVALID, "%s correlation needs strength in [0,1] and a positive length (got %v, %v)", SpatialFactor, c.Strength, c.Length)
	}
	k := c.Factors
	if k == 0 {
		k = DefaultFactors
	}
	if k < 1 || k > MaxFactors {
		return engine.Errorf(engine.EINVALID, "%s correlation needs 1 to %d factors (got %d)", SpatialFactor, MaxFactors, k)
	}
	side := int(math.Ceil(math.Sqrt(float64(k))))
	minX, minY, maxX, maxY := extent(net)
	centres := make([][2]float64, 0, side*side)
	for i := range side {
		for j := range side {
			centres = append(centres, [2]float64{
				minX + (float64(i)+0.5)/float64(side)*(maxX-minX),
				minY + (float64(j)+0.5)/float64(side)*(maxY-minY),
			})
		}
	}
	n := len(net.Links)
	W := mat.NewDense(n, len(centres), nil)
	for e, l := range net.Links {
		a, b := net.Nodes[l.From], net.Nodes[l.To]
		mx, my := (a.X+b.X)/2, (a.Y+b.Y)/2
		row := W.RawRowView(e)
		nearest, nearestD := 0, math.Inf(1)
		for q, ctr := range centres {
			d2 := (mx-ctr[0])*(mx-ctr[0]) + (my-ctr[1])*(my-ctr[1])
			row[q] = math.Exp(-d2 / (2 * c.Length * c.Length))
			if d2 < nearestD {
				nearest, nearestD = q, d2
			}
		}
		if floats.Sum(row) == 0 { // every bump underflowed: a link far outside them
			row[nearest] = 1
		}
	}
	normalizeRows(W)
	load, own := math.Sqrt(c.Strength), math.Sqrt(1-c.Strength)
	g.Idio = make([]float64, n)
	for e := range n {
		floats.Scale(load*g.SD[e], W.RawRowView(e))
		g.Idio[e] = own * g.SD[e]
	}
	g.F = W
	_, g.Stats.Rank = W.Dims()
	if c.Strength < 1 {
		g.Stats.Rank += positive(g.SD)
	}
	g.Stats.MeanAbs, g.Stats.MaxAbs = g.sampledCorrSummary()
	return nil
}

func extent(net *engine.Network) (minX, minY, maxX, maxY float64) {
	minX, minY, maxX, maxY = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, nd := range net.Nodes {
		minX, maxX = math.Min(minX, nd.X), math.Max(maxX, nd.X)
		minY, maxY = math.Min(minY, nd.Y), math.Max(maxY, nd.Y)
	}
	return minX, minY, maxX, maxY
}

// sampledCorrSummary estimates mean |ρ| over summaryPairs seeded random
// pairs of distinct links with positive variance, and takes the largest |ρ|
// seen: reading every pair of a city network is 760 million dot products.
func (g *Gaussian) sampledCorrSummary() (meanAbs, maxAbs float64) {
	var live []int
	for e, sd := range g.SD {
		if sd > 0 {
			live = append(live, e)
		}
	}
	if len(live) < 2 {
		return 0, 0
	}
	rng := rand.New(rand.NewPCG(uint64(len(live)), 0x636f72725f73756d)) // "corr_sum"
	sum := 0.0
	for range summaryPairs {
		i := live[rng.IntN(len(live))]
		j := live[rng.IntN(len(live))]
		for j == i {
			j = live[rng.IntN(len(live))]
		}
		rho := math.Abs(g.Cov(i, j) / math.Sqrt(g.Cov(i, i)*g.Cov(j, j)))
		sum += rho
		maxAbs = math.Max(maxAbs, rho)
	}
	return sum / summaryPairs, maxAbs
}

package linktime

import (
	"gonum.org/v1/gonum/floats"
)

// Loading is a sum of links kept with the products Loaded takes of it, for
// a caller that scores the same sum under many conditionals (cgr scores
// each continuation at every decision of every episode, and on Anaheim,
// rank 481, the products were most of its time): |s|² once, and F_o·s once
// for each link o that comes to condition it. Loaded of a Loading is
// Loaded of its parts, bit for bit (the same products, summed in the same
// order).
type Loading struct {
	Mean, Own float64
	S         []float64
	ss        float64
	cross     dotCache[int] // F_o·S by link o
}

// NewLoading keeps a sum's unconditional mean, loading and own variance.
func NewLoading(mean float64, s []float64, own float64) *Loading {
	return &Loading{Mean: mean, S: s, Own: own, ss: floats.Dot(s, s)}
}

// LoadedOf is Loaded(l.Mean, l.S, l.Own).
func (c *Conditional) LoadedOf(l *Loading) (float64, float64) {
	if c.fs {
		return c.loadedFactor(l.Mean, l.S, l.Own)
	}
	cross := c.cross[:c.m]
	l.cross.fill(cross, func(i int) int { return c.obsIdx[i] }, func(i int) float64 { return floats.Dot(c.obs[i], l.S) })
	return c.regressed(l.Mean, l.ss+l.Own, cross)
}

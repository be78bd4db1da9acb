package linktime

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
)

// Conditional is the model conditioned on observed link times: the Gaussian
// regression of the unobserved links on the observed ones. (The floor is
// ignored here: it moves the conditional law only in the far lower tail.)
type Conditional struct {
	g      *Gaussian
	known  []int       // observed links, deduplicated
	times  []float64   // their realized times
	obs    [][]float64 // factor rows of the observed links that carry information
	obsIdx []int       // their link indices
	alpha  []float64   // Σ_OO⁻¹ (x_O − μ_O)
	lower  []float64   // Cholesky factor of Σ_OO, row-major m × m
	m      int
	cross  []float64 // scratch
	y      []float64 // scratch
	loaded []float64 // scratch
}

// Condition conditions g on the observed links (a link met twice counts once).
func (g *Gaussian) Condition(links []int, times []float64) *Conditional {
	c := &Conditional{g: g}
	for k, e := range links {
		if c.isKnown(e) {
			continue
		}
		c.known = append(c.known, e)
		c.times = append(c.times, times[k])
		// Fixed-time links carry no information, and independent links
		// carry none about the others.
		if g.SD[e] > 0 && g.F != nil {
			c.obs = append(c.obs, g.F.RawRowView(e))
			c.obsIdx = append(c.obsIdx, e)
		}
	}
	m := len(c.obs)
	c.m = m
	if m == 0 {
		return c
	}
	a := make([]float64, m*m) // Σ_OO, lower triangle, row-major
	maxd := 0.0
	for i := range m {
		for j := 0; j <= i; j++ {
			a[i*m+j] = floats.Dot(c.obs[i], c.obs[j])
		}
		a[i*m+i] += g.IdioVar(c.obsIdx[i])
		maxd = math.Max(maxd, a[i*m+i])
	}
	// Jitter keeps the factorization alive when observed links are linearly
	// dependent (a rank-deficient Σ); its effect is below 1e-9 relative.
	c.lower = make([]float64, m*m)
	for jitter := 1e-10 * maxd; ; jitter *= 100 {
		for i := range m {
			a[i*m+i] += jitter
		}
		if cholesky(a, c.lower, m) {
			break
		}
	}
	r := make([]float64, m)
	k := 0
	for i, e := range c.known {
		if g.SD[e] > 0 {
			r[k] = c.times[i] - g.Mean[e]
			k++
		}
	}
	// α = Σ⁻¹ r = L⁻ᵀ L⁻¹ r
	c.alpha = c.backward(c.forward(r, make([]float64, m)))
	c.cross = make([]float64, m)
	c.y = make([]float64, m)
	return c
}

// cholesky writes the lower factor L of the m × m matrix a (its lower
// triangle, row-major) into lower, and reports false at a pivot that is not
// positive. Written out rather than gonum's mat.Cholesky, which also
// estimates the condition number: at city scale, 60% of the factorization's
// time, on every decision of cgr and cdot.
func cholesky(a, lower []float64, m int) bool {
	for i := range m {
		ri := lower[i*m : i*m+m]
		for j := 0; j <= i; j++ {
			rj := lower[j*m : j*m+m]
			v := a[i*m+j] - floats.Dot(ri[:j], rj[:j])
			if j < i {
				ri[j] = v / rj[j]
				continue
			}
			if !(v > 0) {
				return false
			}
			ri[i] = math.Sqrt(v)
		}
	}
	return true
}

func (c *Conditional) isKnown(e int) bool {
	for _, k := range c.known {
		if k == e {
			return true
		}
	}
	return false
}

// forward solves L y = b into y.
func (c *Conditional) forward(b, y []float64) []float64 {
	m := c.m
	for i := range m {
		s := b[i]
		row := c.lower[i*m : i*m+i]
		for j, l := range row {
			s -= l * y[j]
		}
		y[i] = s / c.lower[i*m+i]
	}
	return y
}

// backward solves Lᵀ x = y in place.
func (c *Conditional) backward(y []float64) []float64 {
	m := c.m
	for i := m - 1; i >= 0; i-- {
		s := y[i]
		for j := i + 1; j < m; j++ {
			s -= c.lower[j*m+i] * y[j]
		}
		y[i] = s / c.lower[i*m+i]
	}
	return y
}

// Sum returns the conditional mean and standard deviation of the total time
// of the given links (a path; repeats count once each time they appear, at
// the one realized time). Observed links contribute their realized time.
func (c *Conditional) Sum(links []int) (mean, sd float64) {
	g := c.g
	if g.F == nil { // independent: no regression, variances add
		v := 0.0
		for _, e := range links {
			if t, ok := c.time(e); ok {
				mean += t
				continue
			}
			mean += g.Mean[e]
			v += g.SD[e] * g.SD[e]
		}
		return mean, math.Sqrt(v)
	}
	_, r := g.F.Dims()
	if cap(c.loaded) < r {
		c.loaded = make([]float64, r)
	}
	s := c.loaded[:r]
	clear(s)
	own := 0.0
	for _, e := range links {
		if t, ok := c.time(e); ok {
			mean += t
			continue
		}
		mean += g.Mean[e]
		floats.Add(s, g.F.RawRowView(e))
		own += g.IdioVar(e)
	}
	return c.Loaded(mean, s, own)
}

func (c *Conditional) time(e int) (float64, bool) {
	for i, k := range c.known {
		if k == e {
			return c.times[i], true
		}
	}
	return 0, false
}

// Loaded is the conditional law of a sum of unobserved links given its
// unconditional mean, its loading s = Σ_e F_e and its links' own variance
// own = Σ_e Idio_e² (0 for the dense models): with c = F_O s (the own parts
// of distinct links do not co-vary), the mean moves by c·α and the variance
// |s|² + own drops by cᵀ Σ_OO⁻¹ c. Callers that score many paths precompute
// their loadings.
func (c *Conditional) Loaded(mean float64, s []float64, own float64) (float64, float64) {
	v := floats.Dot(s, s) + own
	if c.m > 0 {
		for i, row := range c.obs {
			c.cross[i] = floats.Dot(row, s)
		}
		mean += floats.Dot(c.cross, c.alpha)
		y := c.forward(c.cross, c.y)
		v -= floats.Dot(y, y)
	}
	return mean, math.Sqrt(math.Max(v, 0))
}

// SampleN draws k joint realizations of every link from the conditional law
// into dst (row-major, k × links), which it grows as needed and returns:
// observed links keep their realized times. It uses Matheron's rule — an
// unconditional draw x', corrected by Σ_·O Σ_OO⁻¹ (x_O − x'_O) — which is
// exact and needs only the factor F and the observed links' Cholesky
// factor. Draws are floored like the unconditional ones.
func (c *Conditional) SampleN(rng *rand.Rand, k int, dst []float64) []float64 {
	g := c.g
	n := g.Dim()
	if cap(dst) < k*n {
		dst = make([]float64, k*n)
	}
	dst = dst[:k*n]
	if g.F == nil || c.m == 0 {
		dst = g.SampleN(rng, k, dst)
	} else {
		_, r := g.F.Dims()
		z := make([]float64, r)
		w := make([]float64, r)
		res := make([]float64, c.m)
		sol := make([]float64, c.m)
		for s := range k {
			for i := range z {
				z[i] = rng.NormFloat64()
			}
			row := dst[s*n : (s+1)*n]
			// residual of the observed links: (x_O − μ_O) − (F_O z + Idio_O ε_O)
			// (a factor model's own variates of the observed links are
			// drawn first, the other links' after: any fixed order will do)
			for i, e := range c.obsIdx {
				own := 0.0
				if g.Idio != nil {
					own = g.Idio[e] * rng.NormFloat64()
				}
				res[i] = c.timeOf(e) - g.Mean[e] - floats.Dot(c.obs[i], z) - own
			}
			c.backward(c.forward(res, sol))
			// w = z + F_Oᵀ α', so x_e = μ_e + F_e · w (+ Idio_e ε_e): an
			// unobserved link's own part is independent of the observed.
			copy(w, z)
			for i, a := range sol {
				floats.AddScaled(w, a, c.obs[i])
			}
			for e := range row {
				x := g.Mean[e] + floats.Dot(g.F.RawRowView(e), w)
				if g.Idio != nil {
					x += g.Idio[e] * rng.NormFloat64()
				}
				row[e] = floor(x)
			}
		}
	}
	for s := range k {
		row := dst[s*n : (s+1)*n]
		for i, e := range c.known {
			row[e] = c.times[i]
		}
	}
	return dst
}

func (c *Conditional) timeOf(e int) float64 {
	t, _ := c.time(e)
	return t
}

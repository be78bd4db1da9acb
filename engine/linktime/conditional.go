package linktime

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Conditional is the model conditioned on observed link times: the Gaussian
// regression of the unobserved links on the observed ones. (The floor is
// ignored here: it moves the conditional law only in the far lower tail.)
type Conditional struct {
	g     *Gaussian
	obs   []int        // observed links with positive variance, deduplicated
	alpha []float64    // Σ_OO⁻¹ (x_O − μ_O)
	chol  mat.Cholesky // of Σ_OO (+ tiny jitter)
	known map[int]float64
}

// Condition conditions g on the observed links (a link met twice counts once).
func (g *Gaussian) Condition(links []int, times []float64) *Conditional {
	c := &Conditional{g: g, known: make(map[int]float64, len(links))}
	for k, e := range links {
		if _, dup := c.known[e]; dup {
			continue
		}
		c.known[e] = times[k]
		// Fixed-time links carry no information, and independent links
		// carry none about the others.
		if g.SD[e] > 0 && g.F != nil {
			c.obs = append(c.obs, e)
		}
	}
	m := len(c.obs)
	if m == 0 {
		return c
	}
	s := mat.NewSymDense(m, nil)
	maxd := 0.0
	for i, a := range c.obs {
		for j := i; j < m; j++ {
			s.SetSym(i, j, g.Cov(a, c.obs[j]))
		}
		maxd = math.Max(maxd, s.At(i, i))
	}
	// Jitter keeps the factorization alive when observed links are linearly
	// dependent (a rank-deficient Σ); its effect is below 1e-9 relative.
	for jitter := 1e-10 * maxd; ; jitter *= 100 {
		for i := range m {
			s.SetSym(i, i, s.At(i, i)+jitter)
		}
		if c.chol.Factorize(s) {
			break
		}
	}
	r := mat.NewVecDense(m, nil)
	for i, e := range c.obs {
		r.SetVec(i, c.known[e]-g.Mean[e])
	}
	var a mat.VecDense
	_ = c.chol.SolveVecTo(&a, r)
	c.alpha = a.RawVector().Data
	return c
}

// Sum returns the conditional mean and standard deviation of the total time
// of the given links (a path; repeats count once each time they appear, at
// the one realized time). Observed links contribute their realized time.
func (c *Conditional) Sum(links []int) (mean, sd float64) {
	g := c.g
	var free []int
	for _, e := range links {
		if t, ok := c.known[e]; ok {
			mean += t
			continue
		}
		mean += g.Mean[e]
		free = append(free, e)
	}
	if g.F == nil { // independent: no regression, variances add
		v := 0.0
		for _, e := range free {
			v += g.SD[e] * g.SD[e]
		}
		return mean, math.Sqrt(v)
	}
	// With Σ = F Fᵀ, the sum's loading is s = Σ_e F_e, so Var = |s|² and
	// Cov(sum, X_o) = s·F_o: linear in the path length, not quadratic.
	_, r := g.F.Dims()
	s := mat.NewVecDense(r, nil)
	for _, e := range free {
		s.AddVec(s, g.F.RowView(e))
	}
	v := mat.Dot(s, s)
	if m := len(c.obs); m > 0 {
		cross := mat.NewVecDense(m, nil)
		for i, o := range c.obs {
			cross.SetVec(i, mat.Dot(s, g.F.RowView(o)))
		}
		mean += mat.Dot(cross, mat.NewVecDense(m, c.alpha))
		var w mat.VecDense
		_ = c.chol.SolveVecTo(&w, cross)
		v -= mat.Dot(cross, &w)
	}
	return mean, math.Sqrt(math.Max(v, 0))
}

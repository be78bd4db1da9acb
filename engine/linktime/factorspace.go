package linktime

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// A factor model (Σ = F Fᵀ + diag(Idio²), K factors) is conditioned in the
// factors' space: the observed links' latent times are y_O = m_O + F_O w +
// ε_O with independent own parts of variance d_i (Idio² plus a censored
// link's pseudo-noise), so the factors' posterior has precision
// P = I + Σ_i a_i a_iᵀ/d_i (a_i = F's row of observed link i) and mean
// P⁻¹ b, b = Σ_i a_i (y_i − m_i)/d_i. By the push-through identity
// F_Oᵀ(F_O F_Oᵀ + D)⁻¹ = P⁻¹ F_Oᵀ D⁻¹, a sum with loading s moves by s·P⁻¹b
// and has variance own + sᵀP⁻¹s: the same law as the regression on the m
// observed links (TestFactorSpaceMatchesLinkSpace), at O(K²) an
// observation and a question instead of O(m·K + m²). On a Delaware trip of
// 300 links under 64 factors that was most of cdot's and cgr's time.
//
// It needs every own variance positive (strength below 1) and few factors:
// otherwise the regression on the observed links, as before.

// linkSpaceOnly, when set (by tests), conditions every model on the
// observed links: what the factors' space is checked against.
var linkSpaceOnly = false

// maxFactorSpace is the most factors conditioned in their space (P is K×K).
const maxFactorSpace = 128

// factorSpace reports whether g's conditionals work in the factors' space
// (decided once per model: a route is conditioned at every decision).
func (g *Gaussian) factorSpace() bool {
	if linkSpaceOnly {
		return false
	}
	g.fsOnce.Do(func() { g.fs = g.canFactorSpace() })
	return g.fs
}

// RegressesLinks reports whether g's conditionals regress on the observed
// links' rows (a dense model): there a Loading's kept products save work;
// in the factors' space they are not used.
func (g *Gaussian) RegressesLinks() bool { return g.F != nil && !g.factorSpace() }

func (g *Gaussian) canFactorSpace() bool {
	if g.F == nil || g.Idio == nil {
		return false
	}
	if _, k := g.F.Dims(); k > maxFactorSpace {
		return false
	}
	for e, s := range g.Idio {
		if g.SD[e] > 0 && !(s > 0) {
			return false
		}
	}
	return true
}

// initFactor starts P = I (its Cholesky factor's transpose, upper,
// row-major) and b = 0.
func (c *Conditional) initFactor() {
	_, k := c.g.F.Dims()
	c.k = k
	c.chol = make([]float64, k*k)
	for i := range k {
		c.chol[i*k+i] = 1
	}
	c.b = make([]float64, k)
	c.muW = make([]float64, k)
	c.z = make([]float64, k)
}

// observeCensored is Observe where a time, this one or an earlier one, is
// censored: Condition regresses on the exact times first, in route order,
// then adds the censored ones in route order, each given all before it. So
// the new time goes to exact (the state after the exact times), and the
// censored ones are added again to a copy: O(K²) for each censored time in
// the factors' space (O(m·r + m²) in the links') instead of conditioning
// the whole route again at every decision (after a time at the floor, one
// episode in five on a 150-link Delaware trip, that was most of cgr's and
// cdot's time; on Anaheim's dense model a quarter of cgr's decisions were
// such rebuilds). Bit for bit Condition's result
// (TestObserveEqualsConditionFromScratch).
func (c *Conditional) observeCensored(e int, t float64) {
	if c.isKnown(e) {
		return // a link met again: nothing new (c and exact know the same links)
	}
	base := c.exact
	if base == nil { // the first censored time: everything so far was exact
		base = c
	}
	exact := base.clone()
	if exact.note(e, t) {
		exact.cens = append(exact.cens, e)
	}
	next := exact.clone()
	next.exact = exact
	next.addCensoredLast(exact.cens)
	*c = *next
}

// clone copies what conditioning changes (in either space), so that the
// copy can be extended alone; factor rows are views of g.F, and a link-space
// factor's rows are never written once appended, so both are shared.
func (c *Conditional) clone() *Conditional {
	return &Conditional{g: c.g, fs: c.fs, k: c.k, m: c.m, censored: c.censored,
		known: slices.Clone(c.known), times: slices.Clone(c.times), obs: slices.Clone(c.obs), obsIdx: slices.Clone(c.obsIdx),
		obsVal: slices.Clone(c.obsVal), noise: slices.Clone(c.noise), cens: slices.Clone(c.cens),
		lower: slices.Clone(c.lower), alpha: slices.Clone(c.alpha), cross: make([]float64, len(c.cross)), y: make([]float64, len(c.y)),
		chol: slices.Clone(c.chol), b: slices.Clone(c.b), muW: make([]float64, c.k), z: make([]float64, c.k)}
}

// appendFactor adds link e's observation (latent value val, pseudo-noise
// noise) to P and b; minPivot as appendRow (its conditional variance
// against its prior).
func (c *Conditional) appendFactor(e int, val, noise float64, minPivot bool) bool {
	g := c.g
	row := g.F.RawRowView(e)
	d := g.IdioVar(e) + noise
	if minPivot {
		prior := floats.Dot(row, row) + g.IdioVar(e)
		z := c.lowerSolve(row)
		if piv := floats.Dot(z, z) + d; !(piv > 1e-12*prior) {
			return false
		}
	}
	// rank-one update of the Cholesky factor by x = a/√d (U = Cᵀ is
	// stored, so each step runs along a row)
	x := c.z
	sd := math.Sqrt(d)
	for i, v := range row {
		x[i] = v / sd
	}
	k, U := c.k, c.chol
	for i := range k {
		uii := U[i*k+i]
		r := math.Sqrt(uii*uii + x[i]*x[i])
		cs, sn := r/uii, x[i]/uii
		inv := 1 / cs
		U[i*k+i] = r
		ui, xs := U[i*k+i+1:(i+1)*k], x[i+1:]
		for j, u := range ui {
			l := (u + sn*xs[j]) * inv
			ui[j] = l
			xs[j] = cs*xs[j] - sn*l
		}
	}
	floats.AddScaled(c.b, (val-g.Latent[e])/d, row)
	c.obs = append(c.obs, row)
	c.obsIdx = append(c.obsIdx, e)
	c.obsVal = append(c.obsVal, val)
	c.noise = append(c.noise, noise)
	c.m++
	return true
}

// lowerSolve is C⁻¹ s into c.z (C = Uᵀ: P's Cholesky factor), by columns
// of C (rows of U).
func (c *Conditional) lowerSolve(s []float64) []float64 {
	k, U, z := c.k, c.chol, c.z
	copy(z, s)
	for j := range k {
		z[j] /= U[j*k+j]
		floats.AddScaled(z[j+1:], -z[j], U[j*k+j+1:(j+1)*k])
	}
	return z
}

// upperSolve solves Cᵀ x = U x = y in place.
func (c *Conditional) upperSolve(y []float64) {
	k, U := c.k, c.chol
	for i := k - 1; i >= 0; i-- {
		y[i] = (y[i] - floats.Dot(U[i*k+i+1:(i+1)*k], y[i+1:])) / U[i*k+i]
	}
}

// solveFactor sets the factors' posterior mean P⁻¹ b.
func (c *Conditional) solveFactor() {
	copy(c.muW, c.lowerSolve(c.b))
	c.upperSolve(c.muW)
}

// loadedFactor is Loaded in the factors' space.
func (c *Conditional) loadedFactor(mean float64, s []float64, own float64) (float64, float64) {
	mean += floats.Dot(s, c.muW)
	z := c.lowerSolve(s)
	return mean, math.Sqrt(math.Max(own+floats.Dot(z, z), 0))
}

// weightsFactor is weights in the factors' space: the same draws, in the
// same order, and Matheron's correction P⁻¹ F_Oᵀ D⁻¹ (the residual).
func (c *Conditional) weightsFactor(rng *rand.Rand, w []float64) {
	g := c.g
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	if c.m == 0 {
		return
	}
	t := make([]float64, c.k)
	for i, e := range c.obsIdx {
		own := g.Idio[e] * rng.NormFloat64()
		if c.noise[i] > 0 {
			own += math.Sqrt(c.noise[i]) * rng.NormFloat64()
		}
		res := c.obsVal[i] - g.Latent[e] - floats.Dot(c.obs[i], w) - own
		floats.AddScaled(t, res/(g.IdioVar(e)+c.noise[i]), c.obs[i])
	}
	copy(t, c.lowerSolve(t))
	c.upperSolve(t)
	floats.Add(w, t)
}

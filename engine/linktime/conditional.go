package linktime

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
)

// Conditional is the model conditioned on observed link times: the Gaussian
// regression of the unobserved links' latent times on the observed ones. A
// time above its link's floor is the latent time itself, an exact
// observation. A time at the floor says only that the latent time was at or
// below it (censored): it enters as the Gaussian that has the truncated
// law's mean and variance (assumed-density filtering, exact in the first two
// moments for one censored link), a pseudo-observation with its own noise.
type Conditional struct {
	g      *Gaussian
	known  []int       // observed links, deduplicated
	times  []float64   // their realized times
	obs    [][]float64 // factor rows of the observed links that carry information
	obsIdx []int       // their link indices
	obsVal []float64   // the latent value each stands for (a censored link's pseudo-value)
	noise  []float64   // each one's noise variance (0 for an exact observation)
	alpha  []float64   // Σ_OO⁻¹ (y_O − m_O)
	lower  [][]float64 // Cholesky factor of Σ_OO (+ noise): row i holds its i+1 entries
	m      int
	// censored: some observation was censored. From scratch those are
	// added after the exact ones, so Observe extends exact, the state
	// before the censored ones, and adds them again (observeCensored).
	censored bool
	exact    *Conditional
	cross    []float64 // scratch
	y        []float64 // scratch
	loaded   []float64 // scratch
	// In the factors' space (factorspace.go; fs): P's Cholesky factor
	// transposed (k × k, upper, row-major), b, the posterior mean P⁻¹b
	// and scratch.
	fs           bool
	k            int
	chol, b, muW []float64
	z            []float64
	cens         []int // exact's: the censored links, in route order
}

// Impossible is how many standard deviations from its law an observation
// must be to be one the law cannot produce (probability under 1e-15): such
// a time is kept as the link's own but not regressed on, which would move
// every correlated link by as many deviations.
const Impossible = 8.0

// Censored reports whether a realized time of link e is at its floor, so
// that it says only that the latent time was at most the floor.
func (g *Gaussian) Censored(e int, t float64) bool {
	return g.SD[e] > 0 && t <= g.Floors[e]*(1+1e-12)
}

// Condition conditions g on the observed links (a link met twice counts once).
func (g *Gaussian) Condition(links []int, times []float64) *Conditional {
	c := &Conditional{g: g, fs: g.factorSpace()}
	if c.fs {
		c.initFactor()
	}
	var censored []int
	for k, e := range links {
		if c.note(e, times[k]) {
			censored = append(censored, e)
		}
	}
	if len(censored) > 0 {
		c.exact = c.clone()
		c.exact.cens = censored
	}
	c.addCensoredLast(censored)
	return c
}

// addCensoredLast solves for the exact times noted, then adds the censored
// ones after them in route order, each given all before it: Condition's
// last step, and Observe's after a censored time (observeCensored).
func (c *Conditional) addCensoredLast(censored []int) {
	c.solve()
	c.censored = len(censored) > 0
	for _, e := range censored {
		c.addCensored(e)
	}
}

// Observe extends c by one more traversal, link e in time t: afterwards c
// is Condition(links + e, times + t), bit for bit, at the cost of one new
// row of the factor (O(m·r + m²)) instead of a new factorization (O(m²·r +
// m³)). cgr and cdot condition on the whole route at every decision: on a
// 100-link Delaware trip the rebuild was most of their time. It reports
// false, leaving c unchanged, where it cannot: the caller conditions from
// scratch (every time can be observed today; the answer keeps callers
// honest should a law come that cannot).
func (c *Conditional) Observe(e int, t float64) bool {
	censored := !c.isKnown(e) && c.informative(e) && c.g.Censored(e, t)
	if c.exact != nil || censored {
		c.observeCensored(e, t)
		return true
	}
	m := c.m
	c.note(e, t)
	if c.m > m {
		c.solve()
	}
	return true
}

// informative: a time of link e says something about the others (fixed-
// time links carry no information, and independent links none about the
// others).
func (c *Conditional) informative(e int) bool { return c.g.SD[e] > 0 && c.g.F != nil }

// note records link e's time t, the one step of Condition and Observe: a
// link met twice counts once, and an exact time of an informative link
// becomes the factor's next row (α is not solved again). It reports a
// censored time, recorded as known but not yet regressed on: Condition adds
// those last.
func (c *Conditional) note(e int, t float64) (censored bool) {
	g := c.g
	if c.isKnown(e) {
		return false
	}
	c.known = append(c.known, e)
	c.times = append(c.times, t)
	y := g.LatentOf(e, t) // t itself for a censored normal
	switch {
	case !c.informative(e):
	case g.Censored(e, y):
		return true
	case math.Abs(y-g.Latent[e]) > Impossible*g.SD[e]:
		// no draw of the law is there: it would only blow the regression up
	default:
		c.appendRow(e, y, 0, false)
	}
	return false
}

// appendRow adds link e's observation (the latent value val, with noise
// variance noise) as the factor's next row: Σ_OO's new row is F_O F_eᵀ and
// its diagonal F_e·F_e + own + noise. A jitter of 10⁻¹⁰ of the diagonal
// (×100 until the pivot is positive) keeps the factor alive when observed
// links are linearly dependent (a rank-deficient Σ); its effect is below
// 10⁻⁹ relative. It reports false, adding nothing, when the pivot is below
// 10⁻¹² of the link's own variance with no jitter (minPivot: a censored
// link the others already determine).
func (c *Conditional) appendRow(e int, val, noise float64, minPivot bool) bool {
	if c.fs {
		return c.appendFactor(e, val, noise, minPivot)
	}
	g := c.g
	row := g.F.RawRowView(e)
	i := c.m
	ri := make([]float64, i+1)
	g.rowDotsWith(e, c.obsIdx, ri[:i]) // F_{o_j}·F_e, kept across episodes
	for j := range i {
		rj := c.lower[j]
		ri[j] = (ri[j] - floats.Dot(ri[:j], rj[:j])) / rj[j]
	}
	prior := g.rowDot(e) + g.IdioVar(e)
	piv := prior + noise - floats.Dot(ri[:i], ri[:i])
	if minPivot {
		if !(piv > 1e-12*prior) {
			return false
		}
	} else {
		for jitter := 1e-10 * (prior + noise); ; jitter *= 100 {
			if piv += jitter; piv > 0 || jitter > prior+noise {
				break
			}
		}
	}
	ri[i] = math.Sqrt(math.Max(piv, 1e-300))
	c.lower = append(c.lower, ri)
	c.obs = append(c.obs, row)
	c.obsIdx = append(c.obsIdx, e)
	c.obsVal = append(c.obsVal, val)
	c.noise = append(c.noise, noise)
	c.m++
	if len(c.cross) < c.m {
		c.cross = make([]float64, 2*c.m)
		c.y = make([]float64, 2*c.m)
	}
	return true
}

// solve recomputes α = Σ_OO⁻¹ (y_O − m_O) = L⁻ᵀ L⁻¹ r.
func (c *Conditional) solve() {
	if c.fs {
		c.solveFactor()
		return
	}
	r := make([]float64, c.m)
	for i, e := range c.obsIdx {
		r[i] = c.obsVal[i] - c.g.Latent[e]
	}
	c.alpha = c.backward(c.forward(r, make([]float64, c.m)))
}

// addCensored adds link e's censored observation (latent ≤ floor) as the
// pseudo-observation whose Gaussian update gives the truncated law's mean
// and variance, given everything observed before it.
func (c *Conditional) addCensored(e int) {
	g := c.g
	row := g.F.RawRowView(e)
	mu, sd := c.Loaded(g.Latent[e], row, g.IdioVar(e))
	v := sd * sd
	prior := g.rowDot(e) + g.IdioVar(e)
	if !(v > 1e-12*prior) {
		return // already determined by what was observed: nothing to add
	}
	beta := (g.Floors[e] - mu) / sd
	if beta < -Impossible {
		return // the law puts no mass at the floor: an observation that says nothing usable
	}
	lambda := millsLower(beta) // E[Z | Z ≤ β] = −λ
	vt := v * math.Max(1-beta*lambda-lambda*lambda, 0)
	if !(v-vt > 1e-9*v) {
		return // the floor is far above the law: censoring says nothing
	}
	vt = math.Max(vt, 1e-9*v)
	mt := mu - sd*lambda
	tau2 := v * vt / (v - vt)
	val := mu + (mt-mu)*(v+tau2)/v
	if c.appendRow(e, val, tau2, true) {
		c.solve()
	}
}

// millsLower is λ(β) = φ(β)/Φ(β), so E[Z | Z ≤ β] = −λ for Z ~ N(0, 1);
// for β far below zero Φ underflows and λ → −β − 1/β + 2/β³.
func millsLower(beta float64) float64 {
	if beta < -30 {
		return -beta - 1/beta + 2/(beta*beta*beta)
	}
	return normPDF(beta) / normCDF(beta)
}

func (c *Conditional) isKnown(e int) bool {
	for _, k := range c.known {
		if k == e {
			return true
		}
	}
	return false
}

// forward solves L y = b into y (the first m entries).
func (c *Conditional) forward(b, y []float64) []float64 {
	for i, row := range c.lower {
		s := b[i]
		for j, l := range row[:i] {
			s -= l * y[j]
		}
		y[i] = s / row[i]
	}
	return y[:c.m]
}

// backward solves Lᵀ x = y in place.
func (c *Conditional) backward(y []float64) []float64 {
	for i := c.m - 1; i >= 0; i-- {
		s := y[i]
		for j := i + 1; j < c.m; j++ {
			s -= c.lower[j][i] * y[j]
		}
		y[i] = s / c.lower[i][i]
	}
	return y
}

// Sum returns the conditional mean and standard deviation of the total time
// of the given links, as a Gaussian: each unobserved link counts its stated
// mean (its realized mean) moved by the latent regression, and the latent
// (co)variances. Exact for the paper's law without the floor, and for the
// matched law up to the floor's mass (0.1% a link at σ/μ = 0.3). Under a
// skewed law a warped link counts as its linearization (Gaussian.SumRow):
// exact unconditional mean and variance, but the sum's skew is lost and a
// conditional mean moves by the latent regression times σ/s. The links
// are a path; repeats count once each time they appear, at the one realized
// time. Observed links contribute their realized time.
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
			v += g.SumSD(e) * g.SumSD(e)
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
		floats.Add(s, g.SumRow(e))
		own += g.SumIdioVar(e)
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
	if c.fs {
		return c.loadedFactor(mean, s, own)
	}
	cross := c.cross[:c.m]
	for i, row := range c.obs {
		cross[i] = floats.Dot(row, s)
	}
	return c.regressed(mean, floats.Dot(s, s)+own, cross)
}

// regressed is a sum's conditional law from its unconditional mean and
// variance v and its covariances with the observed links, cross (c.cross,
// in c.obs's order).
func (c *Conditional) regressed(mean, v float64, cross []float64) (float64, float64) {
	if c.m > 0 {
		mean += floats.Dot(cross, c.alpha)
		y := c.forward(cross, c.y)
		v -= floats.Dot(y, y)
	}
	return mean, math.Sqrt(math.Max(v, 0))
}

// weights draws one realization's factor weights into w (the rank of F):
// z ~ N(0, I) corrected by Matheron's rule, w = z + F_Oᵀ Σ_OO⁻¹ (x_O − μ_O
// − F_O z − own_O), so that an unobserved link is m_e + F_e · w (+ its own
// Idio_e ε_e, independent of the observed). The observed links' own
// variates are drawn after z, in their order. scratch holds 2m floats.
func (c *Conditional) weights(rng *rand.Rand, w, scratch []float64) {
	if c.fs {
		c.weightsFactor(rng, w)
		return
	}
	g := c.g
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	if c.m == 0 {
		return
	}
	res, sol := scratch[:c.m], scratch[c.m:2*c.m]
	for i, e := range c.obsIdx {
		own := 0.0
		if g.Idio != nil {
			own = g.Idio[e] * rng.NormFloat64()
		}
		if c.noise[i] > 0 { // a censored link's pseudo-observation noise
			own += math.Sqrt(c.noise[i]) * rng.NormFloat64()
		}
		res[i] = c.obsVal[i] - g.Latent[e] - floats.Dot(c.obs[i], w) - own
	}
	c.backward(c.forward(res, sol))
	for i, a := range sol {
		floats.AddScaled(w, a, c.obs[i])
	}
}

// Latent is the conditional law of link e's latent time: its mean and
// standard deviation (an observed link's is its latent value, exactly). The
// link's realized time is Gaussian.TimeOf the latent: cdot discretizes that.
func (c *Conditional) Latent(e int) (mean, sd float64) {
	g := c.g
	if t, ok := c.time(e); ok {
		return g.LatentOf(e, t), 0
	}
	if g.F == nil || c.m == 0 && g.Idio == nil {
		return g.Latent[e], g.SD[e]
	}
	if c.fs {
		return c.Loaded(g.Latent[e], g.F.RawRowView(e), g.IdioVar(e))
	}
	// Loaded's products of one link's row are kept pairs of rows (cdot
	// asks each link leaving every node of every episode's route).
	cross := c.cross[:c.m]
	g.rowDotsWith(e, c.obsIdx, cross)
	return c.regressed(g.Latent[e], g.rowDot(e)+g.IdioVar(e), cross)
}

// WeightedSum is the conditional law of Σ w_k·X_k over links[k] (a known
// link's time in place of X_k), with each unknown link linearized as Sum
// does: cgr's route sum where each link's law is read at the hour it is
// entered (a link's time there is its static time scaled by its spread
// and mean factors, plus a shift the caller adds).
func (c *Conditional) WeightedSum(links []int, w []float64) (mean, sd float64) {
	g := c.g
	if g.F == nil {
		v := 0.0
		for k, e := range links {
			if t, ok := c.time(e); ok {
				mean += w[k] * t
				continue
			}
			mean += w[k] * g.Mean[e]
			v += w[k] * w[k] * g.SumSD(e) * g.SumSD(e)
		}
		return mean, math.Sqrt(v)
	}
	_, r := g.F.Dims()
	if cap(c.loaded) < r {
		c.loaded = make([]float64, r)
	}
	s := c.loaded[:r] // Sum's scratch: a conditioned law serves one decision at a time
	clear(s)
	own := 0.0
	for k, e := range links {
		if t, ok := c.time(e); ok {
			mean += w[k] * t
			continue
		}
		mean += w[k] * g.Mean[e]
		floats.AddScaled(s, w[k], g.SumRow(e))
		own += w[k] * w[k] * g.SumIdioVar(e)
	}
	return c.Loaded(mean, s, own)
}

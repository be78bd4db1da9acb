// Package linktime models the joint distribution of link travel times: a
// latent multivariate Gaussian over all links with a pluggable correlation
// structure, each link floored by its law (see Law).
package linktime

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/split"
)

// Floor is the paper's law's least link time, in minutes. A Gaussian puts
// mass below zero (0.55% per draw on Sioux Falls link 6→5), and a negative
// or zero time would let a route gain budget by looping; every draw below the
// floor is raised to it. It shifts the mean of the three Anaheim links whose
// mean is below 0.1 (the matched law has no such shift: see Law).
const Floor = 0.1

// Gaussian is a joint link-time model: the latent Y = m + F z + Idio ⊙ ε,
// z ~ N(0, I), ε ~ N(0, I), so Σ = F Fᵀ + diag(Idio²), and the realized
// time X_e = max(Y_e, Floors[e]). The law (Law) gives each link's latent
// mean m_e, latent standard deviation s_e (SD) and floor from its stated
// mean and SD; under the paper's law m = μ, s = σ and every floor is 0.1.
// The dense models have F with one row per link and one column per non-zero
// eigenvalue of Σ (rank-deficient covariances sample exactly) and no Idio;
// the factor model has K ≪ links columns and Idio, so nothing of size
// links × links is ever held.
type Gaussian struct {
	Mean   []float64  // the stated mean of each link (what LET and path sums use)
	Latent []float64  // the latent normal's mean m_e
	SD     []float64  // the latent normal's total standard deviation s_e
	Floors []float64  // the least time of each link
	Law    string     // the law's name
	F      *mat.Dense // nil for independent links
	Idio   []float64  // factor model: each link's own standard deviation; nil otherwise
	Spec   engine.Correlation
	Stats  CorrStats
	// Warps are the skewed laws' transforms (nil: every link a censored
	// normal; a nil entry: that link one): X_e = Warps[e].TimeAt((Y_e −
	// Latent[e]) / SD[e]), and a warped link's latent floor is −∞ (no
	// atom: its least time is Warps[e].TimeAt(−∞) = 0, never reached).
	Warps []*Warp
	// sumF, sumIdio and sumSD are the loadings, own and total standard
	// deviations of the realized times, for the methods that treat a sum of
	// link times as Gaussian (Conditional.Sum, cgr): a warped link counts
	// as the linearization X_e ≈ μ_e + (σ_e/s_e)(Y_e − m_e), exact in mean
	// and variance. nil without warps: F, Idio and SD themselves.
	sumF    *mat.Dense
	sumIdio []float64
	sumSD   []float64
	// fs: conditionals work in the factors' space (factorspace.go)
	fs     bool
	fsOnce sync.Once
	// rowDots keeps F_a·F_b for the links a route conditions on (pairdots.go)
	rowDots pairDots
}

// CorrStats summarizes the link correlation matrix over distinct link pairs
// whose variances are both positive.
type CorrStats struct {
	MeanAbs float64 `json:"mean_abs_rho"`
	MaxAbs  float64 `json:"max_abs_rho"`
	Rank    int     `json:"rank"`
	Clipped int     `json:"clipped_eigenvalues"` // negative eigenvalues set to 0
}

// DenseLinkLimit bounds the dense correlation models (random-psd, spatial,
// explicit): they hold a links × links covariance and its eigen factor
// (4,000 links: 128 MB each; built in 8–11 s on two cores with the
// system's LAPACK, BenchmarkDenseModel).
const DenseLinkLimit = 4000

// New builds the model from the network's means, variances and correlation.
func New(net *engine.Network) (*Gaussian, error) {
	n := len(net.Links)
	if cm, ok := LookupCorrModel(net.Correlation.Model); ok && cm.Dense && n > DenseLinkLimit {
		return nil, engine.Errorf(engine.EINVALID, "network %s has %d links: %s correlation is dense and limited to %d links; choose %s (scales to any size) or independent links",
			net.Name, n, cm.Name, DenseLinkLimit, SpatialFactor)
	}
	law, err := LawByName(net.Law)
	if err != nil {
		return nil, err
	}
	g := &Gaussian{Mean: make([]float64, n), Latent: make([]float64, n), SD: make([]float64, n), Floors: make([]float64, n),
		Law: law.Name, Spec: net.Correlation}
	g.rowDots.limit = pairDotsMax
	for e, l := range net.Links {
		g.Mean[e] = l.Mean
		var w *Warp
		g.Latent[e], g.SD[e], g.Floors[e], w = law.linkLatent(l)
		if w != nil {
			if g.Warps == nil {
				g.Warps = make([]*Warp, n)
			}
			g.Warps[e] = w
		}
	}
	cm, err := CorrModelByName(net.Correlation.Model)
	if err != nil {
		return nil, err
	}
	done, err := cm.build(g, net, law)
	switch {
	case err != nil:
		return nil, err
	case !done:
		_, g.Stats.Rank = g.F.Dims()
		g.Stats.MeanAbs, g.Stats.MaxAbs = g.corrSummary()
	}
	g.sumScales(net)
	return g, nil
}

// sumScales sets the realized-scale loadings of a model with warps: the
// latent ones scaled by σ_e/s_e on warped links (see Gaussian.sumF).
func (g *Gaussian) sumScales(net *engine.Network) {
	if g.Warps == nil {
		return
	}
	n := g.Dim()
	scale := make([]float64, n)
	g.sumSD = make([]float64, n)
	for e := range n {
		scale[e] = 1
		g.sumSD[e] = g.SD[e]
		if g.Warps[e] != nil && g.SD[e] > 0 {
			g.sumSD[e] = net.Links[e].SD()
			scale[e] = g.sumSD[e] / g.SD[e]
		}
	}
	if g.F != nil {
		g.sumF = scaleRows(g.F, scale)
	}
	if g.Idio != nil {
		g.sumIdio = make([]float64, n)
		for e, v := range g.Idio {
			g.sumIdio[e] = scale[e] * v
		}
	}
}

// SumRow is link e's loadings on the realized scale (its row of F without
// warps): what a Gaussian sum of link times adds up.
func (g *Gaussian) SumRow(e int) []float64 {
	if g.sumF != nil {
		return g.sumF.RawRowView(e)
	}
	return g.F.RawRowView(e)
}

// SumIdioVar is link e's own variance on the realized scale.
func (g *Gaussian) SumIdioVar(e int) float64 {
	if g.sumIdio != nil {
		return g.sumIdio[e] * g.sumIdio[e]
	}
	return g.IdioVar(e)
}

// SumSD is link e's standard deviation on the realized scale.
func (g *Gaussian) SumSD(e int) float64 {
	if g.sumSD != nil {
		return g.sumSD[e]
	}
	return g.SD[e]
}

// TimeOf is link e's time when its latent value is y.
func (g *Gaussian) TimeOf(e int, y float64) float64 {
	if g.Warps != nil && g.Warps[e] != nil {
		return g.Warps[e].TimeAt((y - g.Latent[e]) / g.SD[e])
	}
	return max(y, g.Floors[e])
}

// LatentOf is the latent value of link e's time t: t itself for a
// censored normal (at or below the floor: censored, see Censored).
func (g *Gaussian) LatentOf(e int, t float64) float64 {
	if g.Warps != nil && g.Warps[e] != nil {
		return g.Latent[e] + g.SD[e]*g.Warps[e].LatentOf(t)
	}
	return t
}

// TimeRange is the times of link e at its latent law N(mu, sd²) ± 6 sd:
// where DOT and cdot bin a warped link's law.
func (g *Gaussian) TimeRange(e int, mu, sd float64) (lo, hi float64) {
	return g.TimeOf(e, mu-6*sd), g.TimeOf(e, mu+6*sd)
}

// LinkMoments are the raw moments 0..4 of link e's time (what FMA sums).
func (g *Gaussian) LinkMoments(e int) [5]float64 {
	if g.Warped(e) {
		return g.Warps[e].Moments(0, 1)
	}
	return RawMoments(g.Latent[e], g.SD[e], g.Floors[e])
}

// Warped reports whether link e's law is a warp (not a censored normal).
func (g *Gaussian) Warped(e int) bool { return g.Warps != nil && g.Warps[e] != nil }

// TimeCDF is P(X_e ≤ x) when link e's latent is N(mu, sd²), sd > 0: the
// law of its time, conditioned or not.
func (g *Gaussian) TimeCDF(e int, mu, sd, x float64) float64 {
	if g.Warped(e) {
		if x <= 0 {
			return 0
		}
		return normCDF((g.LatentOf(e, x) - mu) / sd)
	}
	if x < g.Floors[e] {
		return 0
	}
	return normCDF((x - mu) / sd)
}

func positive(xs []float64) int {
	k := 0
	for _, x := range xs {
		if x > 0 {
			k++
		}
	}
	return k
}

// scaleRows returns diag(s)·L.
func scaleRows(L *mat.Dense, s []float64) *mat.Dense {
	var F mat.Dense
	F.Apply(func(i, _ int, v float64) float64 { return s[i] * v }, L)
	return &F
}

// Dim is the number of links.
func (g *Gaussian) Dim() int { return len(g.Mean) }

// Cov is the covariance of the latent times of links i and j.
func (g *Gaussian) Cov(i, j int) float64 {
	if g.F == nil {
		if i == j {
			return g.SD[i] * g.SD[i]
		}
		return 0
	}
	c := mat.Dot(g.F.RowView(i), g.F.RowView(j))
	if i == j {
		c += g.IdioVar(i)
	}
	return c
}

// IdioVar is link e's variance outside the factors (0 for the dense models).
func (g *Gaussian) IdioVar(e int) float64 {
	if g.Idio == nil {
		return 0
	}
	return g.Idio[e] * g.Idio[e]
}

// SampleN draws k joint realizations into dst (row-major, k × Dim), which it
// grows as needed and returns. Draws use rng's normal variates in a fixed
// order, so the same source gives the same realizations on every machine.
func (g *Gaussian) SampleN(rng *rand.Rand, k int, dst []float64) []float64 {
	n := g.Dim()
	if cap(dst) < k*n {
		dst = make([]float64, k*n)
	}
	dst = dst[:k*n]
	if g.F == nil {
		for s := range k {
			row := dst[s*n : (s+1)*n]
			for e := range row {
				row[e] = max(g.Latent[e]+g.SD[e]*rng.NormFloat64(), g.Floors[e])
			}
			g.warpRow(row)
		}
		return dst
	}
	if g.Idio != nil {
		return g.sampleFactor(rng, k, dst)
	}
	_, r := g.F.Dims()
	z := mat.NewDense(k, r, nil)
	raw := z.RawMatrix().Data
	for i := range raw {
		raw[i] = rng.NormFloat64()
	}
	x := mat.NewDense(k, n, dst)
	x.Mul(z, g.F.T())
	for s := range k {
		row := dst[s*n : (s+1)*n]
		for e := range row {
			row[e] = max(row[e]+g.Latent[e], g.Floors[e])
		}
		g.warpRow(row)
	}
	return dst
}

// warpRow turns a drawn row's warped links from latent values into times
// (a warped link's latent floor is −∞: the max above left them as drawn).
func (g *Gaussian) warpRow(row []float64) {
	if g.Warps == nil {
		return
	}
	for e, w := range g.Warps {
		if w != nil {
			row[e] = w.TimeAt((row[e] - g.Latent[e]) / g.SD[e])
		}
	}
}

// sampleFactor draws row by row: the K factor variates, then one own
// variate per link, so drawing a pool in chunks gives the same realizations.
// A block of rows' variates is drawn first, in that order, and the rows'
// arithmetic (a K-long dot product a link: 5 s of a city's 1,190 days on
// one core) is then shared by the cores, each row by the same sums.
func (g *Gaussian) sampleFactor(rng *rand.Rand, k int, dst []float64) []float64 {
	n := g.Dim()
	_, r := g.F.Dims()
	per := r + n // a row's variates
	cores := 1
	if n >= sampleSplitLinks {
		cores = runtime.GOMAXPROCS(0)
	}
	block := max(cores, min(k, sampleBlockBytes/(8*per)))
	variates := make([]float64, min(k, block)*per)
	for from := 0; from < k; from += block {
		rows := min(block, k-from)
		for i := range variates[:rows*per] {
			variates[i] = rng.NormFloat64()
		}
		draw := func(s int) { // row from+s of dst
			z, own := variates[s*per:s*per+r], variates[s*per+r:(s+1)*per]
			row := dst[(from+s)*n : (from+s+1)*n]
			for e := range row {
				row[e] = max(g.Latent[e]+floats.Dot(g.F.RawRowView(e), z)+g.Idio[e]*own[e], g.Floors[e])
			}
			g.warpRow(row)
		}
		split.Ranges(rows, min(cores, rows), func(_, a, b int) {
			for s := a; s < b; s++ {
				draw(s)
			}
		})
	}
	return dst
}

// sampleSplitLinks is the fewest links for which a factor model's rows are
// drawn on every core, and sampleBlockBytes what a block's variates may
// hold (about 9 rows of Delaware's 112,702 links).
var (
	sampleSplitLinks = 10000
	sampleBlockBytes = 8 << 20
)

// corrSummary returns mean and max |ρ| over distinct pairs of links with
// positive variance.
func (g *Gaussian) corrSummary() (meanAbs, maxAbs float64) {
	n := g.Dim()
	// cov(i, j) for j < i: above lapackFrom the BLAS's dsyrk, else gonum
	// (the published networks keep their summaries to the last bit).
	var cov func(i, j int) float64
	if c, ok := bigGram(g.F); ok {
		cov = func(i, j int) float64 { return c[max(i, j)*n+min(i, j)] }
	} else {
		var C mat.Dense
		C.Mul(g.F, g.F.T())
		cov = C.At
	}
	var sum float64
	var cnt int
	for i := range n {
		if g.SD[i] == 0 {
			continue
		}
		for j := i + 1; j < n; j++ {
			if g.SD[j] == 0 {
				continue
			}
			rho := math.Abs(cov(i, j) / math.Sqrt(cov(i, i)*cov(j, j)))
			sum += rho
			cnt++
			maxAbs = math.Max(maxAbs, rho)
		}
	}
	if cnt > 0 {
		meanAbs = sum / float64(cnt)
	}
	return meanAbs, maxAbs
}

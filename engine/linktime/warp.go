package linktime

import (
	"math"
	"slices"
)

// A law is a latent Gaussian seen through a monotone transform per link (a
// Gaussian copula): the latent Y_e ~ N(m_e, s_e²), jointly Gaussian through
// the correlation model, and the time X_e = T_e(Y_e). The censored-normal
// laws have T_e(y) = max(y, f_e) and no Warp: their code paths are the ones
// every published number was computed with. The skewed laws (log-normal,
// fitted) give a link a Warp: with the standardized latent z = (y − m)/s,
//
//	log X = the piecewise-linear function through (ZGrid[k], LogTime[k]),
//	        extended linearly beyond the grid's ends,
//
// which is continuous and strictly increasing, so every time has exactly one
// latent value (conditioning stays exact in latent space) and no time is
// zero or negative (a route cannot gain budget by looping). A log-normal is
// the straight line LogTime[k] = m + s·ZGrid[k]; a gamma or an empirical
// law is its log-quantile at the grid's probabilities Φ(ZGrid[k]). The
// Python trainer draws the same law from the same table (models/train).

// ZGrid is the standardized latent values at which a warp's log-times are
// tabulated: −4 to 4 by 0.25 (Φ from 3·10⁻⁵ to 1 − 3·10⁻⁵).
var ZGrid = func() []float64 {
	z := make([]float64, 33)
	for k := range z {
		z[k] = -4 + 0.25*float64(k)
	}
	return z
}()

// Warp is one link's transform from its standardized latent value to its
// log-time, tabulated on ZGrid (strictly increasing).
type Warp struct {
	LogTime []float64
}

// LineWarp is the warp of a log-normal law whose log has mean m and
// standard deviation s on a latent standardized to N(0, 1).
func LineWarp(m, s float64) *Warp {
	w := &Warp{LogTime: make([]float64, len(ZGrid))}
	for k, z := range ZGrid {
		w.LogTime[k] = m + s*z
	}
	return w
}

// QuantileWarp is the warp of the law with quantile function q (q(p) > 0,
// non-decreasing); ties are broken upward by a relative 10⁻⁹ so the warp is
// strictly increasing. ok is false when q is not positive and finite on
// the grid or is constant.
func QuantileWarp(q func(p float64) float64) (w *Warp, ok bool) {
	w = &Warp{LogTime: make([]float64, len(ZGrid))}
	for k, z := range ZGrid {
		x := q(normCDF(z))
		if !(x > 0) || math.IsInf(x, 0) {
			return nil, false
		}
		w.LogTime[k] = math.Log(x)
	}
	if w.LogTime[len(ZGrid)-1]-w.LogTime[0] < 1e-6 {
		return nil, false
	}
	for k := 1; k < len(ZGrid); k++ {
		w.LogTime[k] = math.Max(w.LogTime[k], w.LogTime[k-1]+1e-9)
	}
	return w, true
}

// segment is the grid segment that z falls in (the first or last beyond the
// grid's ends).
func segment(z float64) int {
	k := int(math.Floor((z - ZGrid[0]) / 0.25))
	return min(max(k, 0), len(ZGrid)-2)
}

// LogTimeAt is the log-time at standardized latent z.
func (w *Warp) LogTimeAt(z float64) float64 {
	k := segment(z)
	z0, l0, l1 := ZGrid[k], w.LogTime[k], w.LogTime[k+1]
	return l0 + (z-z0)*(l1-l0)/(ZGrid[k+1]-z0)
}

// TimeAt is the time at standardized latent z.
func (w *Warp) TimeAt(z float64) float64 { return math.Exp(w.LogTimeAt(z)) }

// LatentOf is the standardized latent value of time t (> 0): the inverse
// of TimeAt.
func (w *Warp) LatentOf(t float64) float64 {
	lt := math.Log(t)
	k, _ := slices.BinarySearch(w.LogTime, lt)
	k = min(max(k-1, 0), len(ZGrid)-2)
	l0, l1 := w.LogTime[k], w.LogTime[k+1]
	return ZGrid[k] + (lt-l0)*(ZGrid[k+1]-ZGrid[k])/(l1-l0)
}

// Moments are the raw moments 0..4 of the warped law whose latent is
// N(mu, sd²) in standardized units (mu = 0, sd = 1: the link's own
// marginal; otherwise a conditional law), by Gauss–Hermite quadrature.
func (w *Warp) Moments(mu, sd float64) [5]float64 {
	var out [5]float64
	for i, x := range hermiteNodes {
		t := w.TimeAt(mu + sd*x)
		p := 1.0
		for k := range out {
			out[k] += hermiteWeights[i] * p
			p *= t
		}
	}
	return out
}

// MeanSD are the warped law's mean and standard deviation (see Moments).
func (w *Warp) MeanSD(mu, sd float64) (mean, stdev float64) {
	m := w.Moments(mu, sd)
	return m[1], math.Sqrt(math.Max(m[2]-m[1]*m[1], 0))
}

// hermiteNodes and hermiteWeights are a 64-point Gauss–Hermite rule for
// E[f(Z)], Z ~ N(0, 1) (probabilists' nodes; weights sum to 1). The warp is
// piecewise smooth, so the rule is accurate to about 10⁻⁶ relative.
var hermiteNodes, hermiteWeights = gaussHermite(64)

// gaussHermite computes the probabilists' Gauss–Hermite rule of n points
// by Newton's method on the physicists' polynomials (Golub–Welsch would need
// an eigensolver; this converges in a few steps from the usual guesses).
func gaussHermite(n int) (nodes, weights []float64) {
	x := make([]float64, n)
	wt := make([]float64, n)
	var z float64
	for i := range (n + 1) / 2 {
		switch i {
		case 0:
			z = math.Sqrt(float64(2*n+1)) - 1.85575*math.Pow(float64(2*n+1), -1.0/6)
		case 1:
			z -= 1.14 * math.Pow(float64(n), 0.426) / z
		case 2:
			z = 1.86*z - 0.86*x[0]
		case 3:
			z = 1.91*z - 0.91*x[1]
		default:
			z = 2*z - x[i-2]
		}
		var pp float64
		for range 100 {
			p1, p2 := math.Pow(math.Pi, -0.25), 0.0
			for j := 1; j <= n; j++ {
				p3 := p2
				p2 = p1
				p1 = z*math.Sqrt(2/float64(j))*p2 - math.Sqrt(float64(j-1)/float64(j))*p3
			}
			pp = math.Sqrt(2*float64(n)) * p2
			dz := p1 / pp
			z -= dz
			if math.Abs(dz) < 1e-14 {
				break
			}
		}
		x[i], x[n-1-i] = z, -z
		wt[i] = 2 / (pp * pp)
		wt[n-1-i] = wt[i]
	}
	nodes = make([]float64, n)
	weights = make([]float64, n)
	for i := range n { // e^{-x²} weights to the standard normal's
		nodes[i] = x[i] * math.Sqrt2
		weights[i] = wt[i] / math.Sqrt(math.Pi)
	}
	return nodes, weights
}

// Slope is the warp's dℓ/dz at standardized latent z (its segment's).
func (w *Warp) Slope(z float64) float64 {
	k := segment(z)
	return (w.LogTime[k+1] - w.LogTime[k]) / (ZGrid[k+1] - ZGrid[k])
}

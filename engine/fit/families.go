// Package fit turns observed link travel times into a network's law: each
// link's marginal (a family chosen by held-out likelihood, shrunk toward its
// neighbourhood when it has few observations) and the correlation of the
// links' normal scores as a low-rank factor model whose rank is chosen by
// cross-validation. The result is a network under linktime's fitted law.
package fit

import (
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// marginal is one fitted law of a link's time.
type marginal interface {
	LogProb(x float64) float64
	CDF(x float64) float64
}

// Family is one candidate law for a link's times, known by name in
// Families: how it is fitted and what the fitted law stores.
type Family struct {
	Name string
	Doc  string
	// MinN is the fewest observations it is fitted to (the empirical law
	// needs enough to have quantiles).
	MinN int
	fit  func(xs []float64) (marginal, bool)
	// warp is the stored transform (nil: the matched normal of the mean and
	// SD, which needs none).
	warp func(m marginal) (*linktime.Warp, bool)
}

// Families are the candidate laws, in the order reports list them.
var Families = []Family{
	{Name: "normal", Doc: "normal of the sample mean and SD (stored as the matched normal, floored at a tenth of the mean)", MinN: 2,
		fit: func(xs []float64) (marginal, bool) {
			m, s := meanSD(xs)
			return distuv.Normal{Mu: m, Sigma: s}, s > 0
		}},
	{Name: "lognormal", Doc: "log-normal: the logs' mean and SD (maximum likelihood)", MinN: 2,
		fit: func(xs []float64) (marginal, bool) {
			m, s := meanSD(logs(xs))
			return distuv.LogNormal{Mu: m, Sigma: s}, s > 0
		},
		warp: func(m marginal) (*linktime.Warp, bool) {
			l := m.(distuv.LogNormal)
			return linktime.LineWarp(l.Mu, l.Sigma), true
		}},
	{Name: "gamma", Doc: "gamma by maximum likelihood (Minka's fixed point for the shape)", MinN: 2,
		fit: fitGamma,
		warp: func(m marginal) (*linktime.Warp, bool) {
			return linktime.QuantileWarp(m.(distuv.Gamma).Quantile)
		}},
	{Name: "empirical", Doc: "the sample's own quantiles, joined smoothly in log-time and extended by the outermost slopes", MinN: 50,
		fit:  fitEmpirical,
		warp: func(m marginal) (*linktime.Warp, bool) { return m.(empirical).w, true }},
}

// FamilyNames lists the families' names.
func FamilyNames() []string {
	out := make([]string, len(Families))
	for i, f := range Families {
		out[i] = f.Name
	}
	return out
}

func familyByName(name string) Family {
	return Families[slices.IndexFunc(Families, func(f Family) bool { return f.Name == name })]
}

func meanSD(xs []float64) (float64, float64) {
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	if len(xs) > 1 {
		v /= float64(len(xs) - 1)
	}
	return m, math.Sqrt(v)
}

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

// fitGamma is the gamma's maximum-likelihood fit: with s = ln(mean) −
// mean(ln x), the shape solves ln a − ψ(a) = s (Minka 2002's Newton steps
// on 1/a from the closed-form start), the rate is a / mean.
func fitGamma(xs []float64) (marginal, bool) {
	m, _ := meanSD(xs)
	lm, _ := meanSD(logs(xs))
	s := math.Log(m) - lm
	if !(s > 1e-12) {
		return nil, false
	}
	a := (3 - s + math.Sqrt((s-3)*(s-3)+24*s)) / (12 * s)
	for range 20 {
		num := math.Log(a) - digamma(a) - s
		den := 1/a - trigamma(a)
		next := 1 / (1/a + num/(a*a*den))
		if !(next > 0) {
			break
		}
		done := math.Abs(next-a) < 1e-10*a
		a = next
		if done {
			break
		}
	}
	return distuv.Gamma{Alpha: a, Beta: a / m}, a > 0 && !math.IsInf(a, 0)
}

// digamma and trigamma by recurrence up to x ≥ 6 and their asymptotic
// series (accurate to about 1e-12 there).
func digamma(x float64) float64 {
	r := 0.0
	for x < 6 {
		r -= 1 / x
		x++
	}
	f := 1 / (x * x)
	return r + math.Log(x) - 0.5/x - f*(1.0/12-f*(1.0/120-f*(1.0/252-f*(1.0/240-f/132))))
}

func trigamma(x float64) float64 {
	r := 0.0
	for x < 6 {
		r += 1 / (x * x)
		x++
	}
	f := 1 / (x * x)
	return r + 1/x + f/2 + f/x*(1.0/6-f*(1.0/30-f*(1.0/42-f/30)))
}

// empirical is the sample's quantile function as a warp: the log of the
// sample's quantile at each grid probability Φ(z) (interpolated between
// order statistics at plotting positions (i − ½)/n), kept where the sample
// reaches (|z| within the n's plotting range) and extended linearly in z
// beyond, from the outermost kept segments.
type empirical struct{ w *linktime.Warp }

func fitEmpirical(xs []float64) (marginal, bool) {
	s := slices.Clone(xs)
	sort.Float64s(s)
	n := float64(len(s))
	zLo := normQuantile(0.5 / n)
	var kept []int
	for k, z := range linktime.ZGrid {
		if z >= zLo && z <= -zLo {
			kept = append(kept, k)
		}
	}
	if len(kept) < 2 || s[0] <= 0 || s[len(s)-1] == s[0] {
		return nil, false
	}
	lt := make([]float64, len(linktime.ZGrid))
	for _, k := range kept {
		p := normCDF(linktime.ZGrid[k])
		pos := p*n - 0.5 // fractional index of the plotting position
		i := int(math.Floor(pos))
		i = min(max(i, 0), len(s)-2)
		f := min(max(pos-float64(i), 0), 1)
		lt[k] = math.Log(s[i] + f*(s[i+1]-s[i]))
	}
	for j := 1; j < len(kept); j++ { // strictly increasing across ties
		k := kept[j]
		lt[k] = math.Max(lt[k], lt[kept[j-1]]+1e-6)
	}
	a, b := kept[0], kept[len(kept)-1]
	lo := (lt[kept[1]] - lt[a]) / (linktime.ZGrid[kept[1]] - linktime.ZGrid[a])
	hi := (lt[b] - lt[kept[len(kept)-2]]) / (linktime.ZGrid[b] - linktime.ZGrid[kept[len(kept)-2]])
	for k := range a {
		lt[k] = lt[a] - lo*(linktime.ZGrid[a]-linktime.ZGrid[k])
	}
	for k := b + 1; k < len(lt); k++ {
		lt[k] = lt[b] + hi*(linktime.ZGrid[k]-linktime.ZGrid[b])
	}
	return empirical{&linktime.Warp{LogTime: lt}}, true
}

// LogProb is the warp's density: x = exp(ℓ(z)) with ℓ piecewise linear, so
// f(x) = φ(z) / (x ℓ′(z)).
func (e empirical) LogProb(x float64) float64 { return warpLogProb(e.w, x) }

// CDF is Φ of the standardized latent value.
func (e empirical) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return normCDF(e.w.LatentOf(x))
}

func warpLogProb(w *linktime.Warp, x float64) float64 {
	if x <= 0 {
		return math.Inf(-1)
	}
	z := w.LatentOf(x)
	return -z*z/2 - 0.5*math.Log(2*math.Pi) - math.Log(x) - math.Log(w.Slope(z))
}

func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

func normQuantile(p float64) float64 { return distuv.UnitNormal.Quantile(p) }

// fitted is one link's chosen family and its fit.
type fitted struct {
	family Family
	m      marginal
}

// law is the fitted marginal as the network stores it: the link's mean and
// variance, and its warp (none for a normal).
func (f fitted) law(xs []float64) (mean, variance float64, logTime []float64, ok bool) {
	if f.family.warp == nil {
		m, s := meanSD(xs)
		return m, s * s, nil, true
	}
	w, ok := f.family.warp(f.m)
	if !ok {
		return 0, 0, nil, false
	}
	m, s := w.MeanSD(0, 1)
	return m, s * s, w.LogTime, true
}

// ks is the Kolmogorov–Smirnov distance between the marginal and the
// sample.
func ks(m marginal, xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	n := float64(len(s))
	d := 0.0
	for i, x := range s {
		c := m.CDF(x)
		d = math.Max(d, math.Max(c-float64(i)/n, float64(i+1)/n-c))
	}
	return d
}

// LinkFit is one link's fit as the network stores it.
func linkFit(f fitted, xs []float64, shrink float64) (engine.LinkFit, float64, float64, bool) {
	mean, variance, lt, ok := f.law(xs)
	return engine.LinkFit{Family: f.family.Name, N: len(xs), KS: ks(f.m, xs), Shrink: shrink, LogTime: lt}, mean, variance, ok
}

package linktime

import (
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/ontime-routing/ontime/engine"
)

// Every link-time law here is a Gaussian copula: a latent Y_e ~ N(m_e, s_e²),
// jointly Gaussian across links through the correlation model, and the
// realized time X_e = T_e(Y_e), T_e monotone (see Warp). The censored-normal
// laws have T_e(y) = max(y, f_e); a law says how a link's stated mean μ and
// standard deviation σ give (m, s, f), or a warp. So sampling, DOT's link
// PMFs, conditioning and the trainer's sampler are one implementation (this
// package and its Law), whatever the law.
//
// The names below are what networks store (engine.Network.Law; "" is the
// paper's law, which every network had before laws could be chosen).
const (
	// PaperLaw is the paper's benchmark law: the Gaussian N(μ, σ²) floored
	// at an absolute 0.1 minute. The stated mean is the realized mean only
	// where the floor carries no mass (μ ≫ 0.1 min); Sioux Falls, Anaheim
	// and the five-node example keep it so that published results stay
	// comparable with the paper's.
	PaperLaw = engine.PaperLawName
	// MatchedLaw is the default for every imported network: the floor is a
	// tenth of the link's own mean, and (m, s) are solved so that the
	// realized law has exactly the stated mean and standard deviation. It
	// does not depend on the time unit (scaling every link scales m, s, f).
	MatchedLaw = "matched-normal"
	// LogNormalLaw gives each link the log-normal law with exactly its
	// stated mean and standard deviation: right-skewed, never below zero.
	LogNormalLaw = "lognormal"
	// FittedLaw gives each link the marginal fitted from observed times
	// (engine.Link.Fit: normal, log-normal, gamma or empirical); a link
	// never observed keeps the matched law of its stated mean and SD.
	FittedLaw = "fitted"
)

// RelativeFloor is the matched law's floor as a fraction of each link's
// mean: no realized time is below a tenth of the link's mean.
const RelativeFloor = 0.1

// Law is one link-time law, known by name in Laws.
type Law struct {
	Name  string
	Label string // one line for pickers and reports
	Doc   string // the formula, and where it differs from the paper
	// Skewed laws are not censored normals: the methods that sum Gaussians
	// approximate them (see Gaussian.SumRow).
	Skewed bool
	// FromData laws come from fitting observed times, not from a choice: a
	// flag or form that names one is refused (LawNames lists the others).
	FromData bool
	// latent returns the latent normal's mean and standard deviation and
	// the floor of a link with stated mean mu and standard deviation sd.
	latent func(mu, sd float64) (m, s, floor float64)
	// link, when set, gives a link's latent law and warp (nil: a censored
	// normal) from the whole link; otherwise latent of its mean and SD.
	link func(l engine.Link) (m, s, floor float64, w *Warp)
}

// Laws lists the link-time laws; the first is the default for imports.
var Laws = []Law{
	{Name: MatchedLaw, Label: "normal floored at a tenth of each link's mean, matched to its mean and SD",
		Doc: "X = max(Y, 0.1·μ) with Y ~ N(m, s²) solved so that E[X] = μ and SD[X] = σ exactly; " +
			"scale-free (hours, minutes and seconds give the same law); differs from the paper's law only " +
			"where the paper's floor carries mass (links under about a minute, or σ/μ over 0.3)",
		latent: matchedLatent},
	{Name: PaperLaw, Label: "the paper's Gaussian, floored at 0.1 min",
		Doc: "X = max(Y, 0.1 min) with Y ~ N(μ, σ²): the benchmark law of SEGAC and GPG-HT. Its realized mean " +
			"exceeds μ where the floor carries mass (a link of mean 0.05 min always takes 0.1)",
		latent: func(mu, sd float64) (float64, float64, float64) { return mu, sd, Floor }},
	{Name: LogNormalLaw, Label: "log-normal matched to each link's mean and SD (right-skewed)", Skewed: true,
		Doc: "log X ~ N(m, s²) with s² = ln(1 + σ²/μ²) and m = ln μ − s²/2, so E[X] = μ and SD[X] = σ exactly; " +
			"skewed to the right like observed travel times, and never zero; correlation acts on the normal scores",
		latent: matchedLatent, link: logNormalLink},
	{Name: FittedLaw, Label: "each link's marginal fitted from observed times", Skewed: true, FromData: true,
		Doc: "each observed link keeps the family fitted to its times (normal, log-normal, gamma or empirical, " +
			"chosen by held-out likelihood); correlation acts on the normal scores; links never observed keep " +
			"the matched normal of their stated mean and SD",
		latent: matchedLatent, link: fittedLink},
}

// linkLatent is link l's latent law and warp under the law.
func (l Law) linkLatent(link engine.Link) (m, s, floor float64, w *Warp) {
	if l.link != nil {
		return l.link(link)
	}
	m, s, floor = l.latent(link.Mean, link.SD())
	return m, s, floor, nil
}

// logNormalLink is the log-normal law of the link's stated mean and SD on a
// standardized latent; a link of fixed time keeps it.
func logNormalLink(l engine.Link) (float64, float64, float64, *Warp) {
	mu, sd := l.Mean, l.SD()
	if sd <= 0 || mu <= 0 {
		m, s, f := matchedLatent(mu, sd)
		return m, s, f, nil
	}
	s2 := math.Log1p(sd * sd / (mu * mu))
	return 0, 1, math.Inf(-1), LineWarp(math.Log(mu)-s2/2, math.Sqrt(s2))
}

// fittedLink is the link's fitted marginal: a normal fit is the matched law
// of its mean and SD, the others their tabulated warp.
func fittedLink(l engine.Link) (float64, float64, float64, *Warp) {
	if l.Fit == nil || len(l.Fit.LogTime) != len(ZGrid) {
		m, s, f := matchedLatent(l.Mean, l.SD())
		return m, s, f, nil
	}
	return 0, 1, math.Inf(-1), &Warp{LogTime: l.Fit.LogTime}
}

// LawByName finds a law; "" is the paper's law.
func LawByName(name string) (Law, error) {
	if name == "" {
		name = PaperLaw
	}
	i := slices.IndexFunc(Laws, func(l Law) bool { return l.Name == name })
	if i < 0 {
		return Law{}, engine.Errorf(engine.EINVALID, "unknown link-time law %q (%s)", name, LawNames())
	}
	return Laws[i], nil
}

// LawNames lists the names of the laws a flag or form may choose,
// comma-separated, for help and errors.
func LawNames() string {
	var names []string
	for _, l := range Laws {
		if !l.FromData {
			names = append(names, l.Name)
		}
	}
	return strings.Join(names, ", ")
}

// ChooseLaw is LawByName for a flag or a form: a law that comes from data
// is refused, naming how to get it.
func ChooseLaw(name string) (Law, error) {
	l, err := LawByName(name)
	if err == nil && l.FromData {
		return Law{}, engine.Errorf(engine.EINVALID, "the %s law comes from observed times: give them (--observations, or ontime networks fit) instead of naming it; the laws to choose are %s", l.Name, LawNames())
	}
	return l, err
}

// Latent is the latent normal's mean and standard deviation and the floor
// of a link with stated mean mu and standard deviation sd under the law.
func (l Law) Latent(mu, sd float64) (m, s, floor float64) { return l.latent(mu, sd) }

// matchedLatent solves the matched law's latent parameters. With f = 0.1 μ
// and W = X − f = (Y − f)⁺, a = (m − f)/s:
//
//	E[W] = s·g1(a),  g1(a) = φ(a) + a Φ(a)
//	E[W²] = s²·g2(a), g2(a) = (a² + 1) Φ(a) + a φ(a)
//
// so SD[W]/E[W] = √(g2 − g1²)/g1 =: h(a), which falls from ∞ to 0 as a
// rises; a solves h(a) = σ/(μ − f), then s = (μ − f)/g1(a), m = f + a s.
// Coefficients of variation up to about 20 (a ≥ −minA) are matched; above
// that the latent law keeps a = −minA, which still has the stated mean.
func matchedLatent(mu, sd float64) (float64, float64, float64) {
	f := RelativeFloor * mu
	if sd <= 0 || mu <= 0 {
		return mu, 0, f
	}
	if (mu-f)/sd > 8 {
		return mu, sd, f // the floor is beyond 8σ: it carries no mass worth a change
	}
	a := matchedA(sd / (mu - f))
	s := (mu - f) / g1(a)
	return f + a*s, s, f
}

// matchedAs keeps matchedA's answers: a network's links mostly share one
// coefficient of variation (σ = 0.3 μ on every imported link), so a
// 250,000-link import bisected the same h(a) = target 250,000 times (1.5 s
// of its model's build). Bounded: cleared past 1<<16 targets.
var matchedAs = struct {
	sync.Mutex
	m map[float64]float64
}{m: map[float64]float64{}}

// matchedA solves h(a) = target by bisection (a pure function of target).
func matchedA(target float64) float64 {
	matchedAs.Lock()
	a, ok := matchedAs.m[target]
	matchedAs.Unlock()
	if ok {
		return a
	}
	lo, hi := -minA, 40.0
	if h(lo) < target {
		hi = lo
	}
	for range 200 {
		if hi-lo < 1e-13 {
			break
		}
		mid := (lo + hi) / 2
		if h(mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	a = (lo + hi) / 2
	matchedAs.Lock()
	if len(matchedAs.m) >= 1<<16 {
		clear(matchedAs.m)
	}
	matchedAs.m[target] = a
	matchedAs.Unlock()
	return a
}

// minA bounds the matched law's standardized distance from the floor.
const minA = 6.0

func normPDF(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

func g1(a float64) float64 { return normPDF(a) + a*normCDF(a) }
func g2(a float64) float64 { return (a*a+1)*normCDF(a) + a*normPDF(a) }
func h(a float64) float64 {
	m1 := g1(a)
	return math.Sqrt(math.Max(g2(a)-m1*m1, 0)) / m1
}

// CensoredMoments are the mean and standard deviation of max(Y, f) for
// Y ~ N(m, s²): what a law realizes for a link.
func CensoredMoments(m, s, f float64) (mean, sd float64) {
	if s <= 0 {
		x := math.Max(m, f)
		return x, 0
	}
	a := (m - f) / s
	mean = f + s*g1(a)
	v := s*s*g2(a) - (mean-f)*(mean-f)
	return mean, math.Sqrt(math.Max(v, 0))
}

// RawMoments returns the raw moments 0..4 of a link's law max(Y, f),
// Y ~ N(m, s²) (what FMA sums): f^k P(Y ≤ f) + Σ_j C(k, j) m^(k−j) s^j I_j, where
// I_j = ∫_a^∞ z^j φ(z) dz, a = (f − m)/s, satisfies I_0 = 1 − Φ(a),
// I_1 = φ(a), I_j = a^(j−1) φ(a) + (j−1) I_(j−2).
func RawMoments(m, s, f float64) [5]float64 {
	if s == 0 {
		x := math.Max(m, f)
		return [5]float64{1, x, x * x, x * x * x, x * x * x * x}
	}
	a := (f - m) / s
	pdf, below := normPDF(a), normCDF(a)
	var in [5]float64
	in[0], in[1] = 1-below, pdf
	for j := 2; j < 5; j++ {
		in[j] = math.Pow(a, float64(j-1))*pdf + float64(j-1)*in[j-2]
	}
	binom := [5][5]float64{{1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}, {1, 4, 6, 4, 1}}
	var out [5]float64
	for k := range 5 {
		out[k] = math.Pow(f, float64(k)) * below
		for j := 0; j <= k; j++ {
			out[k] += binom[k][j] * math.Pow(m, float64(k-j)) * math.Pow(s, float64(j)) * in[j]
		}
	}
	return out
}

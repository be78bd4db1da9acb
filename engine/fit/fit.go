package fit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// Fitting's fixed rules, chosen before any recovery result was seen.
const (
	// Folds is the held-out likelihood's number of folds.
	Folds = 5
	// ShrinkN: a link with fewer observations is not given a family of its
	// own: it is log-normal with its own log-mean and a log-SD shrunk
	// toward its neighbourhood's, with weight PriorN / (n + PriorN).
	ShrinkN = 30
	PriorN  = 10.0
)

// Report says what a fit found.
type Report struct {
	File         string       `json:"file"`
	Rows         int          `json:"rows"`
	Observations int          `json:"observations"` // distinct observation ids (days or slots)
	Links        []LinkReport `json:"links"`        // the observed links
	// Unobserved are the links never observed: they keep the default law
	// (the matched normal of their stated mean and SD) and no correlation.
	Unobserved []int `json:"unobserved"`
	// Rank is the factor model's, chosen by held-out error (RankScores);
	// Explained the share of the observed links' normal-score variance
	// it carries.
	Rank       int         `json:"rank"`
	Explained  float64     `json:"explained"`
	RankScores []RankScore `json:"rank_scores"`
	// Pairs are seeded random pairs of observed links (every pair of a
	// small network) with their observed and fitted correlations of normal
	// scores and the distance between their midpoints: the data page's
	// correlation figure.
	Pairs []PairCorr `json:"pairs,omitempty"`
	// Day is the fit over the day, where the observations had clock times.
	Day *DayReport `json:"day,omitempty"`
}

// PairCorr is one pair of links' correlation of normal scores, as
// observed (over the observations both have) and as fitted.
type PairCorr struct {
	A        int     `json:"a"`
	B        int     `json:"b"`
	Distance float64 `json:"distance"` // between midpoints, drawing-frame units; −1 without coordinates
	N        int     `json:"n"`        // observations both have
	Observed float64 `json:"observed"`
	Fitted   float64 `json:"fitted"`
}

// LinkReport is one observed link's fit.
type LinkReport struct {
	Link   int     `json:"link"`
	Name   string  `json:"name"`
	N      int     `json:"n"`
	Family string  `json:"family"`
	KS     float64 `json:"ks"`
	Shrink float64 `json:"shrink,omitempty"`
	Mean   float64 `json:"mean"`
	SD     float64 `json:"sd"`
	// Quantiles are the observed times' quantiles at 0, 5%, …, 100%
	// (QuantileSteps + 1 of them): the data page's histogram and QQ plot.
	Quantiles []float64 `json:"quantiles"`
}

// QuantileSteps is how many equal-probability steps a link's observed
// quantiles are kept at.
const QuantileSteps = 20

// Fit returns a copy of net under the fitted law: every observed link's
// marginal and the normal scores' factor correlation. net is not changed;
// bad observations (a link seen once, a constant link) are refused naming
// the file, line and field.
func Fit(net *engine.Network, obs *Observations) (*engine.Network, *Report, error) {
	var probs engine.Problems
	for e, xs := range obs.Links {
		switch {
		case len(xs) == 1:
			probs = append(probs, engine.InputError(obs.File, xs[0].Line, "time", "link %s is observed only once: a law needs at least two observations", linkName(net, e)))
		case len(xs) > 1 && constant(xs):
			probs = append(probs, engine.InputError(obs.File, xs[0].Line, "time", "link %s takes %g min in all %d observations: a constant time has no law to fit", linkName(net, e), xs[0].Time, len(xs)))
		}
		if len(probs) >= MaxProblems {
			break
		}
	}
	if len(probs) > 0 {
		return nil, nil, probs
	}
	if obs.Timed {
		return fitDay(net, obs)
	}
	return fitStatic(net, obs, obs)
}

// fitStatic fits each link's marginal to obs and the copula to cop's
// normal scores (cop has one observation per link and day: obs itself, or
// a day's traversals as one).
func fitStatic(net *engine.Network, obs, cop *Observations) (*engine.Network, *Report, error) {
	out := *net
	out.Links = slices.Clone(net.Links)
	out.Law = linktime.FittedLaw
	rep := &Report{File: obs.File, Rows: obs.Rows, Observations: len(obs.Days)}
	times := make([][]float64, len(net.Links))
	for e, xs := range obs.Links {
		for _, x := range xs {
			times[e] = append(times[e], x.Time)
		}
	}
	// Links with enough observations first: their log-SDs are the prior of
	// the sparsely observed ones.
	logSD := make([]float64, len(net.Links))
	for e, xs := range times {
		if len(xs) < ShrinkN {
			continue
		}
		f := chooseFamily(xs)
		if err := setLink(&out, e, f, xs, 0, rep); err != nil {
			return nil, nil, err
		}
		_, logSD[e] = meanSD(logs(xs))
	}
	for e, xs := range times {
		if len(xs) == 0 {
			rep.Unobserved = append(rep.Unobserved, e)
			continue
		}
		if len(xs) >= ShrinkN {
			continue
		}
		lm, ls := meanSD(logs(xs))
		w := PriorN / (float64(len(xs)) + PriorN)
		if prior, ok := neighbourLogSD(net, e, times, logSD); ok {
			ls = (1-w)*ls + w*prior
		} else {
			w = 0
		}
		f := fitted{familyByName("lognormal"), distuv.LogNormal{Mu: lm, Sigma: ls}}
		if err := setLink(&out, e, f, xs, w, rep); err != nil {
			return nil, nil, err
		}
	}
	sort.Slice(rep.Links, func(i, j int) bool { return rep.Links[i].Link < rep.Links[j].Link })
	sc := scores(cop, len(net.Links))
	loadings, fm := factorFit(sc, len(cop.Days))
	rep.Pairs = pairCorrelations(net, sc, loadings, len(cop.Days))
	rep.Rank, rep.Explained, rep.RankScores = fm.rank, fm.explained, fm.scores
	if fm.rank == 0 {
		out.Correlation = engine.Correlation{Model: linktime.Independent}
	} else {
		out.Correlation = engine.Correlation{Model: linktime.FittedFactor, Loadings: loadings}
	}
	out.Index()
	return &out, rep, nil
}

// Summary is the fit in one line, for an import's notes.
func (r *Report) Summary() string {
	fams := map[string]int{}
	for _, l := range r.Links {
		fams[l.Family]++
	}
	var parts []string
	for _, f := range FamilyNames() {
		if fams[f] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", fams[f], f))
		}
	}
	s := fmt.Sprintf("link times fitted to %s (%d rows, %d observations): %d links observed (%s), law %s; correlation of their normal scores: rank %d, carrying %.0f%% of their variance",
		r.File, r.Rows, r.Observations, len(r.Links), strings.Join(parts, ", "), linktime.FittedLaw, r.Rank, 100*r.Explained)
	if len(r.Unobserved) > 0 {
		s += fmt.Sprintf("; %d links never observed keep the default law (%s) and no correlation", len(r.Unobserved), linktime.MatchedLaw)
	}
	if r.Day != nil {
		s += "; " + r.Day.Summary()
	}
	return s
}

// sampleQuantiles are xs's quantiles at k/QuantileSteps (linear between
// order statistics).
func sampleQuantiles(xs []float64) []float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	out := make([]float64, QuantileSteps+1)
	for k := range out {
		pos := float64(k) / QuantileSteps * float64(len(s)-1)
		i := min(int(pos), len(s)-2)
		out[k] = s[i] + (pos-float64(i))*(s[i+1]-s[i])
	}
	return out
}

// maxPairs bounds Report.Pairs; a network with fewer observed pairs keeps
// them all.
const maxPairs = 3000

// pairCorrelations samples pairs of observed links (seeded) and gives each
// its observed correlation of normal scores (over the days both were seen,
// at least 10) and its fitted one.
func pairCorrelations(net *engine.Network, sc [][]Obs, loadings [][]float64, days int) []PairCorr {
	var seen []int
	for e, xs := range sc {
		if len(xs) > 0 {
			seen = append(seen, e)
		}
	}
	var pairs [][2]int
	if n := len(seen); n*(n-1)/2 <= maxPairs {
		for i := range seen {
			for j := i + 1; j < len(seen); j++ {
				pairs = append(pairs, [2]int{seen[i], seen[j]})
			}
		}
	} else {
		rng := rand.New(rand.NewPCG(uint64(n), 0x7061697273)) // "pairs"
		for len(pairs) < maxPairs {
			a, b := seen[rng.IntN(n)], seen[rng.IntN(n)]
			if a != b {
				pairs = append(pairs, [2]int{min(a, b), max(a, b)})
			}
		}
	}
	byDay := func(e int) []float64 {
		v := make([]float64, days)
		for d := range v {
			v[d] = math.NaN()
		}
		for _, o := range sc[e] {
			v[o.Day] = o.Time
		}
		return v
	}
	cache := map[int][]float64{}
	get := func(e int) []float64 {
		if v, ok := cache[e]; ok {
			return v
		}
		if len(cache) > 4*maxPairs {
			clear(cache)
		}
		cache[e] = byDay(e)
		return cache[e]
	}
	var out []PairCorr
	for _, p := range pairs {
		a, b := get(p[0]), get(p[1])
		var xs, ys []float64
		for d := range a {
			if !math.IsNaN(a[d]) && !math.IsNaN(b[d]) {
				xs, ys = append(xs, a[d]), append(ys, b[d])
			}
		}
		if len(xs) < 10 {
			continue
		}
		out = append(out, PairCorr{A: p[0], B: p[1], Distance: midpointDistance(net, p[0], p[1]), N: len(xs),
			Observed: stat.Correlation(xs, ys, nil), Fitted: floats.Dot(loadings[p[0]], loadings[p[1]])})
	}
	return out
}

// midpointDistance is the distance between two links' midpoints in the
// drawing frame, −1 when the network has no coordinates.
func midpointDistance(net *engine.Network, a, b int) float64 {
	if net.Coords == engine.CoordNone {
		return -1
	}
	mid := func(e int) (float64, float64) {
		l := net.Links[e]
		return (net.Nodes[l.From].X + net.Nodes[l.To].X) / 2, (net.Nodes[l.From].Y + net.Nodes[l.To].Y) / 2
	}
	ax, ay := mid(a)
	bx, by := mid(b)
	return math.Hypot(ax-bx, ay-by)
}

func constant(xs []Obs) bool {
	for _, x := range xs[1:] {
		if x.Time != xs[0].Time {
			return false
		}
	}
	return true
}

// setLink stores link e's fit in net and the report.
func setLink(net *engine.Network, e int, f fitted, xs []float64, shrink float64, rep *Report) error {
	lf, mean, variance, ok := linkFit(f, xs, shrink)
	if !ok {
		return engine.Errorf(engine.EINVALID, "link %s: the %s fit to its %d observations has no usable quantiles", linkName(net, e), f.family.Name, len(xs))
	}
	net.Links[e].Mean, net.Links[e].Var, net.Links[e].Fit = mean, variance, &lf
	rep.Links = append(rep.Links, LinkReport{Link: e, Name: linkName(net, e), N: lf.N, Family: lf.Family, KS: lf.KS, Shrink: shrink,
		Mean: mean, SD: math.Sqrt(variance), Quantiles: sampleQuantiles(xs)})
	return nil
}

// chooseFamily fits every family that has enough observations and keeps
// the one with the highest held-out log-likelihood over Folds folds (each
// observation held out once; the folds are the observations' positions
// mod Folds, so the choice is deterministic).
func chooseFamily(xs []float64) fitted {
	// the folds once for every family (preallocated: a city fits 40,000 links)
	train, test := make([][]float64, Folds), make([][]float64, Folds)
	for k := range Folds {
		nt := (len(xs) - k + Folds - 1) / Folds
		train[k], test[k] = make([]float64, 0, len(xs)-nt), make([]float64, 0, nt)
		for j, x := range xs {
			if j%Folds == k {
				test[k] = append(test[k], x)
			} else {
				train[k] = append(train[k], x)
			}
		}
	}
	best, bestLL := -1, math.Inf(-1)
	for i, fam := range Families {
		if len(xs)*(Folds-1)/Folds < fam.MinN {
			continue
		}
		ll := 0.0
		for k := range Folds {
			m, ok := fam.fit(train[k])
			if !ok {
				ll = math.Inf(-1)
				break
			}
			for _, x := range test[k] {
				ll += math.Max(m.LogProb(x), -1e3) // one far point does not decide alone
			}
		}
		if ll > bestLL {
			best, bestLL = i, ll
		}
	}
	// The fallback is the log-normal: every positive sample of two
	// distinct values fits it.
	fallback := familyByName("lognormal")
	fam := fallback
	if best >= 0 {
		fam = Families[best]
	}
	m, ok := fam.fit(xs)
	if ok && fam.warp != nil {
		// A law the engine cannot draw from falls back too: a gamma of
		// small shape (times of 1 and 1,000 minutes) has quantiles that
		// underflow to 0 at the grid's low end, and refused the upload.
		_, ok = fam.warp(m)
	}
	if !ok {
		fam = fallback
		m, _ = fam.fit(xs)
	}
	return fitted{fam, m}
}

// neighbourLogSD is the mean log-SD of the well-observed links that share
// an end node with link e, else of every well-observed link.
func neighbourLogSD(net *engine.Network, e int, times [][]float64, logSD []float64) (float64, bool) {
	l := net.Links[e]
	sum, n, allSum, allN := 0.0, 0, 0.0, 0
	for k, o := range net.Links {
		if len(times[k]) < ShrinkN {
			continue
		}
		allSum += logSD[k]
		allN++
		if o.From == l.From || o.From == l.To || o.To == l.From || o.To == l.To {
			sum += logSD[k]
			n++
		}
	}
	switch {
	case n > 0:
		return sum / float64(n), true
	case allN > 0:
		return allSum / float64(allN), true
	}
	return 0, false
}

// scores are the observations' normal scores Φ⁻¹(rank / (n + 1)) per link
// (van der Waerden's), the copula's latent values whatever the family; ties
// share their mean rank.
func scores(obs *Observations, links int) [][]Obs {
	out := make([][]Obs, links)
	for e, xs := range obs.Links {
		if len(xs) < 2 {
			continue
		}
		idx := make([]int, len(xs))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]].Time < xs[idx[b]].Time })
		out[e] = make([]Obs, len(xs))
		n := float64(len(xs))
		for i := 0; i < len(idx); {
			j := i
			for j+1 < len(idx) && xs[idx[j+1]].Time == xs[idx[i]].Time {
				j++
			}
			z := normQuantile((float64(i+j)/2 + 1) / (n + 1))
			for k := i; k <= j; k++ {
				out[e][idx[k]] = Obs{Day: xs[idx[k]].Day, Time: z}
			}
			i = j + 1
		}
	}
	return out
}

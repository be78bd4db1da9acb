// Fitting a law over the day: observations with their clock times.

package fit

import (
	"fmt"
	"math"
	"slices"

	"github.com/ontime-routing/ontime/engine"
)

// The day's fit. Each observed link's mean and variance at each knot are
// kernel (Nadaraya–Watson) estimates over the clock, with a circular
// Gaussian kernel of width h, shrunk toward the link's whole-day mean and
// variance with DayPriorN pseudo-observations: an hour with few
// traversals keeps the link's day-long law, as does every hour far from
// any observation (the law is extended flat there, never extrapolated).
// h is chosen among DayBandwidths by the Gaussian log-likelihood of held-
// out days (DayFolds folds by day, every link and traversal at once); the
// infinite width is the constant day, so data that carry no day (every
// traversal in one hour, or none that varies) fit the static law.
const (
	// DayStep is the minutes between a fitted day's knots.
	DayStep = 15.0
	// DayPriorN is the weight of the link's whole-day law at each knot.
	DayPriorN = 2.0
	// DayFolds is the folds of days the bandwidth is chosen on.
	DayFolds = 5
	dayBin   = 5.0 // minutes: traversals are summed into bins first
	dayBins  = int(engine.MinutesPerDay / dayBin)
)

// DayBandwidths are the kernel widths tried (σ, minutes); +Inf is the
// constant day.
var DayBandwidths = []float64{15, 30, 60, 120, math.Inf(1)}

// DayReport says what the fit over the day found.
type DayReport struct {
	// Bandwidth is the kernel's σ chosen, minutes (0: the constant day,
	// the static law fitted to every traversal).
	Bandwidth float64     `json:"bandwidth_minutes"`
	Scores    []DayScore  `json:"scores"`
	From      float64     `json:"from"` // the earliest and latest clock time observed
	To        float64     `json:"to"`
	Traversal int         `json:"traversals"`
	PerDay    float64     `json:"per_day"` // traversals of an observed link per day, on average
	Step      float64     `json:"step_minutes"`
	Peak      float64     `json:"peak"` // the observed links' mean factor at their average busiest knot
	PeakAt    float64     `json:"peak_at"`
	Within    float64     `json:"within_day"` // correlation of one link's normal scores between two traversals of a day
	WithinN   int         `json:"within_day_pairs"`
	FIFO      []FIFOBreak `json:"fifo,omitempty"`
}

// DayScore is one bandwidth's held-out log-likelihood per traversal.
type DayScore struct {
	Bandwidth float64 `json:"bandwidth_minutes"` // 0: the constant day
	LogLik    float64 `json:"loglik"`
}

// FIFOBreak is a link and step of the fitted day where entering later
// leaves earlier in expectation, with its name.
type FIFOBreak struct {
	engine.FIFOBreak
	Name string `json:"name"`
	From string `json:"from"`
	To   string `json:"to"`
}

// dayMoments are a link's traversals summed by bin: count, sum, sum of
// squares, per fold of days.
type dayMoments struct{ n, s, ss [DayFolds][dayBins]float64 }

func momentsOf(xs []Obs) *dayMoments {
	m := new(dayMoments)
	for _, x := range xs {
		f, b := x.Day%DayFolds, min(int(x.Clock/dayBin), dayBins-1)
		m.n[f][b]++
		m.s[f][b] += x.Time
		m.ss[f][b] += x.Time * x.Time
	}
	return m
}

// dayKernel is, at each knot, each bin's kernel weight and signed
// distance (bin − knot, in units of h, the shorter way round the day).
type dayKernel struct{ w, d [][]float64 }

// kernel is the kernel of width h.
func kernel(h float64) *dayKernel {
	k := int(engine.MinutesPerDay / DayStep)
	kw := &dayKernel{w: make([][]float64, k), d: make([][]float64, k)}
	for j := range k {
		kw.w[j], kw.d[j] = make([]float64, dayBins), make([]float64, dayBins)
		for b := range dayBins {
			d := (float64(b)+0.5)*dayBin - float64(j)*DayStep
			d = math.Mod(d+1.5*engine.MinutesPerDay, engine.MinutesPerDay) - engine.MinutesPerDay/2
			kw.w[j][b] = math.Exp(-d * d / (2 * h * h))
			kw.d[j][b] = d / h
		}
	}
	return kw
}

// localQuadratic is the value at a knot of the kernel-weighted quadratic
// through the bins (sum of weights s0, of weight·d^p in sp, of weight·y·d^p
// in tp): a peak keeps its height, where a kernel mean (t0/s0) flattened
// the recovery test's 08:00 peak (a route fitted 0.79 on time where the
// truth is 0.51). Where the bins do not pin a quadratic (data on one side
// only), the kernel mean.
func localQuadratic(s [5]float64, t [3]float64) float64 {
	a := [3][4]float64{{s[0], s[1], s[2], t[0]}, {s[1], s[2], s[3], t[1]}, {s[2], s[3], s[4], t[2]}}
	for c := range 3 {
		p := c
		for r := c + 1; r < 3; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		a[c], a[p] = a[p], a[c]
		if math.Abs(a[c][c]) < 1e-9*s[0] {
			return t[0] / s[0]
		}
		for r := c + 1; r < 3; r++ {
			f := a[r][c] / a[c][c]
			for k := c; k < 4; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	var x [3]float64
	for r := 2; r >= 0; r-- {
		v := a[r][3]
		for k := r + 1; k < 3; k++ {
			v -= a[r][k] * x[k]
		}
		x[r] = v / a[r][r]
	}
	return x[0]
}

// curves are a link's mean and variance at each knot, from the bins of
// every fold but skip (−1: all), with kernel kw (nil: the constant day).
func (m *dayMoments) curves(kw *dayKernel, skip int) (mean, variance []float64) {
	var n, s, ss [dayBins]float64
	var N, S, SS float64
	for f := range DayFolds {
		if f == skip {
			continue
		}
		for b := range dayBins {
			n[b] += m.n[f][b]
			s[b] += m.s[f][b]
			ss[b] += m.ss[f][b]
		}
	}
	for b := range dayBins {
		N, S, SS = N+n[b], S+s[b], SS+ss[b]
	}
	k := int(engine.MinutesPerDay / DayStep)
	mean, variance = make([]float64, k), make([]float64, k)
	if N == 0 {
		return mean, variance
	}
	dayMean, daySq := S/N, SS/N
	for j := range k {
		mu, sq, W := dayMean, daySq, 0.0
		if kw != nil {
			var sp [5]float64
			var ty, tyy [3]float64
			for b, wb := range kw.w[j] {
				if n[b] == 0 || wb < 1e-12 {
					continue
				}
				d := kw.d[j][b]
				p := 1.0
				for q := range 5 {
					sp[q] += wb * n[b] * p
					if q < 3 {
						ty[q] += wb * s[b] * p
						tyy[q] += wb * ss[b] * p
					}
					p *= d
				}
			}
			if W = sp[0]; W > 0 {
				mu, sq = localQuadratic(sp, ty), localQuadratic(sp, tyy)
			}
		}
		mu = (W*mu + DayPriorN*dayMean) / (W + DayPriorN)
		sq = (W*sq + DayPriorN*daySq) / (W + DayPriorN)
		mean[j], variance[j] = mu, math.Max(sq-mu*mu, 1e-4*mu*mu)
	}
	return mean, variance
}

// atKnots reads a knot curve at clock t, linearly between knots.
func atKnots(c []float64, t float64) float64 {
	x := t / DayStep
	i := int(x)
	f := x - float64(i)
	i %= len(c)
	return c[i] + f*(c[(i+1)%len(c)]-c[i])
}

// fitDay fits the law over the day to traversals with clock times.
func fitDay(net *engine.Network, obs *Observations) (*engine.Network, *Report, error) {
	moments := make([]*dayMoments, len(net.Links))
	day := &DayReport{Step: DayStep, From: math.Inf(1), To: math.Inf(-1)}
	observed := 0
	for e, xs := range obs.Links {
		if len(xs) < 2 {
			continue
		}
		moments[e] = momentsOf(xs)
		observed++
		for _, x := range xs {
			day.From, day.To = math.Min(day.From, x.Clock), math.Max(day.To, x.Clock)
		}
		day.Traversal += len(xs)
	}
	if observed > 0 {
		day.PerDay = float64(day.Traversal) / float64(observed) / float64(len(obs.Days))
	}
	// The bandwidth: held-out days' Gaussian log-likelihood per traversal.
	best, bestLL := math.Inf(1), math.Inf(-1)
	for _, h := range DayBandwidths {
		var w *dayKernel
		if !math.IsInf(h, 1) {
			w = kernel(h)
		}
		ll, n := 0.0, 0
		for e, m := range moments {
			if m == nil {
				continue
			}
			for f := range DayFolds {
				mean, variance := m.curves(w, f)
				for _, x := range obs.Links[e] {
					if x.Day%DayFolds != f {
						continue
					}
					mu, v := atKnots(mean, x.Clock), atKnots(variance, x.Clock)
					if v <= 0 {
						continue // a fold without this link's training days
					}
					ll += math.Max(-0.5*math.Log(2*math.Pi*v)-(x.Time-mu)*(x.Time-mu)/(2*v), -1e3)
					n++
				}
			}
		}
		if n > 0 {
			ll /= float64(n)
		}
		day.Scores = append(day.Scores, DayScore{Bandwidth: finiteWidth(h), LogLik: ll})
		if ll > bestLL {
			best, bestLL = h, ll
		}
	}
	day.Bandwidth = finiteWidth(best)
	if math.IsInf(best, 1) {
		// No day in the data: the static law of every traversal, one
		// normal score per day for the copula.
		out, rep, err := fitStatic(net, obs, daily(obs, len(net.Links)))
		if err == nil {
			rep.Day = day
		}
		return out, rep, err
	}
	clk, std := dayClock(net, obs, moments, kernel(best))
	out, rep, err := fitStatic(net, std, daily(std, len(net.Links)))
	if err != nil {
		return nil, nil, err
	}
	clk.Source = fmt.Sprintf("fitted from %s over the day: kernel σ %g min by held-out likelihood", obs.File, best)
	out.Clock = clk
	means := make([]float64, len(out.Links))
	for e, l := range out.Links {
		means[e] = l.Mean
	}
	for _, b := range clk.FIFOBreaks(means) {
		day.FIFO = append(day.FIFO, FIFOBreak{FIFOBreak: b, Name: linkName(net, b.Link), From: engine.FormatClock(b.From), To: engine.FormatClock(b.To)})
	}
	pooled := &clk.Profiles[len(clk.Profiles)-1]
	day.PeakAt, day.Peak = pooled.Peak(DayStep)
	day.Within, day.WithinN = withinDay(std)
	rep.Day = day
	return out, rep, nil
}

func finiteWidth(h float64) float64 {
	if math.IsInf(h, 1) {
		return 0
	}
	return h
}

// dayClock is the fitted day: each observed link's profile (its mean and
// spread factors against its day's average, so that both average 1 over
// the knots: the link's static law is its average hour's) and, last, the
// observed links' average profile, which the links never observed
// follow. std are the observations carried to the average hour: x = μ +
// (y/m(t) − μ)/s(t), the inverse of the clock's law. (The quietest knot
// as the reference was biased low: the least of 96 noisy estimates; the
// recovery test read 3% short at the peak.)
func dayClock(net *engine.Network, obs *Observations, moments []*dayMoments, w *dayKernel) (*engine.Clock, *Observations) {
	k := int(engine.MinutesPerDay / DayStep)
	clk := &engine.Clock{Step: DayStep, Links: make([]int, len(net.Links))}
	avg := engine.DayProfile{Name: "the observed links' average day", Mean: make([]float64, k), Spread: make([]float64, k)}
	std := &Observations{File: obs.File, Days: obs.Days, Links: make([][]Obs, len(net.Links)), Rows: obs.Rows, Timed: true}
	type ref struct{ mu, sd float64 }
	refs := make([]ref, len(net.Links))
	n := 0
	for e, m := range moments {
		if m == nil {
			clk.Links[e] = -1
			std.Links[e] = obs.Links[e]
			continue
		}
		mean, variance := m.curves(w, -1)
		mu, sd := 0.0, 0.0
		for j := range k {
			mu += mean[j] / float64(k)
		}
		p := engine.DayProfile{Name: linkName(net, e), Mean: make([]float64, k), Spread: make([]float64, k)}
		for j := range k {
			p.Mean[j] = mean[j] / mu
			p.Spread[j] = math.Sqrt(variance[j]) / p.Mean[j]
			sd += p.Spread[j] / float64(k)
		}
		for j := range k {
			p.Spread[j] /= sd
			avg.Mean[j] += p.Mean[j]
			avg.Spread[j] += p.Spread[j]
		}
		clk.Links[e] = len(clk.Profiles)
		clk.Profiles = append(clk.Profiles, p)
		refs[e] = ref{mu, sd}
		n++
	}
	for j := range k {
		avg.Mean[j] /= float64(n)
		avg.Spread[j] /= float64(n)
	}
	clk.Profiles = append(clk.Profiles, avg)
	for e := range clk.Links {
		if clk.Links[e] < 0 {
			clk.Links[e] = len(clk.Profiles) - 1
		}
	}
	clk.Depart, _ = avg.Peak(DayStep)
	for e, m := range moments {
		if m == nil {
			continue
		}
		mu := refs[e].mu
		xs := make([]Obs, len(obs.Links[e]))
		for i, o := range obs.Links[e] {
			f, s := clk.At(e, o.Clock)
			u := o.Time / f
			x := mu + (u-mu)/max(s, 1e-9)
			xs[i] = o
			xs[i].Time = max(x, min(u, mu/10), MinObservedMinutes)
		}
		std.Links[e] = xs
	}
	return clk, std
}

// daily is obs with one observation per link and day (the mean of the
// day's traversals): the copula's days.
func daily(obs *Observations, links int) *Observations {
	out := &Observations{File: obs.File, Days: obs.Days, Links: make([][]Obs, links)}
	for e, xs := range obs.Links {
		sum := map[int][2]float64{}
		var order []int
		for _, x := range xs {
			v, ok := sum[x.Day]
			if !ok {
				order = append(order, x.Day)
			}
			sum[x.Day] = [2]float64{v[0] + x.Time, v[1] + 1}
		}
		slices.Sort(order)
		for _, d := range order {
			out.Links[e] = append(out.Links[e], Obs{Day: d, Time: sum[d][0] / sum[d][1]})
			out.Rows++
		}
	}
	return out
}

// withinDay is the correlation of one link's normal scores between two
// traversals of the same day (the first two of each day, every link
// pooled): 1 where a day's draw holds all day, as the fitted law assumes.
func withinDay(std *Observations) (float64, int) {
	sc := scores(std, len(std.Links))
	var a, b []float64
	for _, xs := range sc {
		first := map[int]int{}
		for i, x := range xs {
			j, ok := first[x.Day]
			switch {
			case !ok:
				first[x.Day] = i
			case j >= 0:
				a, b = append(a, xs[j].Time), append(b, x.Time)
				first[x.Day] = -1
			}
		}
	}
	if len(a) < 3 {
		return 0, len(a) // too few days with two traversals to say
	}
	return pearson(a, b), len(a)
}

func pearson(a, b []float64) float64 {
	ma, sa := meanSD(a)
	mb, sb := meanSD(b)
	c := 0.0
	for i := range a {
		c += (a[i] - ma) * (b[i] - mb)
	}
	return c / float64(len(a)-1) / (sa * sb)
}

// Summary is the day's fit in words, for an import's notes.
func (d *DayReport) Summary() string {
	seen := fmt.Sprintf("%d traversals with their clock times (%s to %s, %.3g a day per observed link)", d.Traversal, engine.FormatClock(d.From), engine.FormatClock(d.To), d.PerDay)
	if d.Bandwidth == 0 {
		return seen + ": held-out days fit best with the same law at every hour, so the law is static"
	}
	s := fmt.Sprintf("%s: a law over the day, knots every %g min, kernel σ %g min by held-out likelihood; mean ×%.3g at the busiest knot (%s); hours outside the data keep each link's day-long law", seen, d.Step, d.Bandwidth, d.Peak, engine.FormatClock(d.PeakAt))
	if d.WithinN > 0 {
		s += fmt.Sprintf("; one draw a day holds all day (a link's normal scores correlate %.2f between two traversals of a day, %d pairs)", d.Within, d.WithinN)
	}
	if len(d.FIFO) == 0 {
		return s + "; FIFO in expectation on every link"
	}
	b := d.FIFO[0]
	return s + fmt.Sprintf("; FIFO broken in expectation on %d link-steps (first: %s %s–%s, %.2f min earlier)", len(d.FIFO), b.Name, b.From, b.To, b.Gain)
}

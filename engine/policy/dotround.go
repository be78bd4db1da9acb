package policy

import (
	"math"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// DOTRounding is how DOT bins a link's law on its grid of step Δ. Every
// rule keeps each time at least one step, so the recursion's single sweep
// in increasing budget stays exact; the rules differ in where a time
// between two steps goes.
type DOTRounding struct {
	Name string
	Doc  string
	// normal bins max(Y, floor), Y ~ N(mu, sd²); warped bins a warped
	// link's law at its latent N(mu, sd²).
	normal func(mu, sd, floor, delta float64) linkPMF
	warped func(model *linktime.Gaussian, e int, mu, sd, delta float64) linkPMF
	// scoreNormal scores a normal link without building its PMF when the
	// rule has such a path (cdot calls it for every link at every step).
	scoreNormal func(d *DOT, dest, j int, mu, sd, floor, remaining float64, left int) float64
}

// DOTRoundings are the rules, the paper's first.
//
// Rounding up is conservative, but its excess adds up along a path: half a
// step a link on average, more on a link shorter than a step. On the
// paper's networks it is 0.2–0.3% of a pair's LET time (Sioux Falls, 3–5
// links) and 1.0–1.4% (Anaheim, 11–26); on Delaware's OpenStreetMap streets
// (103–164 links of 0.01 to a few minutes) it was 7.5–9.7%. DOT's values
// there sat far below the truth (0.12 for a link then the LET path, which
// is on time half the time) and favoured paths of fewer, longer links:
// with independent links, where DOT is optimal up to its grid, it fell 13
// points below LET on a pair (0.368 against 0.496 at budget 1.00,
// validation pools). Splitting each time between its two neighbouring
// steps keeps every link's mean; what is left is a link shorter than a step
// taking one: 2.6–3.0% of those paths' time at that step (dot 0.395), 0.5–
// 0.8% at half of it (dot 0.509, in 56 s a destination; rounding up needed
// a quarter of the step for 0.507, in 198 s).
var DOTRoundings = []DOTRounding{
	{Name: "up", Doc: "the paper's: every time rounded up to the next step (conservative; the excess grows with a path's links)",
		normal: discretize, warped: discretizeWarped, scoreNormal: (*DOT).scoreNormal},
	{Name: "mean", Doc: "each time split between the steps either side of it in proportion to its distance from each, so every link keeps its mean (a time under one step still takes one)",
		normal: discretizeMean, warped: discretizeWarpedMean},
}

// DOTExcessLimit is the largest share of a pair's LET time that DOT's grid
// may add along its LET path (each link's binned mean less its mean) before
// the grid changes. Fixed from the paper's networks, which round up within
// it at their step (so their tables, decisions and published rates are the
// paper's rule's), not from any benchmark result.
const DOTExcessLimit = 0.02

// dotMaxHalvings bounds the step's halvings: each doubles the bins and
// the binned laws' length, about four times the solve.
const dotMaxHalvings = 3

// DOTGrid is DOT's step, its rounding rule, and the largest share of a
// pair's LET time the grid adds along its LET path.
type DOTGrid struct {
	Delta    float64
	Rounding string
	Excess   float64
}

// DOTRoundingHelp lists the rules for a flag's help.
func DOTRoundingHelp() string {
	var parts []string
	for _, r := range DOTRoundings {
		parts = append(parts, r.Name+" ("+r.Doc+")")
	}
	return strings.Join(parts, "; ")
}

// CheckDOTRounding is nil for "" (chosen) or a rule's name.
func CheckDOTRounding(name string) error {
	if name == "" || dotRounding(name) != nil {
		return nil
	}
	var names []string
	for _, r := range DOTRoundings {
		names = append(names, r.Name)
	}
	return engine.Errorf(engine.EINVALID, "DOT rounding %q: want one of %s", name, strings.Join(names, ", "))
}

func dotRounding(name string) *DOTRounding {
	for i := range DOTRoundings {
		if DOTRoundings[i].Name == name {
			return &DOTRoundings[i]
		}
	}
	return nil
}

// DOTGridFor is DOT's grid for the pairs ods starting at step base: rounding
// up at base when it adds at most DOTExcessLimit along every pair's LET
// path; else splitting times (mean), at base halved until that holds (at
// most dotMaxHalvings times; never when fixed: the step was asked for).
// rounding, when not "", fixes the rule.
func DOTGridFor(net *engine.Network, model *linktime.Gaussian, base float64, fixed bool, rounding string, ods []engine.OD) DOTGrid {
	paths := letPaths(net, ods)
	if r := dotRounding(rounding); r != nil {
		return DOTGrid{Delta: base, Rounding: r.Name, Excess: gridExcess(model, paths, r, base)}
	}
	up, mean := dotRounding("up"), dotRounding("mean")
	if ex := gridExcess(model, paths, up, base); ex <= DOTExcessLimit {
		return DOTGrid{Delta: base, Rounding: up.Name, Excess: ex}
	}
	delta := base
	for k := 0; ; k++ {
		ex := gridExcess(model, paths, mean, delta)
		if ex <= DOTExcessLimit || fixed || k == dotMaxHalvings {
			return DOTGrid{Delta: delta, Rounding: mean.Name, Excess: ex}
		}
		delta /= 2
	}
}

// letPaths are the pairs' LET paths (empty for a pair that cannot be
// driven, or whose ends are one node).
func letPaths(net *engine.Network, ods []engine.OD) [][]int {
	trees := map[int]*engine.LETTree{}
	var paths [][]int
	for _, od := range ods {
		t, ok := trees[od.Destination]
		if !ok {
			t = net.LET(od.Destination)
			trees[od.Destination] = t
		}
		paths = append(paths, t.Path(od.Origin, net))
	}
	return paths
}

// gridExcess is the largest share of a path's mean time that binning its
// links by r at step delta adds.
func gridExcess(model *linktime.Gaussian, paths [][]int, r *DOTRounding, delta float64) float64 {
	worst := 0.0
	for _, p := range paths {
		excess, total := 0.0, 0.0
		for _, e := range p {
			mean := model.LinkMoments(e)[1]
			excess += r.bin(model, e, model.Latent[e], model.SD[e], delta).mean(delta) - mean
			total += mean
		}
		if total > 0 {
			worst = max(worst, excess/total)
		}
	}
	return worst
}

// bin bins link e's law at the latent N(mu, sd²) (its own, or given what
// was seen): warped when the model warps it, else floored at its floor.
func (r *DOTRounding) bin(model *linktime.Gaussian, e int, mu, sd, delta float64) linkPMF {
	if model.Warped(e) {
		return r.warped(model, e, mu, sd, delta)
	}
	return r.normal(mu, sd, model.Floors[e], delta)
}

// mean is the binned law's mean time.
func (pm linkPMF) mean(delta float64) float64 {
	s := 0.0
	for i, p := range pm.p {
		s += p * float64(pm.lo+i) * delta
	}
	return s
}

// discretizeMean bins max(Y, floor), Y ~ N(mu, sd²), splitting each time x
// in ((k−1)Δ, kΔ] between bins k−1 and k, weights kΔ−x and x−(k−1)Δ (over
// Δ): bin k holds E[hat_k(X)], hat_k the triangle of half-width Δ at kΔ,
// which is the second difference of G(x) = ∫ P(X ≤ s) ds at kΔ, over Δ.
// The law's mass beyond mu ± 6 sd is dropped (as rounding up drops it);
// bins under one step join bin one.
func discretizeMean(mu, sd, floor, delta float64) linkPMF {
	if sd == 0 {
		return splitTime(max(mu, floor), delta)
	}
	gy := func(x float64) float64 { // ∫_{−∞}^x Φ((s−mu)/sd) ds
		z := (x - mu) / sd
		return (x-mu)*phi(z) + sd*math.Exp(-z*z/2)/math.Sqrt(2*math.Pi)
	}
	gFloor := gy(floor)
	g := func(x float64) float64 {
		if x <= floor {
			return 0
		}
		return gy(x) - gFloor
	}
	lo := int(math.Floor(gridPos(max(floor, mu-6*sd), delta)))
	hi := int(math.Ceil(gridPos(mu+6*sd, delta))) + 1
	gs := make([]float64, hi-lo+3) // gs[i] is G at (lo−1+i)Δ, each computed once
	for i := range gs {
		gs[i] = g(float64(lo-1+i) * delta)
	}
	return fromIntegratedCDF(onGrid(gs, lo, delta), lo, hi, delta)
}

// discretizeWarpedMean is discretizeMean for a warped link's law, its
// integrated CDF summed by Simpson's rule a step at a time.
func discretizeWarpedMean(model *linktime.Gaussian, e int, mu, sd, delta float64) linkPMF {
	tlo, thi := model.TimeRange(e, mu, sd)
	if sd == 0 {
		return splitTime(tlo, delta)
	}
	lo := int(math.Floor(gridPos(tlo, delta))) - 1
	hi := int(math.Ceil(gridPos(thi, delta))) + 1
	cdf := func(x float64) float64 { return model.TimeCDF(e, mu, sd, x) }
	gs := make([]float64, hi-lo+3) // gs[i] is G at (lo−1+i)Δ: 0 at (lo−1)Δ, a step below the law's range
	for i := 1; i < len(gs); i++ {
		a := float64(lo-2+i) * delta
		b := a + delta
		gs[i] = gs[i-1] + delta/6*(cdf(a)+4*cdf((a+b)/2)+cdf(b))
	}
	return fromIntegratedCDF(onGrid(gs, lo, delta), lo, hi, delta)
}

// onGrid reads G off its values at the grid points, gs[i] at (lo−1+i)Δ
// (fromIntegratedCDF asks at grid points only: each value is computed
// once, where G itself would be three times).
func onGrid(gs []float64, lo int, delta float64) func(x float64) float64 {
	return func(x float64) float64 {
		i := int(math.Round(x/delta)) - (lo - 1)
		return gs[max(0, min(i, len(gs)-1))]
	}
}

// fromIntegratedCDF bins k in [lo, hi] from G's second differences,
// folding the bins under one into bin one.
func fromIntegratedCDF(g func(x float64) float64, lo, hi int, delta float64) linkPMF {
	first := max(1, lo)
	p := make([]float64, hi-first+1)
	for k := lo; k <= hi; k++ {
		x := float64(k) * delta
		w := (g(x+delta) - 2*g(x) + g(x-delta)) / delta
		if w < 0 {
			w = 0 // rounding in a difference of nearly equal values
		}
		p[max(k, first)-first] += w
	}
	for len(p) > 1 && p[len(p)-1] == 0 {
		p = p[:len(p)-1]
	}
	return linkPMF{lo: first, p: p}
}

// splitTime bins a fixed time t: between the steps either side, at least
// one step.
func splitTime(t, delta float64) linkPMF {
	k := math.Floor(gridPos(t, delta) + 1e-9)
	frac := gridPos(t, delta) - k
	if frac < 1e-9 {
		frac = 0
	}
	if k < 1 {
		return linkPMF{lo: 1, p: []float64{1}}
	}
	if frac == 0 {
		return linkPMF{lo: int(k), p: []float64{1}}
	}
	return linkPMF{lo: int(k), p: []float64{1 - frac, frac}}
}

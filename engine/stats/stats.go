// Package stats holds the paired comparison used by every report: the
// two-sided paired Student t test with its confidence interval, and Holm's
// step-down correction for a family of tests; and the Wilson interval of an
// on-time rate.
package stats

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Paired is a paired t test of the mean difference a − b.
type Paired struct {
	N       int
	Mean    float64 // mean of a − b
	SE      float64 // standard error of the mean difference
	T       float64
	DF      float64
	P       float64 // two-sided
	Low, Hi float64 // confidence interval for the mean difference
	Level   float64 // e.g. 0.95
}

// PairedT tests the mean of a[i] − b[i] against zero with a two-sided
// Student t on n − 1 degrees of freedom (gonum has the distribution but no
// test). With no spread in the differences the test degenerates: p is 1 for
// a zero mean and 0 otherwise, and the interval is the point.
func PairedT(a, b []float64, level float64) Paired {
	n := len(a)
	d := make([]float64, n)
	for i := range a {
		d[i] = a[i] - b[i]
	}
	r := Paired{N: n, Level: level, DF: float64(n - 1)}
	if n == 0 {
		r.Mean, r.P, r.Low, r.Hi, r.T = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return r
	}
	mean, variance := stat.MeanVariance(d, nil)
	r.Mean = mean
	if n < 2 {
		r.P, r.Low, r.Hi, r.T, r.SE = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return r
	}
	r.SE = math.Sqrt(variance / float64(n))
	if r.SE == 0 {
		r.Low, r.Hi = mean, mean
		switch {
		case mean == 0:
			r.T, r.P = 0, 1
		default:
			r.T, r.P = math.Copysign(math.Inf(1), mean), 0
		}
		return r
	}
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}
	r.T = mean / r.SE
	r.P = math.Min(1, 2*dist.Survival(math.Abs(r.T)))
	q := dist.Quantile(1 - (1-level)/2)
	r.Low, r.Hi = mean-q*r.SE, mean+q*r.SE
	return r
}

// Holm adjusts a family of p-values by Holm's step-down method: sorted
// ascending, the i-th (from 0) is multiplied by m − i, capped at 1, and made
// non-decreasing. The result is in the input order.
func Holm(p []float64) []float64 {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	adj := make([]float64, m)
	run := 0.0
	for rank, i := range idx {
		v := math.Min(1, float64(m-rank)*p[i])
		run = math.Max(run, v)
		adj[i] = run
	}
	return adj
}

// Wilson is the 95% Wilson score interval of k successes in n trials.
func Wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959963984540054
	p := float64(k) / float64(n)
	nf := float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return math.Max(0, mid-half), math.Min(1, mid+half)
}

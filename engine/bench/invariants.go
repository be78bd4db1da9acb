package bench

import (
	"fmt"
	"math"
	"slices"
)

// Invariants a report can check on its own numbers (the whole battery is
// `ontime verify`): when one breaks, the report says so beside the table,
// so that a wrong number is never read as a finding.
//
//   - every rate is in [0, 1];
//   - the clairvoyant (a bound) is at least every method on every pool;
//   - with independent links, cdot equals dot on every pool (the next
//     link's conditional law is its marginal);
//   - at budget = LET time, following the LET path is on time with
//     probability ½ up to the law's skew (0.02) and 4 standard errors.
func (rep *Report) Violations() []string {
	var out []string
	size := poolSize(rep.Provenance)
	byKey := map[[3]string][]float64{}
	for _, s := range rep.PerOD {
		byKey[[3]string{s.Method, s.OD, fmt.Sprint(s.Budget)}] = s.PoolMeans
	}
	for _, s := range rep.PerOD {
		for k, v := range s.PoolMeans {
			if !(v >= 0 && v <= 1) {
				out = append(out, fmt.Sprintf("%s on %s at %s: rate %v on pool %d is outside [0, 1]", s.Method, s.OD, fmtBudget(s.Budget), v, k))
			}
		}
		if c, ok := byKey[[3]string{"clairvoyant", s.OD, fmt.Sprint(s.Budget)}]; ok && !rep.IsBound(s.Method) {
			for k, v := range s.PoolMeans {
				if v > c[k]+1e-12 {
					out = append(out, fmt.Sprintf("%s on %s at %s: %.4f on pool %d is above the clairvoyant's %.4f", s.Method, s.OD, fmtBudget(s.Budget), v, k, c[k]))
				}
			}
		}
		if s.Method == "cdot" && rep.Provenance.Correlation.Model == "independent" {
			if d, ok := byKey[[3]string{"dot", s.OD, fmt.Sprint(s.Budget)}]; ok && !slices.Equal(d, s.PoolMeans) {
				out = append(out, fmt.Sprintf("cdot on %s at %s differs from dot with independent links (%v against %v)", s.OD, fmtBudget(s.Budget), s.PoolMeans, d))
			}
		}
		if s.Method == "let" && s.Budget == 1 && size > 0 && len(s.PoolMeans) > 0 {
			tol := 0.02 + 4*0.5/math.Sqrt(float64(size*len(s.PoolMeans)))
			if math.Abs(s.Mean-0.5) > tol {
				out = append(out, fmt.Sprintf("let on %s at budget = LET time: %.4f, not ½ within %.3f (are the stated means the sampled means?)", s.OD, s.Mean, tol))
			}
		}
	}
	return out
}

package web

import (
	"fmt"
	"math"

	"github.com/ontime-routing/ontime/engine/bench"
)

func summary(rep *bench.Report, m string, b float64) float64 {
	for _, s := range rep.Summary {
		if s.Method == m && s.Budget == b {
			return s.Mean
		}
	}
	return math.NaN()
}

func perOD(rep *bench.Report, m, od string, b float64) float64 {
	for _, s := range rep.PerOD {
		if s.Method == m && s.OD == od && s.Budget == b {
			return s.Mean
		}
	}
	return math.NaN()
}

// isBest marks the highest rate at a budget among methods that are not bounds.
func isBest(rep *bench.Report, m string, b float64) bool {
	if rep.IsBound(m) {
		return false
	}
	v := summary(rep, m, b)
	for _, o := range rep.Methods {
		if !rep.IsBound(o) && summary(rep, o, b) > v+1e-12 {
			return false
		}
	}
	return true
}

func signed(x float64) string { return fmt.Sprintf("%+.4f", x) }

func pval(p float64) string {
	if p < 1e-4 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.4f", p)
}

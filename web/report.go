package web

import (
	"fmt"
	"math"

	"github.com/ontime-routing/ontime/engine/bench"
)

func perOD(rep *bench.Report, m, od string, b float64) float64 {
	for _, s := range rep.PerOD {
		if s.Method == m && s.OD == od && s.Budget == b {
			return s.Mean
		}
	}
	return math.NaN()
}

func markName(m bench.Mark) string {
	switch m {
	case bench.Best:
		return "best"
	case bench.Tied:
		return "tied"
	}
	return ""
}

func signed(x float64) string { return fmt.Sprintf("%+.4f", x) }

func pval(p float64) string {
	if p < 1e-4 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.4f", p)
}

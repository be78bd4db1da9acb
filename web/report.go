package web

import (
	"fmt"

	"github.com/ontime-routing/ontime/engine/bench"
)

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

package web

import (
	"fmt"

	"github.com/ontime-routing/ontime/engine/lab"
)

func markName(m lab.Mark) string {
	switch m {
	case lab.MarkBest:
		return "best"
	case lab.MarkTied:
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

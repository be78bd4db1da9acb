package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/internal/csvsafe"
)

// markName is a mark as exports write it.
var markName = map[Mark]string{Plain: "", Best: "best", Tied: "tied"}

// WriteSummaryCSV writes what the tables show: per method, OD pair ("all"
// for the mean over pairs) and budget, the mean over pools, its 95%
// t-interval and its mark (best: separated by the paired tests; tied).
// Rates are rounded to 6 decimals: a pool of 2,000 resolves 0.0005.
func (rep *Report) WriteSummaryCSV(w io.Writer) error {
	cw := csvsafe.NewWriter(w)
	_ = cw.Write([]string{"network", "method", "od", "budget", "mean", "ci_low", "ci_high", "mark", "pools"})
	put := func(od string, budget float64, cells []Cell) {
		for i, c := range cells {
			_ = cw.Write([]string{rep.Network, rep.Methods[i], od, fmtBudget(budget), fmtRate(c.Mean), fmtRate(c.Low), fmtRate(c.High), markName[c.Mark], strconv.Itoa(len(rep.Provenance.Pools))})
		}
	}
	for _, b := range rep.Budgets {
		put("all", b, rep.SummaryRow(b))
	}
	for _, od := range rep.ODs {
		for _, b := range rep.Budgets {
			put(od.OD, b, rep.ODRow(od.OD, b))
		}
	}
	cw.Flush()
	return cw.Error()
}

// fmtRate writes a rate without float noise (0.35230000000000006 → 0.3523).
func fmtRate(x float64) string {
	if x != x {
		return ""
	}
	s := strings.TrimRight(strconv.FormatFloat(x, 'f', 6, 64), "0")
	if s == "-" || strings.HasSuffix(s, ".") {
		s += "0"
	}
	return s
}

// WriteLaTeX writes the summary table as a booktabs tabular: mean ± half
// the interval, \textbf where separated, ≈ ($\approx$) where tied.
func (rep *Report) WriteLaTeX(w io.Writer) error {
	var b strings.Builder
	esc := strings.NewReplacer("_", `\_`, "&", `\&`, "%", `\%`, "#", `\#`)
	fmt.Fprintf(&b, "%% ontime bench: %s, on-time rate, mean over %d OD pairs and %d pools (± half the 95%% t-interval)\n", rep.Network, len(rep.ODs), len(rep.Provenance.Pools))
	fmt.Fprintf(&b, "\\begin{tabular}{l%s}\n\\toprule\nbudget", strings.Repeat("r", len(rep.Methods)))
	for _, m := range rep.Methods {
		fmt.Fprintf(&b, " & %s", esc.Replace(m))
	}
	b.WriteString(` \\` + "\n\\midrule\n")
	for _, bud := range rep.Budgets {
		b.WriteString(fmtBudget(bud))
		for _, c := range rep.SummaryRow(bud) {
			cell := fmt.Sprintf("%.4f", c.Mean)
			if c.High == c.High {
				cell += fmt.Sprintf(" $\\pm$ %.4f", (c.High-c.Low)/2)
			}
			switch c.Mark {
			case Best:
				cell = `\textbf{` + cell + `}`
			case Tied:
				cell += ` $\approx$`
			}
			b.WriteString(" & " + cell)
		}
		b.WriteString(` \\` + "\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

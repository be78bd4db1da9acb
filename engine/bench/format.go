package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/internal/csvsafe"
)

// Write writes the report as "md", "json", "csv" (every pool's rate),
// "summary.csv" (the tables' means, intervals and marks) or "tex" (the
// summary table for a paper).
func (rep *Report) Write(w io.Writer, format string) error {
	switch format {
	case "md", "":
		return rep.WriteMarkdown(w)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	case "csv":
		return rep.WriteCSV(w)
	case "summary.csv":
		return rep.WriteSummaryCSV(w)
	case "tex":
		return rep.WriteLaTeX(w)
	}
	return engine.Errorf(engine.EINVALID, "unknown format %q (md, json, csv, summary.csv or tex)", format)
}

// WriteMarkdown writes the tables in the paper's shape: on-time rate by
// budget (rows) and method (columns) with the best policy in bold, the same
// per OD pair, and the paired comparisons.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	pv := rep.Provenance
	kind := ""
	if len(pv.Pools) > 0 && pv.Pools[0].Purpose == sim.Validation {
		kind = " validation" // never mistaken for a test result
	}
	pools := "pools"
	if len(pv.Pools) == 1 {
		pools = "pool"
	}
	fmt.Fprintf(&b, "## %s: on-time rate (mean over %d OD pairs and %d%s %s of %d)\n\n", rep.Network, len(rep.ODs), len(pv.Pools), kind, pools, poolSize(pv))
	fmt.Fprintf(&b, "Correlation %s", pv.Correlation.Model)
	if m, _ := linktime.LookupCorrModel(pv.Correlation.Model); m.Seeded {
		fmt.Fprintf(&b, " (seed %d)", pv.Correlation.Seed)
	}
	law := "" // the paper's law, as every report said nothing before laws were named
	if pv.Law != "" {
		law = " Link-time law " + pv.Law + "."
	}
	budget := "Budget = factor × LET time."
	if pv.Depart != "" {
		// a law over the day: the question's clock, in the report's words
		budget = strings.ToUpper(pv.OnTime[:1]) + pv.OnTime[1:] + ". The " + pv.Clock + "."
	}
	fmt.Fprintf(&b, ": mean |ρ| %.4f, max |ρ| %.4f, rank %d.%s Benchmark seed %d. %s\n\n",
		pv.Correlation.MeanAbs, pv.Correlation.MaxAbs, pv.Correlation.Rank, law, pv.BenchSeed, budget)
	header(&b, "budget", rep.Methods)
	for _, bud := range rep.Budgets {
		row(&b, fmtBudget(bud), rep.markOutside(mdCells(rep.SummaryRow(bud), true), "", bud))
	}
	rep.writeOutside(&b)
	if v := rep.Violations(); len(v) > 0 {
		b.WriteString("\n**Invariants broken — these numbers are not findings until explained** (see `ontime verify`):\n\n")
		for _, x := range v {
			fmt.Fprintf(&b, "- %s\n", x)
		}
	}
	if len(pv.Pools) < 2 {
		b.WriteString("\nOne pool: means only. The intervals and the paired tests are over pools, so they need two or more (--pools 2).\n")
	} else {
		fmt.Fprintf(&b, "\nMean ± half the 95%% t-interval over pools. **Bold**: the best mean, separated from every other method by paired t-tests (Holm over the row, %g); ≈: the best mean and every method the tests cannot separate from it. Bounds (clairvoyant) are outside every test.\n", Alpha)
	}
	b.WriteString("\n### Per OD pair\n\n")
	header(&b, "OD (LET min, links) | budget", rep.Methods)
	for _, od := range rep.ODs {
		for _, bud := range rep.Budgets {
			row(&b, fmt.Sprintf("%s (%.4f, %d) | %s", od.OD, od.LETTime, od.LETLinks, fmtBudget(bud)), rep.markOutside(mdCells(rep.ODRow(od.OD, bud), false), od.OD, bud))
		}
	}
	if len(rep.Paired) > 0 {
		fmt.Fprintf(&b, "\n### Paired comparisons over pools (gain = a − b; Holm family: %s against every other method at every budget)\n\n", rep.Focus)
		b.WriteString("| budget | a | b | gain | 95% CI | p | p (Holm) |\n|---|---|---|---|---|---|---|\n")
		for _, p := range rep.Paired {
			holm := "–"
			if p.PHolm != nil {
				holm = fmtP(*p.PHolm)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %+.4f | [%+.4f, %+.4f] | %s | %s |\n",
				fmtBudget(p.Budget), p.A, p.B, p.Gain, p.CILow, p.CIHigh, fmtP(p.P), holm)
		}
	}
	fmt.Fprintf(&b, "\nSolve times: ")
	for i, m := range pv.Methods {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.3fs", m.Name, m.SolveSeconds)
	}
	fmt.Fprintf(&b, ". Run took %.2fs.\n", pv.ElapsedSeconds)
	b.WriteString(pv.Build())
	_, err := io.WriteString(w, b.String())
	return err
}

// markOutside appends † to the cells (one per method) of od ("": the
// mean over pairs) at budget that lie outside their method's cover.
func (rep *Report) markOutside(cells []string, od string, budget float64) []string {
	for i, m := range rep.Methods {
		if len(rep.Outsides(m, od, budget)) > 0 {
			cells[i] += " †"
		}
	}
	return cells
}

// writeOutside says, under the table, why each † cell is not its
// method's own number.
func (rep *Report) writeOutside(b *strings.Builder) {
	if len(rep.Outside) == 0 {
		return
	}
	b.WriteString("\n**† Outside what the method was trained for, or played in part by its fallback — not the method's own number:**\n\n")
	for _, c := range rep.Outside {
		fmt.Fprintf(b, "- %s, %s at %s: %s\n", c.Method, c.OD, fmtBudget(c.Budget), c.Said())
	}
	b.WriteString("\nA model covers the OD pairs and budget factors on its card (`ontime networks show`, the Models page); `ontime train --cover` trains a wider one (README, \"What a model covers\").\n")
}

func poolSize(pv Provenance) int {
	if len(pv.Pools) == 0 {
		return 0
	}
	return pv.Pools[0].Size
}

// mdCells formats a marked row: the mean (with its interval when asked),
// bold where separated, ≈ where tied.
func mdCells(cells []Cell, interval bool) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = fmt.Sprintf("%.4f", c.Mean)
		if interval && c.High == c.High {
			out[i] += fmt.Sprintf(" ± %.4f", (c.High-c.Low)/2)
		}
		switch c.Mark {
		case Best:
			out[i] = "**" + out[i] + "**"
		case Tied:
			out[i] += " ≈"
		}
	}
	return out
}

func header(b *strings.Builder, first string, cols []string) {
	fmt.Fprintf(b, "| %s | %s |\n|%s\n", first, strings.Join(cols, " | "), strings.Repeat("---|", len(cols)+strings.Count(first, "|")+1))
}

func row(b *strings.Builder, first string, cells []string) {
	fmt.Fprintf(b, "| %s | %s |\n", first, strings.Join(cells, " | "))
}

func fmtBudget(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

func fmtP(p float64) string {
	if p != p {
		return "–" // no test (one pool)
	}
	if p < 1e-4 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.4f", p)
}

// WriteCSV writes tidy rows: one per method, OD pair ("all" for the mean
// over pairs), budget and pool.
func (rep *Report) WriteCSV(w io.Writer) error {
	cw := csvsafe.NewWriter(w)
	_ = cw.Write([]string{"network", "method", "od", "budget", "pool", "on_time_rate"})
	f := fmtRate
	for _, s := range rep.Summary {
		for k, v := range s.PoolMeans {
			_ = cw.Write([]string{rep.Network, s.Method, "all", f(s.Budget), strconv.Itoa(k), f(v)})
		}
	}
	for _, s := range rep.PerOD {
		for k, v := range s.PoolMeans {
			_ = cw.Write([]string{rep.Network, s.Method, s.OD, f(s.Budget), strconv.Itoa(k), f(v)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// Build says which build produced the report: ontime's version and commit,
// the Go toolchain, and each ONNX model's SHA-256 and the ONNX Runtime
// that ran it ("" for a report from before they were recorded).
func (pv Provenance) Build() string {
	if pv.Version == "" && pv.GoVersion == "" {
		return ""
	}
	var parts []string
	parts = append(parts, fmt.Sprintf("ontime %s (commit %s)", orUnknown(pv.Version), orUnknown(pv.Commit)))
	if pv.GoVersion != "" {
		parts = append(parts, pv.GoVersion)
	}
	for _, m := range pv.Methods {
		if sha, ok := m.Settings["model_sha256"].(string); ok && len(sha) >= 12 {
			ort, _ := m.Settings["onnxruntime"].(string)
			parts = append(parts, fmt.Sprintf("%s model sha256 %s… on ONNX Runtime %s", m.Name, sha[:12], orUnknown(ort)))
		}
	}
	return "Built by " + strings.Join(parts, "; ") + ".\n"
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

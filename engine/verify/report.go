package verify

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Invariant names one property every run is held to, and why any correct
// implementation has it. Checks name them (a method suffix may follow).
type Invariant struct{ Name, Doc string }

// Invariants lists them in the order reports show them.
var Invariants = []Invariant{
	{"stated-mean-is-realized", "every link's sampled times have its stated mean (per link, Bonferroni over the links at the Z level): LET, budgets and every planner read the stated means, so the sampled law must have them"},
	{"stated-sd-is-realized", "every link's sampled times have its stated standard deviation (tolerance 1.5 × the Gaussian standard error, for the law's tails)"},
	{"rates-in-unit-interval", "every on-time rate is in [0, 1]"},
	{"clairvoyant-bounds-every-episode", "on every episode, a method on time means the clairvoyant (who knows every realized time) is: exact, no tolerance"},
	{"let-half-at-LET-budget", "at budget = LET time, following the LET path is on time with probability ≈ ½ (the budget is the path's stated mean); tolerance 0.02 for the law's skew + Z standard errors"},
	{"cdot-equals-dot-independent", "with independent links the conditional law of the next link is its marginal: cdot and dot decide alike on every episode (exact)"},
	{"no-loops", "a second pass over a link learns nothing (its time that day is known) and only spends time: dot and cgr never drive a link twice in an episode on the network's own law, nor dot and cdot on independent links (exact; where scores tie, saturated at 0 or 1, they take a way to a node not yet visited, then the least expected time ahead). cdot on the network's own law is counted beside it, not held to it: it judges what follows its next link by DOT's marginal table, and may go back once for a way out it passed up"},
	{"dot-optimal-independent", "with independent links DOT is optimal over policies of (node, time left, links left): dot ≥ let and bestpath − 0.01 (its grid) − Z paired standard errors"},
	{"cdot-near-dot-weak-rho", "with weak correlation (max |ρ| ≤ 0.15) conditioning moves little: |cdot − dot| ≤ 0.03 + Z paired standard errors"},
	{"rollout-not-below-base", "rollout (base dot) is never worse than its base in expectation: rollout ≥ dot − Z paired standard errors"},
	{"closed-form", "where the on-time probability is known exactly (the five-node example's adaptive optimum, a road with no alternative), the method reaches it within Z binomial standard errors"},
	{"same-numbers-any-cores", "the same seed gives the same outcome on every episode with one worker as with many"},
}

// Markdown writes the battery's results: a case × invariant table (✓, or
// ✗ with the number of failing checks), what each case is, every
// violation with its numbers, and what each invariant states.
func Markdown(w io.Writer, results []CaseResult, header string) {
	fmt.Fprintf(w, "# Invariant battery\n\n%s\n\n", header)
	total, bad := 0, 0
	for _, r := range results {
		total += len(r.Checks)
		bad += violations(r.Checks)
	}
	fmt.Fprintf(w, "%d cases, %d checks, **%d violations**.\n\n", len(results), total, bad)
	var static, timed []CaseResult
	for _, r := range results {
		if r.Kind == "clock" {
			timed = append(timed, r)
		} else {
			static = append(static, r)
		}
	}
	if len(static) > 0 {
		table(w, static, Invariants)
	}
	if len(timed) > 0 {
		fmt.Fprintf(w, "\n## Laws over the day\n\n")
		table(w, timed, ClockInvariants)
	}
	fmt.Fprintf(w, "\n## Cases\n\n| case | kind | nodes | OD pairs | seconds | what it is |\n|---|---|---|---|---|---|\n")
	for _, r := range results {
		fmt.Fprintf(w, "| %s | %s | %d | %s | %.1f | %s |\n", r.Name, r.Kind, r.Nodes, strings.Join(r.ODs, ", "), r.Seconds, r.Note)
	}
	fmt.Fprintf(w, "\n## Violations\n\n")
	if bad == 0 && !slices.ContainsFunc(results, func(r CaseResult) bool { return r.Err != "" }) {
		fmt.Fprintf(w, "None.\n")
	}
	for _, r := range results {
		if r.Err != "" {
			fmt.Fprintf(w, "- **%s**: the run failed: %s\n", r.Name, r.Err)
		}
		for _, c := range r.Checks {
			if c.OK {
				continue
			}
			fmt.Fprintf(w, "- **%s**, %s%s: measured %.4f, bound %.4f — %s\n", r.Name, c.Invariant, factor(c.Factor), c.Value, c.Bound, c.Detail)
		}
	}
	fmt.Fprintf(w, "\n## Invariants\n\n")
	for _, inv := range append(slices.Clone(Invariants), ClockInvariants...) {
		fmt.Fprintf(w, "- **%s** (%s): %s.\n", short([]string{inv.Name})[0], inv.Name, inv.Doc)
	}
}

func factor(f float64) string {
	if f == 0 {
		return ""
	}
	return fmt.Sprintf(" at %.2f", f)
}

// short column labels (I1, I2, …) keep the table readable.
func short(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		is := func(inv Invariant) bool { return inv.Name == n }
		if k := slices.IndexFunc(ClockInvariants, is); k >= 0 {
			out[i] = fmt.Sprintf("C%d", k+1) // the day's battery
			continue
		}
		out[i] = fmt.Sprintf("I%d", slices.IndexFunc(Invariants, is)+1)
	}
	return out
}

func legend(cols []string) string {
	s := make([]string, len(cols))
	for i, c := range cols {
		s[i] = short([]string{c})[0] + " " + c
	}
	return strings.Join(s, ", ")
}

// Violations counts the failing checks and failed cases of a run.
func Violations(results []CaseResult) int {
	n := 0
	for _, r := range results {
		n += violations(r.Checks)
		if r.Err != "" {
			n++
		}
	}
	return n
}

// table writes the case × invariant table of results over invs.
func table(w io.Writer, results []CaseResult, invs []Invariant) {
	cols := make([]string, len(invs))
	for i, inv := range invs {
		cols[i] = inv.Name
	}
	fmt.Fprintf(w, "| case | links | law | correlation (max \\|ρ\\|) | %s |\n|---|---|---|---|%s\n", strings.Join(short(cols), " | "), strings.Repeat("---|", len(cols)))
	for _, r := range results {
		cells := make([]string, len(cols))
		for i, name := range cols {
			n, fails := 0, 0
			for _, c := range r.Checks {
				if c.Invariant == name || strings.HasPrefix(c.Invariant, name+" ") {
					n++
					if !c.OK {
						fails++
					}
				}
			}
			switch {
			case n == 0:
				cells[i] = "–"
			case fails == 0:
				cells[i] = "✓"
			default:
				cells[i] = fmt.Sprintf("✗ %d/%d", fails, n)
			}
		}
		name := r.Name
		if r.Err != "" {
			name += " (error)"
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s (%.3f) | %s |\n", name, r.Links, r.Law, r.Correlation, r.MaxAbsRho, strings.Join(cells, " | "))
	}
	fmt.Fprintf(w, "\nColumns: %s. –: not applicable to the case.\n", legend(cols))
}

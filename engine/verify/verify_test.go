package verify

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
)

func pick(cases []Case, names ...string) []Case {
	var out []Case
	for _, c := range cases {
		if slices.Contains(names, c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// The fast subset of the battery (make test): the series road's closed
// form, links under the paper's floor, hours read as minutes, and the
// five-node example's adaptive optimum hold every invariant. The whole
// battery is `ontime verify --all` (docs/verify.md).
func TestBatteryFastSubset(t *testing.T) {
	if testing.Short() {
		t.Skip("the battery runs in the full test pass")
	}
	cases := pick(Generated(false), "series", "short-links", "hour-units", "zero-variance")
	cases = append(cases, pick(BuiltIn("", t.Logf), builtin.Example)...)
	// rollout (the slow check) on the case it matters most for
	results := Run(context.Background(), cases[1:2], Options{Pools: 2, PoolSize: 300, MaxODs: 2, Rollout: true, Logf: t.Logf})
	results = append(results, Run(context.Background(), slices.Delete(slices.Clone(cases), 1, 2), Options{Pools: 2, PoolSize: 400, MaxODs: 2, Logf: t.Logf})...)
	if len(results) != len(cases) {
		t.Fatalf("%d results for %d cases", len(results), len(cases))
	}
	for _, r := range results {
		if r.Err != "" {
			t.Errorf("%s: %s", r.Name, r.Err)
		}
		for _, c := range r.Checks {
			if !c.OK {
				t.Errorf("%s: %s%s: %.4f against %.4f (%s)", r.Name, c.Invariant, factor(c.Factor), c.Value, c.Bound, c.Detail)
			}
		}
	}
	var b strings.Builder
	Markdown(&b, results, "test")
	if !strings.Contains(b.String(), "**0 violations**") {
		t.Errorf("report:\n%s", b.String())
	}
}

// The battery has teeth: under the paper's law (floored at an absolute 0.1
// min), links shorter than the floor realize a larger mean than they state,
// and the battery says so — the stated mean, and the LET path's on-time
// rate at its own mean time.
func TestBatteryCatchesPaperFloorOnShortLinks(t *testing.T) {
	c := pick(Generated(false), "short-links")[0]
	net := *c.Net
	net.Law = linktime.PaperLaw
	c.Net = &net
	results := Run(context.Background(), []Case{c}, Options{Pools: 2, PoolSize: 200, MaxODs: 1})
	failed := map[string]bool{}
	for _, ch := range results[0].Checks {
		if !ch.OK {
			failed[ch.Invariant] = true
		}
	}
	for _, want := range []string{"stated-mean-is-realized", "let-half-at-LET-budget"} {
		if !failed[want] {
			t.Errorf("%s not flagged (failed: %v)", want, failed)
		}
	}
}

package verify

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/testenv"
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

// The fast subset of the battery (a large case, run by CI and make verify):
// the series road's closed form, links under the paper's floor, hours read
// as minutes, and the five-node example's adaptive optimum hold every
// invariant. The whole battery is `ontime verify --all` (docs/verify.md).
func TestBatteryFastSubset(t *testing.T) {
	testenv.Large(t)
	cases := pick(Generated(false), "series", "short-links", "hour-units", "zero-variance")
	cases = append(cases, pick(BuiltIn("", t.Logf), builtin.Example)...)
	// rollout (the slow check) on the case it matters most for
	results := Run(context.Background(), cases[1:2], Options{Pools: 2, PoolSize: 300, MaxODs: 2, Rollout: true, Logf: t.Logf})
	results = append(results, Run(context.Background(), slices.Delete(slices.Clone(cases), 1, 2), Options{Pools: 2, PoolSize: 400, MaxODs: 2, Logf: t.Logf})...)
	if len(results) != len(cases) {
		t.Fatalf("%d results for %d cases", len(results), len(cases))
	}
	noViolations(t, results)
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

// The matched law is scale-free: the same network in hours read as minutes
// and converted to minutes (every time × 60) gives the same decisions on
// the same draws (the same pool seeds), up to rounding in the last bits.
func TestUnitInvariance(t *testing.T) {
	if testing.Short() {
		t.Skip("in the full test pass")
	}
	hours := pick(Generated(false), "hour-units")[0].Net
	hours.Instance = "unit-invariance" // one pool key for both, so one set of draws
	minutes := *hours
	minutes.Links = slices.Clone(hours.Links)
	for e := range minutes.Links {
		minutes.Links[e].Mean *= 60
		minutes.Links[e].Var *= 3600
	}
	minutes.Index()
	o := Options{Pools: 2, PoolSize: 400}.withDefaults()
	var runs []*run
	for _, net := range []*engine.Network{hours, &minutes} {
		model, err := linktime.New(net)
		if err != nil {
			t.Fatal(err)
		}
		r, err := evaluate(context.Background(), net, model, net.ODs, []string{"let", "dot", "cdot", "cgr"}, o, 0, o.Pools)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	for _, m := range runs[0].methods {
		same, n := 0, 0
		for ti := range runs[0].tasks {
			for p := range runs[0].out[0][ti] {
				a, b := runs[0].out[runs[0].idx(m)][ti][p], runs[1].out[runs[1].idx(m)][ti][p]
				for e := range a {
					n++
					if a[e].OnTime == b[e].OnTime {
						same++
					}
				}
			}
		}
		if float64(same) < 0.995*float64(n) {
			t.Errorf("%s: %d of %d episodes agree between hours and minutes", m, same, n)
		}
	}
}

// The skewed laws hold every invariant: the log-normal grid and the grid
// under a law fitted to simulated observations (gamma, log-normal, normal
// and empirical marginals; fitted-factor correlation).
func TestBatterySkewedLaws(t *testing.T) {
	testenv.Large(t)
	cases := pick(Generated(false), "skewed", "fitted")
	if cases[1].Net.Law != linktime.FittedLaw {
		t.Fatalf("the fitted case is not fitted: %s", cases[1].Note)
	}
	noViolations(t, Run(context.Background(), cases, Options{Pools: 2, PoolSize: 400, MaxODs: 2, Logf: t.Logf}))
}

// noViolations fails for every case that erred and every check broken.
func noViolations(t *testing.T, results []CaseResult) {
	t.Helper()
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
}

// The shared networks under the skewed laws (the shared battery's skewed
// cases: Sioux Falls and Berlin Mitte, log-normal and fitted): every
// invariant holds.
func TestBatterySkewedShared(t *testing.T) {
	testenv.Large(t)
	dir := testenv.DataDir(t)
	var cases []Case
	for _, rel := range SkewedShared {
		for _, c := range SharedCases(dir, rel, t.Logf) {
			if law, err := linktime.LawByName(c.Net.Law); err == nil && law.Skewed {
				cases = append(cases, c)
			}
		}
	}
	if len(cases) != 2*len(SkewedShared) {
		t.Fatalf("%d skewed shared cases, want %d", len(cases), 2*len(SkewedShared))
	}
	noViolations(t, Run(context.Background(), cases, Options{Pools: 2, PoolSize: 400, MaxODs: 2, Logf: t.Logf}))
}

// A case's progress names its evaluation, the method being built and the
// pools done, at most one line a gap: none within a long one.
func TestProgressLines(t *testing.T) {
	for _, tc := range []struct {
		gap   time.Duration
		begun time.Duration // how long before the first line the case began
		want  []string
	}{
		{0, 0, []string{
			"verify grid: its own law: building cgr (2 of 5 methods built)",
			"verify grid: its own law: building pql (3 of 5 methods built)",
			"verify grid: its own law: all 5 methods built; evaluating the pools",
			"verify grid: its own law: 3 of 4 pools done",
			"verify grid: independent links: 4 of 4 pools done",
		}},
		{time.Hour, 0, nil},
		// A long case says when its builds end, however soon after the
		// last line: its first pool may take minutes.
		{time.Hour, 2 * time.Hour, []string{
			"verify grid: its own law: building cgr (2 of 5 methods built)",
			"verify grid: its own law: all 5 methods built; evaluating the pools",
		}},
	} {
		var got []string
		logf := func(f string, a ...any) { got = append(got, fmt.Sprintf(f, a...)) }
		progress := newCaseProgress(logf, "grid", tc.gap)
		progress.start = progress.start.Add(-tc.begun)
		progress.last = progress.start
		own := progress.of("its own law")
		own("methods:cgr", 2, 5)
		own("methods", 3, 5) // a method built: no line of its own
		own("methods:pql", 3, 5)
		own("methods", 5, 5)
		own("pools", 3, 4)
		progress.of("independent links")("pools", 4, 4)
		if !slices.Equal(got, tc.want) {
			t.Errorf("gap %v, begun %v before: lines\n%q\nwant\n%q", tc.gap, tc.begun, got, tc.want)
		}
	}
}

// The day's battery holds on Rushtown and on its day over independent
// links, and has teeth: a day whose mean falls faster than the clock
// breaks FIFO, and the battery says so.
func TestClockBattery(t *testing.T) {
	cases := ClockCases(t.Logf)
	if !testenv.IsLarge() {
		cases = cases[1:] // the independent case carries every check
	}
	results := Run(context.Background(), cases, Options{Pools: 2, PoolSize: testenv.Tiered(400, 200, 100), MaxODs: 1, Logf: t.Logf})
	noViolations(t, results)
	var b strings.Builder
	Markdown(&b, results, "test")
	if !strings.Contains(b.String(), "## Laws over the day") || !strings.Contains(b.String(), "C4 clock-dot-not-below-let-independent") {
		t.Errorf("report:\n%s", b.String())
	}
	c := ClockCases(t.Logf)[0]
	net := *c.Net
	clk := *net.Clock
	clk.Profiles = slices.Clone(clk.Profiles)
	p := &clk.Profiles[0]
	p.Mean = slices.Clone(p.Mean)
	p.Mean[40] = 40 // 10:00: a link 40 times its mean, back at 10:15
	net.Clock = &clk
	c.Net = &net
	results = Run(context.Background(), []Case{c}, Options{Pools: 1, PoolSize: 50, MaxODs: 1})
	caught := false
	for _, ch := range results[0].Checks {
		caught = caught || ch.Invariant == "clock-fifo" && !ch.OK
	}
	if !caught {
		t.Errorf("a day that breaks FIFO passed: %+v", results[0].Checks)
	}
}

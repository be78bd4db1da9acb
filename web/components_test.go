package web

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/jobs"
)

func render(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestReportMarksTheBestMethodButNeverABound(t *testing.T) {
	p := 0.01
	rep := &bench.Report{Methods: []string{"let", "cgr", "dot", "clairvoyant"}, Budgets: []float64{1, 1.05},
		Summary: []bench.Summary{
			// At 1: cgr beats let and dot in every pool; clairvoyant is a bound.
			{Method: "let", Budget: 1, PoolMeans: []float64{0.50, 0.51, 0.49, 0.50, 0.50}},
			{Method: "cgr", Budget: 1, PoolMeans: []float64{0.53, 0.54, 0.52, 0.53, 0.535}},
			{Method: "dot", Budget: 1, PoolMeans: []float64{0.51, 0.52, 0.50, 0.51, 0.512}},
			{Method: "clairvoyant", Budget: 1, PoolMeans: []float64{0.7, 0.7, 0.7, 0.7, 0.7}},
			// At 1.05: cgr has the best mean but dot is not separated from it.
			{Method: "let", Budget: 1.05, PoolMeans: []float64{0.60, 0.61, 0.59, 0.60, 0.60}},
			{Method: "cgr", Budget: 1.05, PoolMeans: []float64{0.65, 0.66, 0.64, 0.65, 0.66}},
			{Method: "dot", Budget: 1.05, PoolMeans: []float64{0.66, 0.64, 0.65, 0.64, 0.66}},
			{Method: "clairvoyant", Budget: 1.05, PoolMeans: []float64{0.8, 0.8, 0.8, 0.8, 0.8}},
		},
		Paired: []bench.Paired{{A: "let", B: "cgr", Budget: 1, Gain: -0.03, CILow: -0.04, CIHigh: -0.02, P: 0.001, PHolm: &p}, {A: "cgr", B: "clairvoyant", Budget: 1}}}
	rep.Provenance.Methods = []bench.MethodInfo{{Name: "let"}, {Name: "cgr"}, {Name: "dot"}, {Name: "clairvoyant", Bound: true}}
	// One OD pair whose rows are the summary's: its cells are marked alike.
	rep.ODs = []bench.ODInfo{{OD: "1-2", LETTime: 10}}
	for _, s := range rep.Summary {
		rep.PerOD = append(rep.PerOD, bench.ODSummary{Method: s.Method, OD: "1-2", Budget: s.Budget, PoolMeans: s.PoolMeans})
	}
	doc := render(t, Report("/api/bench/abc", rep, map[string]string{"let": "#7f7f7f"}))
	mark := func(m, b string) string {
		v, _ := doc.Find(`[data-testid="rate-` + m + `-` + b + `"]`).Attr("data-mark")
		return v
	}
	if mark("cgr", "1.00") != "best" || mark("clairvoyant", "1.00") != "" || mark("let", "1.00") != "" {
		t.Errorf("at 1.00: cgr %q, clairvoyant %q, let %q", mark("cgr", "1.00"), mark("clairvoyant", "1.00"), mark("let", "1.00"))
	}
	if mark("cgr", "1.05") != "tied" || mark("dot", "1.05") != "tied" || mark("let", "1.05") != "" || doc.Find(`[data-testid="summary-table"] .best`).Length() != 1 {
		t.Errorf("at 1.05: cgr %q, dot %q, let %q; %d bold", mark("cgr", "1.05"), mark("dot", "1.05"), mark("let", "1.05"), doc.Find(`[data-testid="summary-table"] .best`).Length())
	}
	if got := strings.Join(strings.Fields(doc.Find(`[data-testid="rate-let-1.00"]`).Text()), " "); got != "0.5000 ± 0.0088" {
		t.Errorf("let cell %q", got)
	}
	for _, id := range []string{"cgr-1.00", "dot-1.05", "let-1.00"} {
		sum, _ := doc.Find(`[data-testid="rate-` + id + `"]`).Attr("data-mark")
		od, ok := doc.Find(`[data-testid="od-1-2-` + id + `"]`).Attr("data-mark")
		if !ok || od != sum {
			t.Errorf("per-OD cell %s marked %q, summary %q", id, od, sum)
		}
	}
	// Only the Holm family's rows are listed.
	if n := doc.Find(`[data-testid="paired-table"] tbody tr`).Length(); n != 1 {
		t.Errorf("%d paired rows", n)
	}
	for id, want := range map[string]string{"download-csv": "/api/bench/abc.csv", "download-summary-csv": "/api/bench/abc.summary.csv", "download-tex": "/api/bench/abc.tex"} {
		if href, _ := doc.Find(`[data-testid="` + id + `"]`).Attr("href"); href != want {
			t.Errorf("%s link %q", id, href)
		}
	}
}

func TestLayoutShowsFlagsAndTheActivePage(t *testing.T) {
	p := Page{Title: "Compare", Active: "compare", Network: "sfn", Flags: []string{"gpght was trained for budgets 0.90–1.10 × LET; 1.20 is outside"}}
	doc := render(t, Compare(p, RunForm{Net: "sfn", Nodes: []string{"1", "2"}, Origin: "1", Dest: "2", Factor: 1.2, Lo: 0.9, Hi: 1.2,
		Methods: []MethodOption{{Name: "gpght", Unavailable: "no model"}, {Name: "let", Checked: true}}}))
	if !strings.Contains(doc.Find(`[data-testid="flags"]`).Text(), "1.20 is outside") {
		t.Error("flag not shown")
	}
	if cur, _ := doc.Find(`[data-testid="nav-compare"]`).Attr("aria-current"); cur != "page" {
		t.Error("active page not marked")
	}
	if href, _ := doc.Find(`[data-testid="nav-live"]`).Attr("href"); href != "/live?net=sfn" {
		t.Errorf("nav keeps the network: %q", href)
	}
	if _, ok := doc.Find(`[data-testid="method-gpght"]`).Attr("disabled"); !ok {
		t.Error("an unavailable method can be picked")
	}
	if _, ok := doc.Find(`[data-testid="method-let"]`).Attr("checked"); !ok {
		t.Error("a chosen method is not checked")
	}
	if v, _ := doc.Find(`[data-testid="factor"]`).Attr("value"); v != "1.20" {
		t.Errorf("slider at %q", v)
	}
}

// Issue 44: a training that failed before any checkpoint offers no
// downloads of a curve that does not exist, and an empty log says why
// instead of an empty box.
func TestJobPageOffersOnlyWhatExists(t *testing.T) {
	v := JobView{Status: jobs.Status{ID: "t1", Kind: "train", State: jobs.Failed, Error: "the trainer was not found"}, Curve: true}
	doc := render(t, Job(Page{Title: "Job t1"}, v))
	if _, hidden := doc.Find(`[data-testid="job-curve-svg"]`).Parent().Attr("hidden"); !hidden {
		t.Error("a curve with no point can be downloaded")
	}
	if _, hidden := doc.Find(`[data-testid="job-log"]`).Attr("hidden"); !hidden {
		t.Error("an empty log box is shown")
	}
	v = JobView{Status: jobs.Status{ID: "b1", Kind: "bench", State: jobs.Done, Events: 0}, Report: true}
	if got := render(t, Job(Page{Title: "Job b1"}, v)).Find(`[data-testid="job-log-empty"]`).Text(); !strings.Contains(got, "logs only what goes wrong") {
		t.Errorf("a benchmark's empty log: %q", got)
	}
}

// Issue 47: Live's sampling note points to the pages that count rates: on
// a network past Compare's link limit, Benchmarks alone (Compare counts
// none there, and its cells said "–" with no reason).
func TestLiveNoteNamesWhereRatesAreCounted(t *testing.T) {
	for _, c := range []struct {
		limit     int
		want, not string
	}{
		{0, "Compare counts 1,000 days", "counts none"},
		{4000, "Compare counts none on a network of more than 4,000 links", "1,000 days"},
	} {
		doc := render(t, Live(Page{Title: "Live", Active: "live", Network: "grid"}, RunForm{Net: "grid", Nodes: []string{"1", "2"}, Origin: "1", Dest: "2",
			Factor: 1, Lo: 0.9, Hi: 1.1, Episodes: 2000, RateLinkLimit: c.limit}))
		note := doc.Find(`[data-testid="sampling-note"]`).Text()
		if !strings.Contains(note, c.want) || strings.Contains(note, c.not) {
			t.Errorf("limit %d: the note says %q", c.limit, note)
		}
	}
}

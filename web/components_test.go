package web

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/ontime-routing/ontime/engine/bench"
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
	rep := &bench.Report{Methods: []string{"let", "cgr", "clairvoyant"}, Budgets: []float64{1},
		Summary: []bench.Summary{{Method: "let", Budget: 1, Mean: 0.5}, {Method: "cgr", Budget: 1, Mean: 0.53}, {Method: "clairvoyant", Budget: 1, Mean: 0.7}},
		Paired:  []bench.Paired{{A: "let", B: "cgr", Budget: 1, Gain: -0.03, CILow: -0.04, CIHigh: -0.02, P: 0.001, PHolm: &p}, {A: "cgr", B: "clairvoyant", Budget: 1}}}
	rep.Provenance.Methods = []bench.MethodInfo{{Name: "let"}, {Name: "cgr"}, {Name: "clairvoyant", Bound: true}}
	doc := render(t, Report("abc", rep, map[string]string{"let": "#7f7f7f"}))
	if !doc.Find(`[data-testid="rate-cgr-1.00"]`).HasClass("best") || doc.Find(`[data-testid="rate-clairvoyant-1.00"]`).HasClass("best") {
		t.Error("best marking")
	}
	if got := doc.Find(`[data-testid="rate-let-1.00"]`).Text(); got != "0.5000" {
		t.Errorf("let cell %q", got)
	}
	// Only the Holm family's rows are listed.
	if n := doc.Find(`[data-testid="paired-table"] tbody tr`).Length(); n != 1 {
		t.Errorf("%d paired rows", n)
	}
	if href, _ := doc.Find(`[data-testid="download-csv"]`).Attr("href"); href != "/api/bench/abc.csv" {
		t.Errorf("csv link %q", href)
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

package lab

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// twoBranchModel opens the five-node example for a test of its trained
// GPG-HT model (card: OD pair A-E, budgets 0.98–1.02 × LET), which needs
// ONNX Runtime: it skips without the library, and fails under CI.
func twoBranchModel(t *testing.T) *Net {
	t.Helper()
	if _, err := ort.FindLibrary(); err != nil {
		testenv.Missing(t, err.Error())
	}
	n, err := New(Options{}).Open("twobranch")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Every door that shows a trained model's number says so beside it where
// the request lies outside the model's card: Compare and Live carry the
// reason, the plan keeps the model's search to its trained budgets (and
// refuses a pair it was not trained for), and a benchmark's report lists
// the cells and marks them.
func TestEveryDoorSaysAModelIsOutsideItsTraining(t *testing.T) {
	n := twoBranchModel(t)
	ae, be := n.Net.ODs[0], engine.OD{Origin: 1, Destination: 4}
	ctx := context.Background()

	c, err := n.Compare(ctx, CompareRequest{OD: ae, Factor: 1.5, Realization: 3, Methods: []string{"gpght", "let"}})
	if err != nil {
		t.Fatal(err)
	}
	if w := c.Rollouts[0].Warning; !strings.Contains(w, "outside gpght's training range") || c.Rollouts[1].Warning != "" {
		t.Errorf("compare at 1.5 × LET: warnings %q, %q", w, c.Rollouts[1].Warning)
	}
	c, _ = n.Compare(ctx, CompareRequest{OD: ae, Factor: 1, Realization: 3, Methods: []string{"gpght"}})
	if w := c.Rollouts[0].Warning; w != "" {
		t.Errorf("compare inside the cover: %q", w)
	}

	live, err := n.Live(ctx, LiveRequest{OD: be, Factor: 1, Methods: []string{"gpght", "let"}, Episodes: 300}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := live.Rates[0]; !strings.Contains(g.Said(), "not one of them") || live.Rates[1].Said() != "" {
		t.Errorf("live on B-E: %q, %q", g.Said(), live.Rates[1].Said())
	}

	p, err := n.Plan(ctx, PlanRequest{OD: ae, Alpha: 0.5, Methods: []string{"gpght", "let"}, Episodes: 500})
	if err != nil {
		t.Fatal(err)
	}
	g := p.Rows[0]
	if g.Err != "" || len(g.Range) != 2 || g.Range[0] != 0.98 || g.Range[1] != 1.02 || math.Abs(g.SearchedTo-1.02*p.LETTime) > 1e-9 || g.Note == "" {
		t.Errorf("plan's gpght row: %+v", g)
	}
	if g.Budget.Budget < 0.98*p.LETTime-1e-9 || g.Budget.Budget > 1.02*p.LETTime+1e-9 {
		t.Errorf("gpght's budget %v lies outside its trained range", g.Budget.Budget)
	}
	if l := p.Rows[1]; l.Range != nil || l.SearchedTo != p.Max {
		t.Errorf("let's row has a range: %+v", l)
	}
	p, err = n.Plan(ctx, PlanRequest{OD: ae, Alpha: 0.999, Methods: []string{"gpght"}, Episodes: 500})
	if err != nil {
		t.Fatal(err)
	}
	if e := p.Rows[0].Err; !strings.Contains(e, "outside gpght's training range") || strings.Contains(e, "out of reach") {
		t.Errorf("plan at 0.999: %q", e)
	}
	p, err = n.Plan(ctx, PlanRequest{OD: be, Alpha: 0.5, Methods: []string{"gpght"}, Episodes: 500})
	if err != nil {
		t.Fatal(err)
	}
	if e := p.Rows[0].Err; !strings.Contains(e, "not one of them") {
		t.Errorf("plan on B-E: %q", e)
	}

	rep, err := bench.Run(ctx, bench.Config{Net: n.Net, Model: n.Model, Methods: []string{"gpght", "let"}, Budgets: []float64{1, 1.5},
		ODs: []engine.OD{ae, be}, Pools: 2, PoolSize: 200, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]bool{}
	for _, c := range rep.Outside {
		if c.Method != "gpght" || c.Reason == "" || c.Episodes != 400 {
			t.Errorf("outside cell %+v", c)
		}
		cells[fmt.Sprintf("%s@%.2f", c.OD, c.Budget)] = true
	}
	if len(cells) != 3 || !cells["A-E@1.50"] || !cells["B-E@1.00"] || !cells["B-E@1.50"] {
		t.Errorf("outside cells %v, want A-E at 1.50 and B-E at both", cells)
	}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| A-E (106.0000, 3) | 1.50 | ") || !strings.Contains(md.String(), "† Outside what the method was trained for") {
		t.Errorf("markdown does not mark the cells:\n%s", md.String())
	}
}

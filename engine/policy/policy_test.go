package policy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
)

// At B the rule compares the two branches given the observed A→B time: a
// slow A→B predicts a slow B→C (ρ > 0), so it turns to D; a fast one keeps
// it on C. Without history the branches look the same and it takes the
// first.
func ExampleCondRule() {
	net, _ := builtin.Load("twobranch", "")
	model, _ := linktime.New(net)
	rule := policy.NewCondRule(policy.NewLET(net), model)
	b, _ := net.NodeIndex("B")
	e, _ := net.NodeIndex("E")
	for _, ab := range []float64{7, 3} {
		o := &engine.Observation{Node: b, Destination: e, Remaining: 106 - ab, Step: 1, Prefix: []engine.Step{{Link: 0, Time: ab}}}
		l := net.Links[rule.Act(o)]
		fmt.Printf("A→B took %v: go to %s\n", ab, net.Nodes[l.To].ID)
	}
	o := &engine.Observation{Node: b, Destination: e, Remaining: 99, Step: 1}
	fmt.Printf("no history: go to %s\n", net.Nodes[net.Links[rule.Act(o)].To].ID)
	fmt.Printf("optimum at T = 106: %.4f\n", policy.TwoBranchOptimum())
	// Output:
	// A→B took 7: go to D
	// A→B took 3: go to C
	// no history: go to C
	// optimum at T = 106: 0.5370
}

// Every offered method has its own fixed colour; others get a stable one
// derived from the name.
func TestMethodColorsAreFixedAndDistinct(t *testing.T) {
	seen := map[string]string{}
	for _, m := range policy.Methods {
		if !m.Offered {
			continue
		}
		if len(m.Color) != 7 || m.Color[0] != '#' {
			t.Errorf("%s: colour %q is not #rrggbb", m.Name, m.Color)
		}
		if o, ok := seen[m.Color]; ok {
			t.Errorf("%s and %s share %s", m.Name, o, m.Color)
		}
		seen[m.Color] = m.Name
		if policy.Color(m.Name) != m.Color {
			t.Errorf("policy.Color(%s) = %s, registry says %s", m.Name, policy.Color(m.Name), m.Color)
		}
		if m.Label == "" || m.Reference == "" {
			t.Errorf("%s has no label or reference", m.Name)
		}
	}
	a, b := policy.Color("onnx:x.onnx"), policy.Color("onnx:y.onnx")
	if !strings.HasPrefix(a, "hsl(") || a == b || policy.Color("onnx:x.onnx") != a {
		t.Errorf("fallback colours %q, %q", a, b)
	}
}

// Every committed model card matches the fingerprint of the network it was
// trained for (a change to the fingerprint's definition must update the
// cards, or the dashboard refuses the models). Needs no ONNX Runtime.
func TestCommittedModelCardsMatchTheirNetworks(t *testing.T) {
	dir := filepath.Join("..", "..", "models")
	cards, _ := filepath.Glob(filepath.Join(dir, "*.card.json"))
	if len(cards) == 0 {
		t.Fatal("no model cards found in models/")
	}
	data := os.Getenv("ONTIME_DATA")
	for _, path := range cards {
		base := strings.TrimSuffix(filepath.Base(path), ".card.json")
		name, ablation, _ := strings.Cut(base, "-")
		net, err := builtin.Load(name, data)
		if err != nil {
			continue // the benchmark data is not here; twobranch always is
		}
		card, err := policy.ReadModelCard(dir, name, ablation)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		corr := net.Correlation
		if ablation == "indep" {
			corr = engine.Correlation{Model: "independent"}
		}
		if want := engine.Fingerprint(net, corr); card.Fingerprint != want {
			t.Errorf("%s: fingerprint %s, network %s is %s", path, card.Fingerprint, name, want)
		}
	}
}

package policy_test

import (
	"fmt"

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

package bench

import (
	"strings"
	"testing"
)

// A report says when its own numbers break an invariant, and says nothing
// when they hold.
func TestReportViolations(t *testing.T) {
	rep := &Report{Provenance: Provenance{Pools: []PoolInfo{{Size: 1000}, {Size: 1000}}, Correlation: CorrelationInfo{Model: "independent"},
		Methods: []MethodInfo{{Name: "let"}, {Name: "dot"}, {Name: "cdot"}, {Name: "clairvoyant", Bound: true}}}}
	per := func(m string, b, mean float64, pools ...float64) ODSummary {
		return ODSummary{Method: m, OD: "1-2", Budget: b, Mean: mean, PoolMeans: pools}
	}
	rep.PerOD = []ODSummary{per("let", 1, 0.5, 0.49, 0.51), per("dot", 1, 0.6, 0.6, 0.6), per("cdot", 1, 0.6, 0.6, 0.6), per("clairvoyant", 1, 0.9, 0.9, 0.9)}
	if v := rep.Violations(); len(v) != 0 {
		t.Fatalf("violations of a sound report: %q", v)
	}
	rep.PerOD = []ODSummary{per("let", 1, 0.02, 0.01, 0.03), per("dot", 1, 0.6, 0.6, 0.95), per("cdot", 1, 0.6, 0.6, 0.61), per("clairvoyant", 1, 0.9, 0.9, 0.9)}
	v := strings.Join(rep.Violations(), "\n")
	for _, want := range []string{"let on 1-2 at budget = LET time", "dot on 1-2 at 1.00: 0.9500 on pool 1 is above the clairvoyant", "cdot on 1-2 at 1.00 differs from dot"} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q in:\n%s", want, v)
		}
	}
}

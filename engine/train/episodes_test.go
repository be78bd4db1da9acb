package train

import (
	"slices"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/policy"
)

// Teachers are chosen at the range's ends and middle and at the validation
// factors, so a benchmark budget is demonstrated by the teacher chosen at
// that very budget.
func TestTeacherFactors(t *testing.T) {
	r := &run{cfg: Config{BudgetLo: 0.85, BudgetHi: 1.15, ValidationFactors: []float64{0.95, 1, 1.05, 1.3}}}
	if got, want := r.teacherFactors(), []float64{0.85, 0.95, 1, 1.05, 1.15}; !slices.Equal(got, want) {
		t.Errorf("factors %v, want %v", got, want)
	}
}

// recordingPolicy answers a fixed link and counts its calls.
type recordingPolicy struct {
	link  int
	calls int
}

func (p *recordingPolicy) Act(*engine.Observation) int { p.calls++; return p.link }

// The teacher mix reads the pair from the prefix's first node and the
// original budget from the time spent, so continuations (rollout's) get the
// same teacher as the episode's start.
func TestTeacherMixDispatch(t *testing.T) {
	net, err := builtin.Load("twobranch", "")
	if err != nil {
		t.Fatal(err)
	}
	od := net.ODs[0]
	lo, hi := &recordingPolicy{link: 0}, &recordingPolicy{link: 0}
	other := &recordingPolicy{link: 0}
	m := &teacherMix{net: net, factors: []float64{0.9, 1.1}, let: []float64{100}, index: map[engine.OD]int{od: 0},
		choice: [][]engine.Policy{{lo, hi}}, first: other}
	start := &engine.Observation{Node: od.Origin, Destination: od.Destination, Remaining: 91}
	m.Act(start) // budget 91: nearest factor 0.9
	b, _ := net.NodeIndex("B")
	later := &engine.Observation{Node: b, Destination: od.Destination, Remaining: 103, Step: 1,
		Prefix: []engine.Step{{Link: net.Out(od.Origin)[0], Time: 5}}}
	m.Act(later)                                                                    // budget 108 = 103 + 5: nearest factor 1.1
	m.Act(&engine.Observation{Node: b, Destination: od.Destination, Remaining: 50}) // B→E is not a covered pair
	if lo.calls != 1 || hi.calls != 1 || other.calls != 1 {
		t.Errorf("calls: 0.9 teacher %d, 1.1 teacher %d, uncovered %d; want 1 each", lo.calls, hi.calls, other.calls)
	}
}

// The labeller acts by rollout's own evidence rule on a registry base (the
// rule chosen on validation pools), by the strict rule on the teachers'
// few draws, and by none when asked for any gain.
func TestLabelZ(t *testing.T) {
	for _, c := range []struct {
		base string
		any  bool
		want float64
	}{
		{TeachersBase, false, policy.RolloutZ},
		{TeachersBase, true, 0},
		{"dot", false, policy.RolloutZFor["dot"]},
		{"cgr", false, policy.RolloutZFor["cgr"]},
		{"dot", true, 0},
	} {
		r := &run{cfg: Config{RolloutBase: c.base, LabelAnyGain: c.any}}
		if got := r.labelZ(); got != c.want {
			t.Errorf("base %s, any gain %v: z %g, want %g", c.base, c.any, got, c.want)
		}
	}
}

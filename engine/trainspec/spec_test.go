package trainspec_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	. "github.com/ontime-routing/ontime/engine/trainspec"
)

func TestWriteTwoBranch(t *testing.T) {
	net, err := builtin.Load("twobranch", "")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := linktime.New(net)
	dir := t.TempDir()
	teacher := policy.NewLET(net)
	s, err := Write(dir, net, m, Options{ODs: net.ODs, BudgetLo: 0.98, BudgetHi: 1.02, ValidationSize: 50,
		Teacher: teacher, TeacherName: "let", Demos: 20})
	if err != nil {
		t.Fatal(err)
	}
	var back Spec
	raw, _ := os.ReadFile(filepath.Join(dir, "spec.json"))
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.Fingerprint != Fingerprint(net, m.Spec) || len(back.Links) != 5 || back.LETTime[0] != 106 || back.StepCap != 4 ||
		len(back.Factor) != 5 || back.LETTo["4"][0] != 106 || math.Abs(back.SlackScale-2) > 1e-9 {
		t.Errorf("spec %+v", back)
	}
	for _, b := range []Blob{s.Validation, s.Demos} {
		st, err := os.Stat(filepath.Join(dir, b.File))
		if err != nil || st.Size() != int64(4*b.Rows*b.Cols) {
			t.Errorf("%s: %v, size %d, want %d", b.File, err, st.Size(), 4*b.Rows*b.Cols)
		}
	}
	// LET's demonstrations: A→B, B→C, then C→E unless the budget is already
	// spent; each action leaves the node reached.
	for i, acts := range back.DemoActions {
		node := back.ODs[0][0]
		for _, a := range acts {
			if back.Links[a][0] != node {
				t.Fatalf("demo %d: action %d does not leave node %d", i, a, node)
			}
			node = back.Links[a][1]
		}
		if len(acts) < 2 || acts[1] != 1 {
			t.Errorf("demo %d: actions %v", i, acts)
		}
	}
}

package trainspec_test

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	. "github.com/ontime-routing/ontime/engine/trainspec"
)

func TestWriteTwoBranch(t *testing.T) {
	net, err := builtin.Load("twobranch", "")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := linktime.New(net)
	dir := t.TempDir()
	s, err := Write(dir, net, m, Options{ODs: net.ODs, BudgetLo: 0.98, BudgetHi: 1.02, ValidationSize: 50})
	if err != nil {
		t.Fatal(err)
	}
	var back Spec
	raw, _ := os.ReadFile(filepath.Join(dir, "spec.json"))
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.Fingerprint != Fingerprint(net, m.Spec) || len(back.Links) != 5 || back.LETTime[0] != 106 || back.StepCap != 4 ||
		len(back.Factor) != 5 || back.LETTo["4"][0] != 106 || math.Abs(back.SlackScale-2) > 1e-9 ||
		!slices.Equal(back.ValidationODs, []int{0}) || !slices.Equal(back.ValidationFactors, []float64{0.98, 1, 1.02}) {
		t.Errorf("spec %+v", back)
	}
	st, err := os.Stat(filepath.Join(dir, s.Validation.File))
	if err != nil || st.Size() != int64(4*s.Validation.Rows*s.Validation.Cols) {
		t.Errorf("%s: %v, want %d bytes", s.Validation.File, err, 4*s.Validation.Rows*s.Validation.Cols)
	}
}

// An episode set is rows of (OD index, budget, realization) as float32 and
// the actions as JSON; values are rounded to float32 when added, so Go
// replays exactly what the trainer reads.
func TestEpisodesRoundTrip(t *testing.T) {
	var e Episodes
	e.Add(3, 101.3, []float64{1.1, 2.2})
	e.Taken = [][]int{{0, 1}}
	e.Labels = [][]int{{0, 0}}
	name := filepath.Join(t.TempDir(), "set")
	if err := e.Write(name); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(name + ".f32")
	if err != nil || len(raw) != 4*4 {
		t.Fatalf("%d bytes, %v", len(raw), err)
	}
	if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4:])); float64(got) != e.Budget[0] || e.X[0][0] != float64(float32(1.1)) {
		t.Errorf("budget %v vs %v, x %v", got, e.Budget[0], e.X[0])
	}
	taken, err := ReadTaken(name + ".json")
	if err != nil || !slices.Equal(taken[0], []int{0, 1}) {
		t.Errorf("taken %v, %v", taken, err)
	}
}

// The spatial factor model reaches the trainer as its K factor columns
// and each link's own deviation: the trainer draws x = μ + F z + idio ⊙ ε.
func TestWriteFactorModel(t *testing.T) {
	net, err := builtin.Load("twobranch", "")
	if err != nil {
		t.Fatal(err)
	}
	net.Correlation = engine.Correlation{Model: linktime.SpatialFactor, Strength: 0.5, Length: 10, Factors: 4}
	m, err := linktime.New(net)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Write(dir, net, m, Options{ODs: net.ODs, BudgetLo: 0.98, BudgetHi: 1.02, ValidationSize: 10}); err != nil {
		t.Fatal(err)
	}
	var back Spec
	raw, _ := os.ReadFile(filepath.Join(dir, "spec.json"))
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Factor) != 5 || len(back.Factor[0]) != 4 || len(back.Idio) != 5 {
		t.Fatalf("factor %d × %d, idio %d", len(back.Factor), len(back.Factor[0]), len(back.Idio))
	}
	for e := range 5 {
		v := back.Idio[e] * back.Idio[e]
		for _, f := range back.Factor[e] {
			v += f * f
		}
		if sd := m.SD[e]; math.Abs(v-sd*sd) > 1e-9*(1+sd*sd) {
			t.Errorf("link %d: factor and own variance %v, want σ² = %v", e, v, sd*sd)
		}
	}
}

package train

import (
	"fmt"
	"math"
	"testing"
)

// The checkpoint rule keeps a later checkpoint only when its paired gain on
// the validation episodes exceeds one paired standard error.
func TestCheckpointRule(t *testing.T) {
	flags := func(bits string) *checkpoint {
		c := &checkpoint{}
		for _, b := range bits {
			c.flags = append(c.flags, uint8(b-'0'))
		}
		return c
	}
	for _, tc := range []struct {
		name       string
		next, best string
		diff       float64
		beats      bool
	}{
		{"identical", "1100110011", "1100110011", 0, false},
		{"two wins, one loss of ten", "1111110010", "1100110011", 0.1, false},  // SE ≈ 0.180
		{"three more wins of ten", "1111110111", "1100110011", 0.3, true},      // SE ≈ 0.153
		{"as many wins, other episodes", "0011001111", "1100110011", 0, false}, // mean 0, SE > 0
		{"worse", "0000000000", "1100110011", -0.6, false},
	} {
		c := compare(flags(tc.next), flags(tc.best))
		if math.Abs(c.Diff-tc.diff) > 1e-12 || beats(c) != tc.beats {
			t.Errorf("%s: %+v, beats %v; want diff %v, beats %v", tc.name, c, beats(c), tc.diff, tc.beats)
		}
	}
	// Two wins, one loss of ten: d has mean 0.1 and sample variance
	// (3 − 10·0.01)/9, so SE = √(0.29/90).
	if c := compare(flags("1111110010"), flags("1100110011")); math.Abs(c.SE-math.Sqrt(2.9/90)) > 1e-12 {
		t.Errorf("SE %v, want %v", c.SE, math.Sqrt(2.9/90))
	}
}

func TestCheckpointLabel(t *testing.T) {
	for name, want := range map[string]string{fmt.Sprintf(roundName, 2): "round 2", "round12": "round 12", "imitation": "the imitation checkpoint", "roundabout": "roundabout", "": ""} {
		if got := CheckpointLabel(name); got != want {
			t.Errorf("CheckpointLabel(%q) = %q, want %q", name, got, want)
		}
	}
}

package palette

import (
	"math"
	"testing"
)

// The ends of the scales: black on white is 21:1, white 1:1, and an hsl
// colour reads as its hex twin; a colour is 0 from itself.
func TestScales(t *testing.T) {
	for _, c := range []struct {
		s    string
		want float64
	}{{"#000000", 21}, {"#ffffff", 1}, {"hsl(0, 100%, 50%)", 3.998}, {"#ff0000", 3.998}} {
		got, err := ContrastOnWhite(c.s)
		if err != nil || math.Abs(got-c.want) > 1e-3 {
			t.Errorf("%s: %.4f %v, want %.3f", c.s, got, err, c.want)
		}
	}
	if d, err := DeltaE("#0072b2", "#0072b2"); err != nil || d != 0 {
		t.Errorf("a colour from itself: %g %v", d, err)
	}
	if _, err := ContrastOnWhite("#12"); err == nil {
		t.Error("a short hex read")
	}
}

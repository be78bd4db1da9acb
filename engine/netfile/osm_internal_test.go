package netfile

import (
	"math"
	"testing"
)

func TestParseMaxSpeed(t *testing.T) {
	for _, c := range []struct {
		in   string
		kmh  float64
		pars bool
	}{
		{"50", 50, true}, {"50 km/h", 50, true}, {"30 mph", 48.28032, true}, {"25mph", 40.2336, true},
		{"50;30", 50, true}, {"none", 0, false}, {"signals", 0, false}, {"RU:urban", 0, false}, {"walk", 0, false},
		{"", 0, false}, {"-5", 0, false}, {"1e9", 0, false},
	} {
		got, ok := parseMaxSpeed(c.in)
		if ok != c.pars || math.Abs(got-c.kmh) > 1e-9 {
			t.Errorf("maxspeed %q: %g %v, want %g %v", c.in, got, ok, c.kmh, c.pars)
		}
	}
}

// The great-circle distance: a degree of longitude on the equator is
// 2πR/360 of the mean radius, and the distance is symmetric.
func TestHaversine(t *testing.T) {
	deg := 2 * math.Pi * 6_371_008.8 / 360
	if d := haversine([2]float64{0, 0}, [2]float64{1, 0}); math.Abs(d-deg) > 1e-6 {
		t.Errorf("a degree on the equator: %.3f m, want %.3f", d, deg)
	}
	a, b := [2]float64{-75.5, 39.1}, [2]float64{-75.4, 39.3}
	if math.Abs(haversine(a, b)-haversine(b, a)) > 1e-9 {
		t.Error("not symmetric")
	}
}

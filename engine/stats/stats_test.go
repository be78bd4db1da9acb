package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// Student's sleep data (Cushny & Peebles, as in Student 1908): extra hours
// of sleep under two drugs in the same ten patients. Reference values worked
// by hand: mean difference 1.58, sd 1.2299, se 0.38895, t = 4.0621 on 9 df,
// two-sided p = 0.002833, 95% interval [0.7001, 2.4599] (t₀.₉₇₅,₉ = 2.2622).
func TestPairedTSleep(t *testing.T) {
	drug1 := []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	drug2 := []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
	r := PairedT(drug2, drug1, 0.95)
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"mean", r.Mean, 1.58, 1e-12},
		{"se", r.SE, 0.388958, 1e-6},
		{"t", r.T, 4.062128, 1e-6},
		{"df", r.DF, 9, 0},
		{"p", r.P, 0.002832890, 1e-8},
		{"low", r.Low, 0.7001142, 1e-6},
		{"high", r.Hi, 2.4598858, 1e-6},
	} {
		if !scalar.EqualWithinAbs(c.got, c.want, c.tol) {
			t.Errorf("%s = %.9g, want %.9g", c.name, c.got, c.want)
		}
	}
	// Swapping the arguments flips the sign and keeps p.
	s := PairedT(drug1, drug2, 0.95)
	if s.Mean != -r.Mean || !scalar.EqualWithinAbs(s.P, r.P, 1e-15) {
		t.Errorf("swapped: mean %v p %v", s.Mean, s.P)
	}
}

// A textbook critical value: t = 2.228 on 10 df is the two-sided 5% point.
func TestPairedTCriticalValue(t *testing.T) {
	// Differences with mean m and sd s over n = 11 pairs give t = m/(s/√11).
	d := []float64{1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 0}
	_, sd := meanSD(d)
	shift := 2.228 * sd / math.Sqrt(11)
	a := make([]float64, len(d))
	for i := range d {
		a[i] = d[i] + shift
	}
	r := PairedT(a, make([]float64, len(d)), 0.95)
	if !scalar.EqualWithinAbs(r.P, 0.05, 2e-4) {
		t.Errorf("p = %.5f, want 0.0500", r.P)
	}
	if !scalar.EqualWithinAbs(r.Low, 0, 2e-4*sd) {
		t.Errorf("interval low end %.6f, want ≈ 0 at the critical value", r.Low)
	}
}

func meanSD(x []float64) (float64, float64) {
	var m, v float64
	for _, xi := range x {
		m += xi
	}
	m /= float64(len(x))
	for _, xi := range x {
		v += (xi - m) * (xi - m)
	}
	return m, math.Sqrt(v / float64(len(x)-1))
}

func TestPairedTDegenerate(t *testing.T) {
	same := PairedT([]float64{0.5, 0.5}, []float64{0.5, 0.5}, 0.95)
	if same.P != 1 || same.Mean != 0 || same.Low != 0 || same.Hi != 0 {
		t.Errorf("identical samples: %+v", same)
	}
	shifted := PairedT([]float64{0.6, 0.7}, []float64{0.5, 0.6}, 0.95)
	if shifted.P != 0 || !scalar.EqualWithinAbs(shifted.Mean, 0.1, 1e-12) {
		t.Errorf("constant shift: %+v", shifted)
	}
}

// Holm by hand: p = (.01, .04, .03, .005) sorted is .005, .01, .03, .04;
// times 4, 3, 2, 1 gives .02, .03, .06, .04; made monotone .02, .03, .06, .06.
func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if !scalar.EqualWithinAbs(got[i], want[i], 1e-15) {
			t.Errorf("Holm[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if got := Holm([]float64{0.3, 0.6}); got[0] != 0.6 || got[1] != 0.6 {
		t.Errorf("Holm caps and orders: %v", got)
	}
	if got := Holm([]float64{0.9, 0.8}); got[0] != 1 || got[1] != 1 {
		t.Errorf("Holm caps at 1: %v", got)
	}
}

func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{50, 100, 0.4038, 0.5962}, // textbook values
		{0, 10, 0, 0.2775},
		{10, 10, 0.7225, 1},
	} {
		lo, hi := Wilson(tc.k, tc.n)
		if !scalar.EqualWithinAbs(lo, tc.lo, 1e-4) || !scalar.EqualWithinAbs(hi, tc.hi, 1e-4) {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", tc.k, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
}

package lab

import (
	"math"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine/linktime"
)

// A dense build's estimate grows with the cube of the link count (among
// sizes one solver decomposes: see linktime.EigenSolver) and, once a build
// has run here, follows what it took.
func TestDenseEstimate(t *testing.T) {
	var r denseRate
	small, measured := r.estimate(1100)
	big, _ := r.estimate(2200)
	if measured || small <= 0 || math.Abs(big.Seconds()/small.Seconds()-8) > 1e-6 {
		t.Fatalf("reference estimates %v (1,100 links), %v (2,200 links), measured %v: want a cube law", small, big, measured)
	}
	if lib := linktime.EigenSolver(1100); lib != "gonum" { // LAPACK's reference above its threshold
		if lo, _ := r.estimate(1000); lo <= small {
			t.Errorf("1,000 links (gonum) estimated %v, 1,100 links (%s) %v: want gonum's slower reference below the threshold", lo, lib, small)
		}
	}
	r.learn(500, time.Hour) // too small to teach anything
	if got, m := r.estimate(1100); got != small || m {
		t.Fatalf("a 500-link build changed the estimate: %v", got)
	}
	r.learn(2000, 80*time.Second)
	if got, m := r.estimate(1000); !m || math.Abs(got.Seconds()-10) > 1e-6 {
		t.Fatalf("after 2,000 links in 80 s, 1,000 links: %v (measured %v), want 10 s", got, m)
	}
	b := ModelBuild{Elapsed: 30 * time.Second, Estimate: 20 * time.Second}
	if f := b.Fraction(); f >= 1 || f < 0.9 {
		t.Errorf("a build past its estimate shows %v, want just under 1", f)
	}
	if f := (ModelBuild{Waiting: true, Estimate: time.Minute}).Fraction(); f != 0 {
		t.Errorf("a waiting build shows %v", f)
	}
}

package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// LooksLonLat on many generated point sets: out of the WGS84 range is
// planar; inside it, geographic unless every point is within NullIsland
// degrees of (0°, 0°), the open sea where planar drawings sit.
func TestLooksLonLatProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 10))
	for trial := range 2000 {
		n := 1 + rng.IntN(20)
		pts := make([][2]float64, n)
		atSea, inRange := true, true
		for i := range pts {
			scale := []float64{2.9, 30, 200}[rng.IntN(3)]
			pts[i] = [2]float64{(2*rng.Float64() - 1) * scale, (2*rng.Float64() - 1) * scale * 0.6}
			x, y := math.Abs(pts[i][0]), math.Abs(pts[i][1])
			inRange = inRange && x <= 180 && y <= 90
			atSea = atSea && x <= NullIsland && y <= NullIsland
		}
		if got, want := LooksLonLat(pts), inRange && !atSea; got != want {
			t.Fatalf("trial %d: LooksLonLat(%v) = %v, want %v", trial, pts, got, want)
		}
	}
	// Berlin Mitte's planar corner, and a real place.
	if LooksLonLat([][2]float64{{1.21106, 2.13814}, {0.753725, 1.33595}}) {
		t.Error("Berlin Mitte's planar drawing read as lon/lat")
	}
	if !LooksLonLat([][2]float64{{-96.77, 43.61}, {-96.70, 43.55}}) {
		t.Error("Sioux Falls read as planar")
	}
}

package policy

import (
	"fmt"
	colorful "github.com/lucasb-eyer/go-colorful"
	"math"
	"strconv"
	"testing"
)

// Every method's colour is a graphic on white: WCAG 2.1's non-text contrast
// (1.4.11) asks for 3:1. Colours of methods also differ from each other to
// the eye: a CIEDE2000 ΔE of at least 16 (fma's #b87c00 beside GPG-HT's
// #d55e00 was 15.9 and read as one orange). cdot, dot's variant, is drawn
// in a near shade of dot's blue on purpose (13.4); the ablations share
// GPG-HT's colour by design.
func TestMethodColoursContrastAndDiffer(t *testing.T) {
	seen := map[string]string{}
	for _, m := range Methods {
		if m.Color == "" {
			t.Errorf("%s has no colour", m.Name)
			continue
		}
		if c := contrastOnWhite(t, m.Color); c < 3 {
			t.Errorf("%s %s: contrast %.2f:1 on white, want ≥ 3", m.Name, m.Color, c)
		}
		if other, ok := seen[m.Color]; ok {
			if m.Kind != Model {
				t.Errorf("%s and %s share %s", m.Name, other, m.Color)
			}
			continue
		}
		for c, other := range seen {
			least := 16.0
			if m.Name+other == "cdotdot" || m.Name+other == "dotcdot" {
				least = 13
			}
			if d := deltaE(t, c, m.Color); d < least {
				t.Errorf("%s %s and %s %s: ΔE2000 %.1f, want ≥ %g", m.Name, m.Color, other, c, d, least)
			}
		}
		seen[m.Color] = m.Name
	}
	// The colours derived for other names (onnx:PATH) contrast at every hue.
	for h := range 360 {
		if c := contrastOnWhite(t, fmt.Sprintf("hsl(%d, 60%%, 30%%)", h)); c < 3 {
			t.Errorf("hue %d: contrast %.2f:1", h, c)
		}
	}
	if got := Color("onnx:x.onnx"); got[:4] != "hsl(" {
		t.Errorf("derived colour %q", got)
	}
}

// linearRGB reads #rrggbb or hsl(H, S%, L%) as linear sRGB.
func linearRGB(t *testing.T, s string) [3]float64 {
	var c [3]float64
	if s[0] == '#' {
		for i := range 3 {
			v, err := strconv.ParseUint(s[1+2*i:3+2*i], 16, 8)
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			c[i] = float64(v) / 255
		}
	} else {
		var h, sat, l float64
		if _, err := fmt.Sscanf(s, "hsl(%g, %g%%, %g%%)", &h, &sat, &l); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		sat, l = sat/100, l/100
		a := sat * math.Min(l, 1-l)
		for i, n := range []float64{0, 8, 4} {
			k := math.Mod(n+h/30, 12)
			c[i] = l - a*math.Max(-1, math.Min(math.Min(k-3, 9-k), 1))
		}
	}
	for i, v := range c {
		if v <= 0.04045 {
			c[i] = v / 12.92
		} else {
			c[i] = math.Pow((v+0.055)/1.055, 2.4)
		}
	}
	return c
}

func contrastOnWhite(t *testing.T, s string) float64 {
	c := linearRGB(t, s)
	y := 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
	return 1.05 / (y + 0.05)
}

// deltaE is the CIEDE2000 distance of two #rrggbb colours (0–100).
func deltaE(t *testing.T, a, b string) float64 {
	x, err1 := colorful.Hex(a)
	y, err2 := colorful.Hex(b)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s, %s: %v %v", a, b, err1, err2)
	}
	return 100 * x.DistanceCIEDE2000(y)
}

package policy

import (
	"fmt"
	"math"
	"strconv"
	"testing"
)

// Every method's colour is a graphic on white: WCAG 2.1's non-text contrast
// (1.4.11) asks for 3:1. Colours of methods also differ from each other by a
// CIE76 ΔE of at least 10 (the ablations share GPG-HT's colour by design).
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
			if d := deltaE(t, c, m.Color); d < 10 {
				t.Errorf("%s %s and %s %s: ΔE %.1f, want ≥ 10", m.Name, m.Color, other, c, d)
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

// deltaE is the CIE76 distance of two colours in CIELAB (D65).
func deltaE(t *testing.T, a, b string) float64 {
	lab := func(s string) [3]float64 {
		c := linearRGB(t, s)
		x := (0.4124*c[0] + 0.3576*c[1] + 0.1805*c[2]) / 0.95047
		y := 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
		z := (0.0193*c[0] + 0.1192*c[1] + 0.9505*c[2]) / 1.08883
		f := func(v float64) float64 {
			if v > 0.008856 {
				return math.Cbrt(v)
			}
			return 7.787*v + 16.0/116
		}
		return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
	}
	p, q := lab(a), lab(b)
	return math.Sqrt((p[0]-q[0])*(p[0]-q[0]) + (p[1]-q[1])*(p[1]-q[1]) + (p[2]-q[2])*(p[2]-q[2]))
}

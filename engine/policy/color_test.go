package policy

import (
	"fmt"
	"testing"

	"github.com/ontime-routing/ontime/internal/palette"
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

func contrastOnWhite(t *testing.T, s string) float64 {
	c, err := palette.ContrastOnWhite(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func deltaE(t *testing.T, a, b string) float64 {
	d, err := palette.DeltaE(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

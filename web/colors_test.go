package web

import (
	"os"
	"regexp"
	"testing"

	colorful "github.com/lucasb-eyer/go-colorful"

	"github.com/ontime-routing/ontime/engine/policy"
)

// The figures' colours for what is not a method (the story's routes, the
// learning curve's budgets) stay apart from every method's colour, so a
// route drawn in blue is never read as dot: CIEDE2000 ≥ 16 from each
// method and from each other, and 3:1 on white like the methods'.
func TestSeriesColoursAreNoMethodsColours(t *testing.T) {
	src, err := os.ReadFile("src/plots.js")
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`SERIES_COLORS = \[([^\]]*)\]`).FindSubmatch(src)
	if decl == nil {
		t.Fatal("src/plots.js declares no SERIES_COLORS")
	}
	hexes := regexp.MustCompile(`#[0-9a-fA-F]{6}`).FindAllString(string(decl[1]), -1)
	if len(hexes) < 2 {
		t.Fatalf("SERIES_COLORS %q", decl[1])
	}
	parse := func(s string) colorful.Color {
		c, err := colorful.Hex(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return c
	}
	for i, h := range hexes {
		c := parse(h)
		r, g, b := c.LinearRgb()
		if ratio := 1.05 / (0.2126*r + 0.7152*g + 0.0722*b + 0.05); ratio < 3 {
			t.Errorf("%s: contrast %.2f:1 on white", h, ratio)
		}
		for _, m := range policy.Methods {
			if m.Color[0] != '#' {
				continue
			}
			if d := 100 * c.DistanceCIEDE2000(parse(m.Color)); d < 16 {
				t.Errorf("series %s and method %s %s: ΔE2000 %.1f, want ≥ 16", h, m.Name, m.Color, d)
			}
		}
		for _, o := range hexes[:i] {
			if d := 100 * c.DistanceCIEDE2000(parse(o)); d < 16 {
				t.Errorf("series %s and %s: ΔE2000 %.1f", h, o, d)
			}
		}
	}
}

package web

import (
	"os"
	"regexp"
	"testing"

	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/internal/palette"
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
	for i, h := range hexes {
		if ratio, err := palette.ContrastOnWhite(h); err != nil || ratio < 3 {
			t.Errorf("%s: contrast %.2f:1 on white (%v)", h, ratio, err)
		}
		for _, m := range policy.Methods {
			if m.Color[0] != '#' {
				continue
			}
			if d, err := palette.DeltaE(h, m.Color); err != nil || d < 16 {
				t.Errorf("series %s and method %s %s: ΔE2000 %.1f, want ≥ 16 (%v)", h, m.Name, m.Color, d, err)
			}
		}
		for _, o := range hexes[:i] {
			if d, err := palette.DeltaE(h, o); err != nil || d < 16 {
				t.Errorf("series %s and %s: ΔE2000 %.1f (%v)", h, o, d, err)
			}
		}
	}
}

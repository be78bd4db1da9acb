// Package palette measures colours as the figures use them: WCAG contrast
// on a white page and CIEDE2000 distance between two colours (the tests
// that keep method and series colours apart read both from here).
package palette

import (
	"fmt"
	"math"
	"strconv"

	colorful "github.com/lucasb-eyer/go-colorful"
)

// ContrastOnWhite is the WCAG 2.1 contrast ratio of #rrggbb or
// hsl(H, S%, L%) against white (1 to 21).
func ContrastOnWhite(s string) (float64, error) {
	c, err := linearRGB(s)
	if err != nil {
		return 0, err
	}
	y := 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
	return 1.05 / (y + 0.05), nil
}

// DeltaE is the CIEDE2000 distance of two #rrggbb colours (0–100).
func DeltaE(a, b string) (float64, error) {
	x, err := colorful.Hex(a)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", a, err)
	}
	y, err := colorful.Hex(b)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", b, err)
	}
	return 100 * x.DistanceCIEDE2000(y), nil
}

// linearRGB reads #rrggbb or hsl(H, S%, L%) as linear sRGB.
func linearRGB(s string) ([3]float64, error) {
	var c [3]float64
	if len(s) == 7 && s[0] == '#' {
		for i := range 3 {
			v, err := strconv.ParseUint(s[1+2*i:3+2*i], 16, 8)
			if err != nil {
				return c, fmt.Errorf("%s: %w", s, err)
			}
			c[i] = float64(v) / 255
		}
	} else {
		var h, sat, l float64
		if _, err := fmt.Sscanf(s, "hsl(%g, %g%%, %g%%)", &h, &sat, &l); err != nil {
			return c, fmt.Errorf("%s: %w", s, err)
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
	return c, nil
}

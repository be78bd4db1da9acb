package netfile

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/simplify"
)

// ShapeToleranceMeters is how far a simplified link shape may stray from
// the road it draws: well under a drawn pixel at a city's zoom, and it
// keeps a state's map small enough to paint at once.
const ShapeToleranceMeters = 2.0

// simplifyShape drops the points of a lon/lat course (ends a and b
// excluded from shape) that lie within ShapeToleranceMeters of the line
// the others draw (Douglas–Peucker, in local metres).
func simplifyShape(a [2]float64, shape [][2]float64, b [2]float64) [][2]float64 {
	if len(shape) == 0 {
		return nil
	}
	k := math.Pi / 180 * 6_371_008.8
	c := math.Cos(a[1] * math.Pi / 180)
	ls := make(orb.LineString, 0, len(shape)+2)
	for _, p := range append(append([][2]float64{a}, shape...), b) {
		ls = append(ls, orb.Point{p[0] * k * c, p[1] * k})
	}
	out := simplify.DouglasPeucker(ShapeToleranceMeters).LineString(ls.Clone())
	if len(out) <= 2 {
		return nil
	}
	// The kept points are the originals: look them up rather than invert
	// the scaling (exact coordinates survive an export).
	res := make([][2]float64, 0, len(out)-2)
	j := 1
	for _, p := range out[1 : len(out)-1] {
		for j < len(ls)-1 && ls[j] != p {
			j++
		}
		res = append(res, shape[j-1])
	}
	return res
}

// parseLineString reads a WKT LINESTRING (GMNS geometry): "LINESTRING (x y,
// x y, ...)", a Z or M value after x y ignored.
func parseLineString(s string) ([][2]float64, error) {
	t := strings.TrimSpace(s)
	up := strings.ToUpper(t)
	if !strings.HasPrefix(up, "LINESTRING") {
		return nil, fmt.Errorf("expected a WKT LINESTRING, got %q", trunc(t))
	}
	t = strings.TrimSpace(t[len("LINESTRING"):])
	for _, tag := range []string{"ZM", "Z", "M"} {
		if len(t) > len(tag) && strings.EqualFold(t[:len(tag)], tag) && (t[len(tag)] == ' ' || t[len(tag)] == '(') {
			t = strings.TrimSpace(t[len(tag):])
			break
		}
	}
	if !strings.HasPrefix(t, "(") || !strings.HasSuffix(t, ")") {
		return nil, fmt.Errorf("a LINESTRING's points go in parentheses: %q", trunc(s))
	}
	var pts [][2]float64
	for i, pt := range strings.Split(t[1:len(t)-1], ",") {
		f := strings.Fields(pt)
		if len(f) < 2 || len(f) > 4 {
			return nil, fmt.Errorf("point %d (%q) is not \"x y\"", i+1, strings.TrimSpace(pt))
		}
		var p [2]float64
		for k := range 2 {
			v, err := strconv.ParseFloat(f[k], 64)
			if err != nil || !finite(v) {
				return nil, fmt.Errorf("point %d: %q is not a number", i+1, f[k])
			}
			p[k] = v
		}
		pts = append(pts, p)
	}
	if len(pts) < 2 {
		return nil, fmt.Errorf("a LINESTRING needs two points, got %d", len(pts))
	}
	return pts, nil
}

// lineStringWKT writes a course from a through shape to b as WKT.
func lineStringWKT(a [2]float64, shape [][2]float64, b [2]float64) string {
	var sb strings.Builder
	sb.WriteString("LINESTRING (")
	for i, p := range append(append([][2]float64{a}, shape...), b) {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.FormatFloat(p[0], 'g', -1, 64))
		sb.WriteByte(' ')
		sb.WriteString(strconv.FormatFloat(p[1], 'g', -1, 64))
	}
	sb.WriteByte(')')
	return sb.String()
}

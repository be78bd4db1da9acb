package server

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"net/http"
	"path"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/internal/csvsafe"
)

// Plots are drawn by gonum/plot as SVG from numbers the engine computed.

// svgBytes draws p as SVG, w × h for the plot itself, with its legend in
// a strip of its own below it: a legend never sits on the data.
func svgBytes(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	return drawPlot(p, w, h, "svg")
}

// drawPlot draws p as "svg" or "png" (legend below the plot).
func drawPlot(p *plot.Plot, w, h vg.Length, format string) ([]byte, error) {
	leg := p.Legend
	p.Legend = plot.NewLegend() // p draws without it; it goes in its strip
	defer func() { p.Legend = leg }()
	leg.Top, leg.Left = true, true
	leg.XOffs, leg.YOffs = vg.Points(8), -vg.Points(4)
	// Rows apart and short thumbnails: scaled to a phone, the default
	// packed rows 13 px apart with thick lines through the labels.
	leg.Padding, leg.ThumbnailWidth = vg.Points(4), vg.Points(18)
	probe := vgsvg.New(w, h)
	r := leg.Rectangle(draw.New(probe))
	strip := r.Size().Y + vg.Points(10)
	var canvas vg.CanvasWriterTo
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.New(w, h+strip)}
	default:
		canvas = vgsvg.New(w, h+strip)
	}
	dc := draw.New(canvas)
	p.Draw(draw.Crop(dc, 0, 0, strip, 0))
	leg.Draw(draw.Crop(dc, 0, 0, 0, -h))
	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func methodColor(name string) color.Color {
	c := policy.Color(name)
	if len(c) == 7 && c[0] == '#' {
		v, err := strconv.ParseUint(c[1:], 16, 32)
		if err == nil {
			return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}
		}
	}
	return color.Gray{90}
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// budgetLine marks the budget on a plot whose y range is [lo, hi].
func budgetLine(p *plot.Plot, budget, lo, hi float64) error {
	return markLine(p, budget, lo, hi, fmt.Sprintf("budget %.2f", budget))
}

// markLine draws a dashed vertical line at x from lo to hi, named in the
// legend: a run's budget (in minutes, or as a factor on the on-time curve).
func markLine(p *plot.Plot, x, lo, hi float64, label string) error {
	l, err := plotter.NewLine(plotter.XYs{{X: x, Y: lo}, {X: x, Y: hi}})
	if err != nil {
		return err
	}
	l.Color, l.Dashes, l.Width = color.Black, []vg.Length{vg.Points(4), vg.Points(3)}, vg.Points(1.5)
	p.Add(l)
	p.Legend.Add(label, l)
	return nil
}

// levelLine draws a dotted on-time level across the curve's factors.
func levelLine(p *plot.Plot, level, lo, hi float64) error {
	l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: level}, {X: hi, Y: level}})
	if err != nil {
		return err
	}
	l.Color, l.Dashes, l.Width = color.Gray{Y: 110}, []vg.Length{vg.Points(1), vg.Points(3)}, vg.Points(1.2)
	p.Add(l)
	p.Legend.Add(fmt.Sprintf("P(on time) = %.2f", level), l)
	return nil
}

func plotutilColor(k int) color.Color {
	pal := []color.RGBA{{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255}}
	return pal[k%len(pal)]
}

// layered is the width of the i-th of n lines drawn over each other: the
// first widest, the last narrowest, so two methods with the same curve
// (dot and cgr often) show as a line inside another, not one hiding the
// other.
func layered(i, n int) vg.Length {
	if n < 2 {
		return vg.Points(1.5)
	}
	return vg.Points(1.2 + 2.8*float64(n-1-i)/float64(n-1))
}

// addLine adds a method's line (with its points when dots) in its colour
// and returns the line, for its caller to restyle.
func addLine(p *plot.Plot, method string, xy plotter.XYs, dots bool) (*plotter.Line, error) {
	l, pts, err := plotter.NewLinePoints(xy)
	if err != nil {
		return nil, err
	}
	l.Color, l.Width = methodColor(method), vg.Points(1.5)
	if !dots {
		p.Add(l)
		p.Legend.Add(method, l)
		return l, nil
	}
	pts.Color, pts.Shape = methodColor(method), draw.CircleGlyph{}
	p.Add(l, pts)
	p.Legend.Add(method, l, pts)
	return l, nil
}

func seriesXYs(s lab.Series) plotter.XYs {
	xy := make(plotter.XYs, len(s.Points))
	for i, p := range s.Points {
		xy[i] = plotter.XY{X: p.X, Y: p.Y}
	}
	return xy
}

// liveSize is the live figures' drawing size; liveNarrowSize a phone's: a
// figure drawn at the desktop's size and shrunk to a 390-px screen set its
// text at 8-9 px, drawn narrower it reads at about 13.
var (
	liveSize       = [2]vg.Length{6 * vg.Inch, 3.5 * vg.Inch}
	liveNarrowSize = [2]vg.Length{3.8 * vg.Inch, 3.2 * vg.Inch}
)

// csvText is rows as CSV.
func csvText(rows [][]string) string {
	var b bytes.Buffer
	cw := csvsafe.NewWriter(&b)
	cw.WriteAll(rows)
	return b.String()
}

// figureSize is a figure's drawing size; a benchmark's chart is wider
// (several methods side by side at each budget).
var (
	figureSize = [2]vg.Length{7 * vg.Inch, 3.5 * vg.Inch}
	chartSize  = [2]vg.Length{10 * vg.Inch, 4.5 * vg.Inch}
)

// figure answers a figure as NAME.svg, NAME.png (the same drawing) or
// NAME.csv (its data), as the file's extension asks.
func (s *server) figure(w http.ResponseWriter, r *http.Request, file string, size [2]vg.Length, build func() (*plot.Plot, error), data func(io.Writer) error) {
	ext := path.Ext(file)
	switch ext {
	case ".svg", ".png":
		p, err := build()
		if err != nil {
			s.fail(w, r, err)
			return
		}
		b, err := drawPlot(p, size[0], size[1], ext[1:])
		if err != nil {
			s.fail(w, r, err)
			return
		}
		w.Header().Set("Content-Type", map[string]string{".svg": "image/svg+xml", ".png": "image/png"}[ext])
		w.Write(b)
	case ".csv":
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="ontime-%s"`, file))
		data(w)
	default:
		s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "figures are .svg, .png or .csv files"))
	}
}

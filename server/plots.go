package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"net/http"
	"path"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
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

// trainingCurve plots a model card's validation curve.
func trainingCurve(card *policy.ModelCard) (*plot.Plot, error) {
	x := "policy-gradient iteration" // older cards
	if len(card.Rounds) > 0 {
		x = "checkpoint (0: imitation, then each round)"
	}
	// The budgets' rates lie tenths apart and training moves them by
	// thousandths: each curve is drawn as its change from the imitation
	// checkpoint (the dotted zero line), so the change is what shows.
	p := newPlot("Validation on-time rate: change since the imitation checkpoint", x, "Δ on-time rate")
	if len(card.Curve) == 0 {
		return p, nil
	}
	first := card.Curve[0]
	lo, hi := 0.0, 0.0
	for k, f := range card.ValidationFactors {
		if k >= len(first.Validation) {
			continue
		}
		var xy plotter.XYs
		for _, c := range card.Curve {
			if k < len(c.Validation) {
				d := c.Validation[k] - first.Validation[k]
				lo, hi = math.Min(lo, d), math.Max(hi, d)
				xy = append(xy, plotter.XY{X: float64(c.Iteration), Y: d})
			}
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = plotutilColor(k), vg.Points(1.5)
		pts.Color, pts.Radius = plotutilColor(k), vg.Points(2)
		p.Add(l, pts)
		p.Legend.Add(fmt.Sprintf("budget %.2f × LET (imitation: %.4f)", f, first.Validation[k]), l, pts)
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: float64(first.Iteration), Y: 0}, {X: float64(card.Curve[len(card.Curve)-1].Iteration), Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.Color, zero.Width, zero.Dashes = color.Black, vg.Points(1), []vg.Length{vg.Points(1), vg.Points(3)}
	p.Add(zero)
	p.Legend.Add("the imitation checkpoint's level", zero)
	pad := math.Max((hi-lo)*0.1, 0.001)
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	return p, nil
}

// trainingCSV is the data of trainingCurve.
func trainingCSV(card *policy.ModelCard, w io.Writer) error {
	cw := csvsafe.NewWriter(w)
	cw.Write([]string{"checkpoint", "budget_factor", "validation_on_time_rate", "change_since_imitation"})
	for _, c := range card.Curve {
		for k, v := range c.Validation {
			if k < len(card.ValidationFactors) && k < len(card.Curve[0].Validation) {
				cw.Write([]string{strconv.Itoa(c.Iteration), strconv.FormatFloat(card.ValidationFactors[k], 'f', -1, 64), strconv.FormatFloat(v, 'f', -1, 64),
					strconv.FormatFloat(v-card.Curve[0].Validation[k], 'f', 6, 64)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func plotutilColor(k int) color.Color {
	pal := []color.RGBA{{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255}}
	return pal[k%len(pal)]
}

// liveFigure is one of a live run's figures: its SVG and the data drawn, as
// CSV (the engine computed both from the same numbers).
type liveFigure struct {
	SVG []byte
	CSV string
}

// livePlots draws a live run's figures (lab computes their data): the
// arrival-time histogram and CDF of each method with the budget marked, and
// the on-time rate against the budget factor (none with one factor).
func livePlots(fig *lab.LiveFigures, size [2]vg.Length) (hist, cdf, curve liveFigure, err error) {
	ph := newPlot("Arrival times", "time (min)", "share of episodes")
	for i, h := range fig.Histogram {
		var xy plotter.XYs // a step outline, so overlaid methods stay readable
		for b, y := range h.Shares {
			x := fig.From + float64(b)*fig.Width
			xy = append(xy, plotter.XY{X: x, Y: y}, plotter.XY{X: x + fig.Width, Y: y})
		}
		l, err := addLine(ph, h.Method, xy, false)
		if err != nil {
			return hist, cdf, curve, err
		}
		l.Width = layered(i, len(fig.Histogram))
	}
	ph.Y.Min, ph.Y.Max = 0, fig.HistTop*1.05
	if err := budgetLine(ph, fig.Budget, 0, fig.HistTop); err != nil {
		return hist, cdf, curve, err
	}
	pc := newPlot("Arrival-time CDF", "time (min)", "P(time ≤ t)")
	for i, s := range fig.CDF {
		l, err := addLine(pc, s.Method, seriesXYs(s), false)
		if err != nil {
			return hist, cdf, curve, err
		}
		l.Width = layered(i, len(fig.CDF))
	}
	if err := budgetLine(pc, fig.Budget, 0, 1); err != nil {
		return hist, cdf, curve, err
	}
	pc.Y.Min, pc.Y.Max = 0, 1
	if hist, err = liveDrawing(ph, fig, "histogram", size); err != nil {
		return hist, cdf, curve, err
	}
	if cdf, err = liveDrawing(pc, fig, "cdf", size); err != nil {
		return hist, cdf, curve, err
	}
	if len(fig.Curve) == 0 {
		curve.CSV, err = figureCSV(fig, "curve")
		return hist, cdf, curve, err
	}
	pf := newPlot("On-time rate against the budget", "budget factor (× LET time)", "on-time rate")
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, s := range fig.Curve {
		l, err := addLine(pf, s.Method, seriesXYs(s), true)
		if err != nil {
			return hist, cdf, curve, err
		}
		l.Width = layered(i, len(fig.Curve))
		if s.CI != nil { // each point's 95% interval, in the line's colour
			bars, err := plotter.NewYErrorBars(ciPoints(s))
			if err != nil {
				return hist, cdf, curve, err
			}
			bars.LineStyle.Color, bars.LineStyle.Width = l.Color, vg.Points(1)
			pf.Add(bars)
		}
		for _, p := range s.Points {
			lo, hi = math.Min(lo, p.X), math.Max(hi, p.X)
		}
	}
	// The run's own budget, and the 95% level a plan most often asks
	// for, so that a reader finds where the curve crosses it.
	if err := markLine(pf, fig.Factor, 0, 1, fmt.Sprintf("this run's budget, %.2f × LET", fig.Factor)); err != nil {
		return hist, cdf, curve, err
	}
	if err := levelLine(pf, 0.95, lo, hi); err != nil {
		return hist, cdf, curve, err
	}
	// Even ticks, one a factor, labelled every 0.1 (gonum's own were
	// uneven); a margin past the last so its label is not cut.
	var ticks []plot.Tick
	for x := math.Round(lo*20) / 20; x <= hi+1e-9; x += 0.05 {
		t := plot.Tick{Value: x}
		if math.Abs(x*10-math.Round(x*10)) < 1e-6 {
			t.Label = strconv.FormatFloat(x, 'f', 1, 64)
		}
		ticks = append(ticks, t)
	}
	pf.X.Tick.Marker = plot.ConstantTicks(ticks)
	pf.X.Min, pf.X.Max = math.Min(lo, fig.Factor)-0.04*(hi-lo), math.Max(hi, fig.Factor)+0.1*(hi-lo)
	pf.Y.Min, pf.Y.Max = 0, 1
	curve, err = liveDrawing(pf, fig, "curve", size)
	return hist, cdf, curve, err
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

// liveDrawing is one live figure: p as SVG and the figure's CSV.
func liveDrawing(p *plot.Plot, fig *lab.LiveFigures, name string, size [2]vg.Length) (liveFigure, error) {
	b, err := svgBytes(p, size[0], size[1])
	if err != nil {
		return liveFigure{}, err
	}
	text, err := figureCSV(fig, name)
	return liveFigure{SVG: b, CSV: text}, err
}

// figureCSV is a live figure's data as CSV text.
func figureCSV(fig *lab.LiveFigures, name string) (string, error) {
	rows, err := fig.CSV(name)
	if err != nil {
		return "", err
	}
	return csvText(rows), nil
}

// csvText is rows as CSV.
func csvText(rows [][]string) string {
	var b bytes.Buffer
	cw := csvsafe.NewWriter(&b)
	cw.WriteAll(rows)
	return b.String()
}

// jobCurve draws a training job's learning curve so far: each validated
// checkpoint's on-time rate per validation factor, the chosen teachers'
// level dashed and the imitation checkpoint's dotted, on an axis zoomed to
// the data (the differences are a few thousandths).
func jobCurve(raw []json.RawMessage) (*plot.Plot, error) {
	pts := curvePoints(raw)
	p := newPlot("Validation on-time rate so far", "checkpoint (0: imitation, then each round or chunk)", "on-time rate")
	if len(pts) == 0 {
		p.Title.Text = "Waiting for the first validated checkpoint"
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
		return p, nil
	}
	lo, hi := 1.0, 0.0
	var teacher, imitation []float64
	lines := map[int]plotter.XYs{}
	x := 0
	for _, pt := range pts {
		switch pt.Kind {
		case "teacher":
			teacher = pt.Rates
		default:
			if pt.Kind == "imitation" {
				imitation = pt.Rates
			}
			for k, r := range pt.Rates {
				lines[k] = append(lines[k], plotter.XY{X: float64(x), Y: r})
			}
			x++
		}
		for _, r := range pt.Rates {
			lo, hi = math.Min(lo, r), math.Max(hi, r)
		}
	}
	factors := pts[0].Factors
	last := math.Max(float64(x-1), 1)
	level := func(y float64, k int, dashes []vg.Length) (*plotter.Line, error) {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: y}, {X: last, Y: y}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = plotutilColor(k), vg.Points(1), dashes
		p.Add(l)
		return l, nil
	}
	if len(lines) == 0 {
		// Only the teachers' level so far (imitation is fitting): drawn, as
		// the caption promises, with the wait said in the title.
		p.Title.Text = "The teachers' level; waiting for the imitation checkpoint"
	}
	for k := range max(len(lines), len(teacher)) {
		name := fmt.Sprintf("factor %d", k+1)
		if k < len(factors) {
			name = fmt.Sprintf("budget %.2f × LET", factors[k])
		}
		if k < len(lines) {
			l, dots, err := plotter.NewLinePoints(lines[k])
			if err != nil {
				return nil, err
			}
			l.Color, l.Width = plotutilColor(k), vg.Points(1.5)
			dots.Color, dots.Radius = plotutilColor(k), vg.Points(2.5)
			p.Add(l, dots)
			p.Legend.Add(name, l)
		}
		if k < len(teacher) {
			l, err := level(teacher[k], k, []vg.Length{vg.Points(6), vg.Points(3)})
			if err != nil {
				return nil, err
			}
			if k >= len(lines) {
				p.Legend.Add(name+": the teachers' level", l)
			}
		}
		if k < len(imitation) {
			if _, err := level(imitation[k], k, []vg.Length{vg.Points(1), vg.Points(3)}); err != nil {
				return nil, err
			}
		}
	}
	pad := math.Max((hi-lo)*0.15, 0.002)
	p.Y.Min, p.Y.Max = math.Max(0, lo-pad), math.Min(1, hi+pad)
	p.X.Min, p.X.Max = 0, last
	return p, nil
}

func curvePoints(raw []json.RawMessage) []lab.CurvePoint {
	var pts []lab.CurvePoint
	for _, r := range raw {
		var pt lab.CurvePoint
		if json.Unmarshal(r, &pt) == nil && len(pt.Rates) > 0 {
			pts = append(pts, pt)
		}
	}
	return pts
}

// jobCSV is the data of jobCurve: every validated point in order.
func jobCSV(raw []json.RawMessage, w io.Writer) error {
	cw := csvsafe.NewWriter(w)
	cw.Write([]string{"point", "kind", "name", "budget_factor", "on_time_rate", "elapsed_seconds"})
	for i, pt := range curvePoints(raw) {
		for k, r := range pt.Rates {
			f := ""
			if k < len(pt.Factors) {
				f = strconv.FormatFloat(pt.Factors[k], 'f', -1, 64)
			}
			cw.Write([]string{strconv.Itoa(i), pt.Kind, pt.Name, f, strconv.FormatFloat(r, 'f', -1, 64), strconv.FormatFloat(pt.Elapsed, 'f', 1, 64)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// chartSlots places a budget's methods side by side: those tied with the
// best first, in the report's order, then a free slot, then the rest in the
// report's order (a place says which group a method is in, not a rank).
func chartSlots(row []bench.Cell) []int {
	slots := make([]int, len(row))
	next := 0
	for i, c := range row {
		if c.Mark == bench.Tied {
			slots[i] = next
			next++
		}
	}
	if next > 0 && next < len(row) {
		next++
	}
	for i, c := range row {
		if c.Mark != bench.Tied {
			slots[i] = next
			next++
		}
	}
	return slots
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

// benchChart draws a benchmark's table as the paired tests read it: at each
// budget, each method's mean with its 95% interval over pools, side by side
// (nudged apart so that intervals do not hide each other), and a grey box
// marked ≈ around the methods the tests cannot separate from the best,
// placed together (chartSlots). No
// line joins a method's points: lines read as ordered curves, and drew a
// ranking where the tests found none. A best method the tests separate is
// ringed; bounds (which know every time in advance) are hollow squares.
func benchChart(rep *bench.Report) (*plot.Plot, error) {
	p := newPlot("On-time rate against the budget: mean over OD pairs and pools, 95% interval", "budget factor (× LET time)", "on-time rate")
	lo, hi := 1.0, 0.0
	spread := 0.02 // with one budget; else 0.5 of the budgets' spacing
	if len(rep.Budgets) > 1 {
		spread = (rep.Budgets[len(rep.Budgets)-1] - rep.Budgets[0]) / float64(len(rep.Budgets)-1) * 0.5
	}
	rows := make([][]bench.Cell, len(rep.Budgets))
	slots := make([][]int, len(rep.Budgets)) // each method's place at a budget
	for k, b := range rep.Budgets {
		rows[k] = rep.SummaryRow(b)
		slots[k] = chartSlots(rows[k])
		for _, c := range rows[k] {
			lo, hi = math.Min(lo, c.Mean), math.Max(hi, c.Mean)
			if c.High == c.High { // NaN with one pool
				lo, hi = math.Min(lo, c.Low), math.Max(hi, c.High)
			}
		}
	}
	pad := math.Max((hi-lo)*0.12, 0.01)
	// The ≈ groups first, under the points.
	var tieLabels plotter.XYLabels
	dx := func(k, i int) float64 {
		n := slices.Max(slots[k])
		if n == 0 {
			return 0
		}
		return spread * (float64(slots[k][i])/float64(n) - 0.5)
	}
	for k, b := range rep.Budgets {
		x0, x1, y0, y1, n := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1), 0
		for i, c := range rows[k] {
			if c.Mark != bench.Tied {
				continue
			}
			n++
			x0, x1 = math.Min(x0, b+dx(k, i)), math.Max(x1, b+dx(k, i))
			low, high := c.Mean, c.Mean
			if c.High == c.High {
				low, high = c.Low, c.High
			}
			y0, y1 = math.Min(y0, low), math.Max(y1, high)
		}
		if n < 2 {
			continue
		}
		w := spread / float64(2*len(rep.Methods))
		y0, y1 = y0-pad*0.2, y1+pad*0.2 // visible even where the intervals are tiny
		box, err := plotter.NewPolygon(plotter.XYs{{X: x0 - w, Y: y0}, {X: x1 + w, Y: y0}, {X: x1 + w, Y: y1}, {X: x0 - w, Y: y1}})
		if err != nil {
			return nil, err
		}
		box.Color, box.LineStyle.Width = color.Gray{Y: 215}, 0
		p.Add(box)
		if len(tieLabels.XYs) == 0 {
			p.Legend.Add("≈ not separated from the best (paired tests, Holm 5%)", box)
		}
		tieLabels.XYs = append(tieLabels.XYs, plotter.XY{X: (x0 + x1) / 2, Y: y1 + pad*0.05})
		tieLabels.Labels = append(tieLabels.Labels, "≈")
	}
	if len(tieLabels.XYs) > 0 {
		labels, err := plotter.NewLabels(tieLabels)
		if err != nil {
			return nil, err
		}
		for i := range labels.TextStyle {
			labels.TextStyle[i].XAlign, labels.TextStyle[i].Font.Size = draw.XCenter, vg.Points(12)
		}
		p.Add(labels)
	}
	for i, m := range rep.Methods {
		var xy, best plotter.XYs
		var errs plotter.YErrors
		for k, b := range rep.Budgets {
			c := rows[k][i]
			xy = append(xy, plotter.XY{X: b + dx(k, i), Y: c.Mean})
			e := struct{ Low, High float64 }{}
			if c.High == c.High {
				e.Low, e.High = c.Mean-c.Low, c.High-c.Mean
			}
			errs = append(errs, e)
			if c.Mark == bench.Best {
				best = append(best, xy[len(xy)-1])
			}
		}
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYer
			plotter.YErrorer
		}{xy, errs})
		if err != nil {
			return nil, err
		}
		bars.Color, bars.Width = methodColor(m), vg.Points(1.2)
		pts, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		pts.Color, pts.Shape, pts.Radius = methodColor(m), draw.CircleGlyph{}, vg.Points(3)
		if rep.IsBound(m) {
			pts.Shape = draw.SquareGlyph{}
		}
		p.Add(bars, pts)
		p.Legend.Add(m, pts)
		if len(best) > 0 {
			ring, err := plotter.NewScatter(best)
			if err != nil {
				return nil, err
			}
			ring.Color, ring.Shape, ring.Radius = color.Black, draw.RingGlyph{}, vg.Points(6)
			p.Add(ring)
		}
	}
	p.Y.Min, p.Y.Max = math.Max(0, lo-pad), math.Min(1, hi+pad)
	// A tick at each budget, written as the table writes it (gonum's own
	// ticks wrote 1.05 as "1.1").
	var ticks []plot.Tick
	for _, b := range rep.Budgets {
		ticks = append(ticks, plot.Tick{Value: b, Label: strconv.FormatFloat(b, 'f', 2, 64)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = rep.Budgets[0]-spread, rep.Budgets[len(rep.Budgets)-1]+spread
	return p, nil
}

// ciPoints are a series' points with their intervals, as plotter's error
// bars read them.
type ciPoints lab.Series

func (c ciPoints) Len() int                    { return len(c.Points) }
func (c ciPoints) XY(i int) (float64, float64) { return c.Points[i].X, c.Points[i].Y }
func (c ciPoints) YError(i int) (float64, float64) {
	return c.Points[i].Y - c.CI[i][0], c.CI[i][1] - c.Points[i].Y
}

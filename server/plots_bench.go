// A benchmark's chart: rates against the budget, each with its interval.

package server

import (
	"image/color"
	"math"
	"slices"
	"strconv"

	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/lab"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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
	lay := newChartLayout(rep)
	if err := addTieBoxes(p, rep, lay); err != nil { // the ≈ groups first, under the points
		return nil, err
	}
	for i, m := range rep.Methods {
		if err := addMethodSeries(p, rep, lay, i, m); err != nil {
			return nil, err
		}
	}
	p.Y.Min, p.Y.Max = math.Max(0, lay.lo-lay.pad), math.Min(1, lay.hi+lay.pad)
	// A tick at each budget, written as the table writes it (gonum's own
	// ticks wrote 1.05 as "1.1").
	var ticks []plot.Tick
	for _, b := range rep.Budgets {
		ticks = append(ticks, plot.Tick{Value: b, Label: strconv.FormatFloat(b, 'f', 2, 64)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = rep.Budgets[0]-lay.spread, rep.Budgets[len(rep.Budgets)-1]+lay.spread
	return p, nil
}

// chartLayout is where the chart puts things: each budget's row of cells,
// each method's slot beside the budget (so that intervals do not hide one
// another), the spread of the slots and the rates' range with its pad.
type chartLayout struct {
	rows        [][]bench.Cell
	slots       [][]int
	spread      float64
	lo, hi, pad float64
}

func newChartLayout(rep *bench.Report) chartLayout {
	lay := chartLayout{lo: 1, hi: 0, spread: 0.02} // spread with one budget; else half the budgets' spacing
	if len(rep.Budgets) > 1 {
		lay.spread = (rep.Budgets[len(rep.Budgets)-1] - rep.Budgets[0]) / float64(len(rep.Budgets)-1) * 0.5
	}
	for _, row := range rep.Table().Summary {
		lay.rows = append(lay.rows, row)
		lay.slots = append(lay.slots, chartSlots(row))
		for _, c := range row {
			lay.lo, lay.hi = math.Min(lay.lo, c.Mean), math.Max(lay.hi, c.Mean)
			if c.High == c.High { // NaN with one pool
				lay.lo, lay.hi = math.Min(lay.lo, c.Low), math.Max(lay.hi, c.High)
			}
		}
	}
	lay.pad = math.Max((lay.hi-lay.lo)*0.12, 0.01)
	return lay
}

// dx is method i's offset from budget k's tick.
func (lay chartLayout) dx(k, i int) float64 {
	n := slices.Max(lay.slots[k])
	if n == 0 {
		return 0
	}
	return lay.spread * (float64(lay.slots[k][i])/float64(n) - 0.5)
}

// span is a cell's interval, or its mean alone with one pool.
func span(c bench.Cell) (low, high float64) {
	if c.High == c.High {
		return c.Low, c.High
	}
	return c.Mean, c.Mean
}

// addTieBoxes draws, at each budget, a grey box with "≈" around the
// methods the paired tests do not separate from the best.
func addTieBoxes(p *plot.Plot, rep *bench.Report, lay chartLayout) error {
	var tieLabels plotter.XYLabels
	for k, b := range rep.Budgets {
		x0, x1, y0, y1, n := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1), 0
		for i, c := range lay.rows[k] {
			if c.Mark != bench.Tied {
				continue
			}
			n++
			x0, x1 = math.Min(x0, b+lay.dx(k, i)), math.Max(x1, b+lay.dx(k, i))
			low, high := span(c)
			y0, y1 = math.Min(y0, low), math.Max(y1, high)
		}
		if n < 2 {
			continue
		}
		w := lay.spread / float64(2*len(rep.Methods))
		y0, y1 = y0-lay.pad*0.2, y1+lay.pad*0.2 // visible even where the intervals are tiny
		box, err := plotter.NewPolygon(plotter.XYs{{X: x0 - w, Y: y0}, {X: x1 + w, Y: y0}, {X: x1 + w, Y: y1}, {X: x0 - w, Y: y1}})
		if err != nil {
			return err
		}
		box.Color, box.LineStyle.Width = color.Gray{Y: 215}, 0
		p.Add(box)
		if len(tieLabels.XYs) == 0 {
			p.Legend.Add("≈ not separated from the best (paired tests, Holm 5%)", box)
		}
		tieLabels.XYs = append(tieLabels.XYs, plotter.XY{X: (x0 + x1) / 2, Y: y1 + lay.pad*0.05})
		tieLabels.Labels = append(tieLabels.Labels, "≈")
	}
	if len(tieLabels.XYs) == 0 {
		return nil
	}
	labels, err := plotter.NewLabels(tieLabels)
	if err != nil {
		return err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].XAlign, labels.TextStyle[i].Font.Size = draw.XCenter, vg.Points(12)
	}
	p.Add(labels)
	return nil
}

// addMethodSeries draws method m (the i-th): its rate at each budget with
// its interval, a square for a bound, a ring where it is the best.
func addMethodSeries(p *plot.Plot, rep *bench.Report, lay chartLayout, i int, m string) error {
	var xy, best plotter.XYs
	var errs plotter.YErrors
	for k, b := range rep.Budgets {
		c := lay.rows[k][i]
		xy = append(xy, plotter.XY{X: b + lay.dx(k, i), Y: c.Mean})
		low, high := span(c)
		errs = append(errs, struct{ Low, High float64 }{c.Mean - low, high - c.Mean})
		if c.Mark == bench.Best {
			best = append(best, xy[len(xy)-1])
		}
	}
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{xy, errs})
	if err != nil {
		return err
	}
	bars.Color, bars.Width = methodColor(m), vg.Points(1.2)
	pts, err := plotter.NewScatter(xy)
	if err != nil {
		return err
	}
	pts.Color, pts.Shape, pts.Radius = methodColor(m), draw.CircleGlyph{}, vg.Points(3)
	if rep.IsBound(m) {
		pts.Shape = draw.SquareGlyph{}
	}
	p.Add(bars, pts)
	p.Legend.Add(m, pts)
	if len(best) == 0 {
		return nil
	}
	ring, err := plotter.NewScatter(best)
	if err != nil {
		return err
	}
	ring.Color, ring.Shape, ring.Radius = color.Black, draw.RingGlyph{}, vg.Points(6)
	p.Add(ring)
	return nil
}

// ciPoints are a series' points with their intervals, as plotter's error
// bars read them.
type ciPoints lab.Series

func (c ciPoints) Len() int { return len(c.Points) }

func (c ciPoints) XY(i int) (float64, float64) { return c.Points[i].X, c.Points[i].Y }

func (c ciPoints) YError(i int) (float64, float64) {
	return c.Points[i].Y - c.CI[i][0], c.CI[i][1] - c.Points[i].Y
}

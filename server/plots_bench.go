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

func (c ciPoints) Len() int { return len(c.Points) }

func (c ciPoints) XY(i int) (float64, float64) { return c.Points[i].X, c.Points[i].Y }

func (c ciPoints) YError(i int) (float64, float64) {
	return c.Points[i].Y - c.CI[i][0], c.CI[i][1] - c.Points[i].Y
}

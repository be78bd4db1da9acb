// Live's figures: the arrival-time histogram and CDF and the rate curve.

package server

import (
	"fmt"
	"math"
	"strconv"

	"github.com/ontime-routing/ontime/engine/lab"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

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

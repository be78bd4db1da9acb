package server

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ontime-routing/ontime/engine/lab"
)

// Plots are drawn by gonum/plot as SVG from numbers the engine computed.

func svgBytes(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	wt, err := p.WriterTo(w, h, "svg")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func methodColor(name string) color.Color {
	c := lab.Color(name)
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
	l, err := plotter.NewLine(plotter.XYs{{X: budget, Y: lo}, {X: budget, Y: hi}})
	if err != nil {
		return err
	}
	l.Color, l.Dashes, l.Width = color.Black, []vg.Length{vg.Points(4), vg.Points(3)}, vg.Points(1.5)
	p.Add(l)
	p.Legend.Add(fmt.Sprintf("budget %.2f", budget), l)
	return nil
}

// trainingCurve plots a model card's validation curve.
func trainingCurve(card *lab.ModelCard) ([]byte, error) {
	x := "policy-gradient iteration" // older cards
	if len(card.Rounds) > 0 {
		x = "checkpoint (0: imitation, then each round)"
	}
	p := newPlot("Validation on-time rate during training", x, "on-time rate")
	for k, f := range card.ValidationFactors {
		var xy plotter.XYs
		for _, c := range card.Curve {
			if k < len(c.Validation) {
				xy = append(xy, plotter.XY{X: float64(c.Iteration), Y: c.Validation[k]})
			}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		l.Color = plotutilColor(k)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("budget %.2f × LET", f), l)
	}
	// Headroom above 1 keeps the legend off the curves.
	p.Y.Min, p.Y.Max = 0, 1.3
	return svgBytes(p, 7*vg.Inch, 3.5*vg.Inch)
}

func plotutilColor(k int) color.Color {
	pal := []color.RGBA{{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255}}
	return pal[k%len(pal)]
}

// livePlots draws the arrival-time histogram and CDF of each method with the
// budget marked, and the on-time rate against the budget factor.
func livePlots(res *lab.LiveResult, methods []string) (hist, cdf, curve []byte, err error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range methods {
		for _, t := range res.Times[m] {
			lo, hi = math.Min(lo, t), math.Max(hi, t)
		}
	}
	if math.IsInf(lo, 0) {
		return nil, nil, nil, fmt.Errorf("no episodes to plot")
	}
	lo, hi = math.Min(lo, res.Budget), math.Max(hi, res.Budget)
	const bins = 40
	width := (hi - lo) / bins
	if width <= 0 {
		width = 1
	}
	ph := newPlot("Arrival times", "time (min)", "share of episodes")
	pc := newPlot("Arrival-time CDF", "time (min)", "P(time ≤ t)")
	top := 0.0
	for _, m := range methods {
		ts := res.Times[m]
		if len(ts) == 0 {
			continue
		}
		counts := make([]float64, bins)
		for _, t := range ts {
			counts[min(bins-1, int((t-lo)/width))]++
		}
		var xy plotter.XYs // a step outline, so overlaid methods stay readable
		for b, c := range counts {
			y := c / float64(len(ts))
			top = math.Max(top, y)
			xy = append(xy, plotter.XY{X: lo + float64(b)*width, Y: y}, plotter.XY{X: lo + float64(b+1)*width, Y: y})
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, nil, nil, err
		}
		l.Color, l.Width = methodColor(m), vg.Points(1.5)
		ph.Add(l)
		ph.Legend.Add(m, l)

		sorted := slices.Clone(ts)
		slices.Sort(sorted)
		var cxy plotter.XYs
		step := max(1, len(sorted)/400)
		for i := 0; i < len(sorted); i += step {
			cxy = append(cxy, plotter.XY{X: sorted[i], Y: float64(i+1) / float64(len(sorted))})
		}
		cxy = append(cxy, plotter.XY{X: sorted[len(sorted)-1], Y: 1})
		cl, err := plotter.NewLine(cxy)
		if err != nil {
			return nil, nil, nil, err
		}
		cl.Color, cl.Width = methodColor(m), vg.Points(1.5)
		pc.Add(cl)
		pc.Legend.Add(m, cl)
	}
	ph.Y.Min, ph.Y.Max = 0, top*1.45 // headroom for the legend
	if err := budgetLine(ph, res.Budget, 0, top); err != nil {
		return nil, nil, nil, err
	}
	if err := budgetLine(pc, res.Budget, 0, 1); err != nil {
		return nil, nil, nil, err
	}
	pc.Legend.Top, pc.Legend.Left = false, false
	if hist, err = svgBytes(ph, 6*vg.Inch, 3.5*vg.Inch); err != nil {
		return nil, nil, nil, err
	}
	if cdf, err = svgBytes(pc, 6*vg.Inch, 3.5*vg.Inch); err != nil {
		return nil, nil, nil, err
	}
	if len(res.Factors) > 1 {
		pf := newPlot("On-time probability against the budget", "budget factor (× LET time)", "on-time rate")
		for _, m := range methods {
			ys := res.Curve[m]
			if len(ys) != len(res.Factors) {
				continue
			}
			var xy plotter.XYs
			for i, f := range res.Factors {
				xy = append(xy, plotter.XY{X: f, Y: ys[i]})
			}
			l, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, nil, nil, err
			}
			l.Color, l.Width = methodColor(m), vg.Points(1.5)
			pts.Color, pts.Shape = methodColor(m), draw.CircleGlyph{}
			pf.Add(l, pts)
			pf.Legend.Add(m, l, pts)
		}
		pf.Legend.Top, pf.Legend.Left = true, true
		pf.Y.Min, pf.Y.Max = 0, 1.3
		curve, err = svgBytes(pf, 6*vg.Inch, 3.5*vg.Inch)
	}
	return hist, cdf, curve, err
}

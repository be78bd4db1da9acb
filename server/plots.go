package server

import (
	"bytes"
	"encoding/json"
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

// jobCurve draws a training job's learning curve so far: each validated
// checkpoint's on-time rate per validation factor, the chosen teachers'
// level dashed and the imitation checkpoint's dotted, on an axis zoomed to
// the data (the differences are a few thousandths).
func jobCurve(raw []json.RawMessage) ([]byte, error) {
	var pts []lab.CurvePoint
	for _, r := range raw {
		var pt lab.CurvePoint
		if json.Unmarshal(r, &pt) == nil && len(pt.Rates) > 0 {
			pts = append(pts, pt)
		}
	}
	p := newPlot("Validation on-time rate so far", "checkpoint (0: imitation, then each round or chunk)", "on-time rate")
	if len(pts) == 0 {
		p.Title.Text = "Waiting for the first validated checkpoint"
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
		return svgBytes(p, 7*vg.Inch, 3.5*vg.Inch)
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
	level := func(y float64, k int, dashes []vg.Length) error {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: y}, {X: last, Y: y}})
		if err != nil {
			return err
		}
		l.Color, l.Width, l.Dashes = plotutilColor(k), vg.Points(1), dashes
		p.Add(l)
		return nil
	}
	for k := range len(lines) {
		l, dots, err := plotter.NewLinePoints(lines[k])
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = plotutilColor(k), vg.Points(1.5)
		dots.Color, dots.Radius = plotutilColor(k), vg.Points(2.5)
		p.Add(l, dots)
		name := fmt.Sprintf("factor %d", k+1)
		if k < len(factors) {
			name = fmt.Sprintf("budget %.2f × LET", factors[k])
		}
		p.Legend.Add(name, l)
		if k < len(teacher) {
			if err := level(teacher[k], k, []vg.Length{vg.Points(6), vg.Points(3)}); err != nil {
				return nil, err
			}
		}
		if k < len(imitation) {
			if err := level(imitation[k], k, []vg.Length{vg.Points(1), vg.Points(3)}); err != nil {
				return nil, err
			}
		}
	}
	// Room above the data for the legend, so it never covers a curve.
	pad := math.Max((hi-lo)*0.15, 0.005)
	p.Y.Min, p.Y.Max = math.Max(0, lo-pad), hi+pad+math.Max(hi-lo, 0.01)*0.45
	p.X.Min, p.X.Max = 0, last
	p.Legend.Top, p.Legend.Left = true, true
	return svgBytes(p, 7*vg.Inch, 3.5*vg.Inch)
}

// A training or learner job's curve, as a chart and its CSV.

package server

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/internal/csvsafe"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

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

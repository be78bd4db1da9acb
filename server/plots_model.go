// A model card's training curve, as a chart and its CSV.

package server

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/internal/csvsafe"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

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

package lab

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/fit"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// FitData is a stored network's fit to observed times: what its data page
// shows.
type FitData struct {
	Net *engine.Network
	Fit *fit.Report
}

// FitData reads the fit stored with network name; a network whose law was
// not fitted is ENOTFOUND, saying how to fit one.
func (l *Lab) FitData(ctx context.Context, name string) (*FitData, error) {
	net, err := l.LoadNetwork(ctx, name)
	if err != nil {
		return nil, err
	}
	rep, _, err := l.StoredReport(ctx, name)
	if err != nil || rep.Fit == nil {
		return nil, engine.Errorf(engine.ENOTFOUND, "network %s has no observed times: fit some with `ontime networks fit %s OBS.csv` or the Add-a-network page", name, name)
	}
	return &FitData{Net: net, Fit: rep.Fit}, nil
}

// Point is one (x, y) of a figure.
type Point struct{ X, Y float64 }

// LinkFigure is one observed link's times against its fitted law: an
// equal-probability histogram of the observed times (each bar holds Share
// of them, at least barTimes times) with the fitted density, and the QQ
// points (observed quantile, fitted quantile) at 5%, 10%, …, 95%.
type LinkFigure struct {
	Link    fit.LinkReport
	Bars    []Bar
	Share   float64 // of the times in each bar
	Density []Point
	QQ      []Point
}

// barTimes is the least number of observed times a histogram bar holds:
// bars of one twentieth each, on 60 times, held three times apiece, and
// their heights spiked (to 1.05 where the law peaks at 0.3) and read as
// several modes. Twelve keeps a bar's height within about ±30%.
const barTimes = 12

// Bar is a histogram bar: the observed times in [Lo, Hi), as a density.
type Bar struct {
	Lo      float64 `json:"lo"`
	Hi      float64 `json:"hi"`
	Density float64 `json:"density"`
}

// LinkFigure is observed link e's figure.
func (d *FitData) LinkFigure(e int) (*LinkFigure, error) {
	var lr *fit.LinkReport
	for i := range d.Fit.Links {
		if d.Fit.Links[i].Link == e {
			lr = &d.Fit.Links[i]
		}
	}
	if lr == nil || len(lr.Quantiles) != fit.QuantileSteps+1 {
		return nil, engine.Errorf(engine.ENOTFOUND, "link %d of %s was not observed", e+1, d.Net.Name)
	}
	mg, err := linktime.LinkMarginal(d.Net.Law, d.Net.Links[e])
	if err != nil {
		return nil, err
	}
	q := lr.Quantiles
	// Each bar spans `step` of the twentieths, so that it holds barTimes
	// times or more (a divisor of QuantileSteps: the bars tile the range).
	step := 1
	for step < fit.QuantileSteps && (step*lr.N < barTimes*fit.QuantileSteps || fit.QuantileSteps%step != 0) {
		step++
	}
	f := &LinkFigure{Link: *lr, Share: float64(step) / fit.QuantileSteps}
	for k := 0; k < fit.QuantileSteps; k += step {
		if w := q[k+step] - q[k]; w > 0 {
			f.Bars = append(f.Bars, Bar{q[k], q[k+step], f.Share / w})
		}
	}
	lo, hi := q[0], q[len(q)-1]
	pad := 0.1 * (hi - lo)
	for i := range 161 {
		x := lo - pad + (hi-lo+2*pad)*float64(i)/160
		f.Density = append(f.Density, Point{x, mg.PDF(x)})
	}
	for k := 1; k < fit.QuantileSteps; k++ {
		f.QQ = append(f.QQ, Point{q[k], mg.Quantile(float64(k) / fit.QuantileSteps)})
	}
	return f, nil
}

// DefaultLaw is what link e keeps when it was never observed: the default
// law's name, its ends and its mean and SD.
func (d *FitData) DefaultLaw(e int) (law, name string, mean, sd float64) {
	l := d.Net.Links[e]
	return linktime.MatchedLaw, linkText(d.Net, e), l.Mean, l.SD()
}

// LinksCSV is the per-link fit as CSV rows (a header first).
func (d *FitData) LinksCSV() [][]string {
	rows := [][]string{{"link", "from_to", "n", "family", "ks", "shrink", "mean_min", "sd_min"}}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, l := range d.Fit.Links {
		rows = append(rows, []string{strconv.Itoa(l.Link + 1), l.Name, strconv.Itoa(l.N), l.Family, g(l.KS), g(l.Shrink), g(l.Mean), g(l.SD)})
	}
	for _, e := range d.Fit.Unobserved {
		rows = append(rows, []string{strconv.Itoa(e + 1), linkText(d.Net, e), "0", "default (" + linktime.MatchedLaw + ")", "", "", g(d.Net.Links[e].Mean), g(d.Net.Links[e].SD())})
	}
	return rows
}

// PairsCSV is the sampled pairs' correlations as CSV rows.
func (d *FitData) PairsCSV() [][]string {
	rows := [][]string{{"link_a", "link_b", "distance", "n", "observed_rho", "fitted_rho"}}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, p := range d.Fit.Pairs {
		rows = append(rows, []string{linkText(d.Net, p.A), linkText(d.Net, p.B), g(p.Distance), strconv.Itoa(p.N), g(p.Observed), g(p.Fitted)})
	}
	return rows
}

func linkText(net *engine.Network, e int) string {
	l := net.Links[e]
	return fmt.Sprintf("%s→%s", net.Nodes[l.From].ID, net.Nodes[l.To].ID)
}

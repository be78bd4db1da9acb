package server

import (
	"fmt"
	"image/color"
	"math"
	"net/http"
	"slices"
	"strconv"

	"github.com/go-chi/chi/v5"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/fit"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/web"
)

// fitMapLinks bounds the networks whose data page draws a map to pick
// links on (the map's link-by-link layer; larger maps draw by shade).
const fitMapLinks = 3000

// fitWorst is how many of the worst-fitting links the data page lists.
const fitWorst = 15

// handleFitData is a fitted network's data page.
// Route: GET /networks/{name}/data.
func (s *server) handleFitData(w http.ResponseWriter, r *http.Request) {
	d, e, err := s.fitLink(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := s.page(r, "networks", "Observed times of "+d.Net.Name)
	p.Network = d.Net.Name
	v := web.FitDataView{Name: d.Net.Name, Fit: d.Fit, Link: e, Links: d.Fit.Links, Map: len(d.Net.Links) <= fitMapLinks}
	if f, err := d.LinkFigure(e); err == nil {
		v.BarShare = f.Share
	} else {
		// A link never observed has no times to draw: the page says which
		// law it keeps (its figures were broken images).
		u := &web.UnobservedLink{Number: e + 1}
		u.Law, u.Name, u.Mean, u.SD = d.DefaultLaw(e)
		v.Unobserved = u
	}
	v.Worst = slices.Clone(d.Fit.Links)
	slices.SortStableFunc(v.Worst, func(a, b fit.LinkReport) int { return -cmpFloat(a.KS, b.KS) })
	v.Worst = v.Worst[:min(fitWorst, len(v.Worst))]
	render(w, r, web.FitData(p, v))
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fitLink reads the request's network's fit and the link it asks for
// (?link=N, 1-based; default: the worst-fitting observed link).
func (s *server) fitLink(r *http.Request) (*lab.FitData, int, error) {
	d, err := s.Lab.FitData(r.Context(), chi.URLParam(r, "name"))
	if err != nil {
		return nil, 0, err
	}
	if len(d.Fit.Links) == 0 {
		return nil, 0, engine.Errorf(engine.ENOTFOUND, "network %s has no observed link", d.Net.Name)
	}
	q := r.URL.Query().Get("link")
	if q == "" {
		worst := d.Fit.Links[0]
		for _, l := range d.Fit.Links {
			if l.KS > worst.KS {
				worst = l
			}
		}
		return d, worst.Link, nil
	}
	k, err := strconv.Atoi(q)
	if err != nil || k < 1 || k > len(d.Net.Links) {
		return nil, 0, engine.InputError("", 0, "link", "%q: give a link number from 1 to %d", q, len(d.Net.Links))
	}
	return d, k - 1, nil
}

// handleFitFigure draws one link's histogram or QQ plot, or the pairs'
// correlation against distance, as SVG.
// Route: GET /networks/{name}/data/{figure}.svg.
func (s *server) handleFitFigure(w http.ResponseWriter, r *http.Request) {
	d, e, err := s.fitLink(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var p *plot.Plot
	switch chi.URLParam(r, "figure") {
	case "histogram", "qq":
		f, err := d.LinkFigure(e)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if chi.URLParam(r, "figure") == "qq" {
			p, err = qqPlot(f)
		} else {
			p, err = histogramPlot(f)
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
	case "correlation":
		if p, err = correlationPlot(d); err != nil {
			s.fail(w, r, err)
			return
		}
	default:
		s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "no figure %q (histogram, qq, correlation)", chi.URLParam(r, "figure")))
		return
	}
	w0, h0 := 6*vg.Inch, 4*vg.Inch
	if chi.URLParam(r, "figure") == "correlation" {
		w0 = 9 * vg.Inch
	}
	if r.URL.Query().Get("narrow") == "1" {
		// A phone's: drawn at about its width, so the text reads at 12-13 px
		// (the 9-inch correlation figure shown 370 px wide set it at 5).
		w0, h0 = 3.8*vg.Inch, 3.6*vg.Inch
	}
	b, err := svgBytes(p, w0, h0)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Write(b)
}

// handleFitCSV downloads the per-link fit or the pairs' correlations.
// Route: GET /networks/{name}/data/{table}.csv.
func (s *server) handleFitCSV(w http.ResponseWriter, r *http.Request) {
	d, err := s.Lab.FitData(r.Context(), chi.URLParam(r, "name"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var rows [][]string
	switch chi.URLParam(r, "table") {
	case "links":
		rows = d.LinksCSV()
	case "pairs":
		rows = d.PairsCSV()
	default:
		s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "no table %q (links, pairs)", chi.URLParam(r, "table")))
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+d.Net.Name+"-"+chi.URLParam(r, "table")+`.csv"`)
	w.Write([]byte(csvText(rows)))
}

var (
	observedColor = color.RGBA{0x55, 0x55, 0x55, 255}
	fittedColor   = color.RGBA{0xc2, 0x0a, 0xa3, 255}
)

func histogramPlot(f *lab.LinkFigure) (*plot.Plot, error) {
	l := f.Link
	// The family and KS distance go in the legend: in the title they ran
	// past a phone's figure.
	p := newPlot("Link "+strconv.Itoa(l.Link+1)+": "+strconv.Itoa(l.N)+" observed times", "time (min)", "density")
	for i, b := range f.Bars {
		poly, err := plotter.NewPolygon(plotter.XYs{{X: b.Lo, Y: 0}, {X: b.Hi, Y: 0}, {X: b.Hi, Y: b.Density}, {X: b.Lo, Y: b.Density}})
		if err != nil {
			return nil, err
		}
		poly.Color, poly.LineStyle.Color = color.RGBA{0xd8, 0xd8, 0xd8, 255}, observedColor
		p.Add(poly)
		if i == 0 {
			p.Legend.Add(fmt.Sprintf("observed: each bar %s of the times", pctText(f.Share)), poly)
		}
	}
	var xy plotter.XYs
	for _, pt := range f.Density {
		if !math.IsNaN(pt.Y) && !math.IsInf(pt.Y, 0) {
			xy = append(xy, plotter.XY{X: pt.X, Y: pt.Y})
		}
	}
	line, err := plotter.NewLine(xy)
	if err != nil {
		return nil, err
	}
	line.Color, line.Width = fittedColor, vg.Points(2)
	p.Add(line)
	p.Legend.Add("fitted "+l.Family+" density (KS "+strconv.FormatFloat(l.KS, 'f', 3, 64)+")", line)
	return p, nil
}

func qqPlot(f *lab.LinkFigure) (*plot.Plot, error) {
	p := newPlot("Link "+strconv.Itoa(f.Link.Link+1)+": quantiles at 5%, 10%, …, 95%", "observed quantile (min)", "fitted quantile (min)")
	var xy plotter.XYs
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range f.QQ {
		xy = append(xy, plotter.XY{X: pt.X, Y: pt.Y})
		lo, hi = math.Min(lo, math.Min(pt.X, pt.Y)), math.Max(hi, math.Max(pt.X, pt.Y))
	}
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return nil, err
	}
	diag.Color, diag.Dashes = color.Black, []vg.Length{vg.Points(3), vg.Points(3)}
	pts, err := plotter.NewScatter(xy)
	if err != nil {
		return nil, err
	}
	pts.Color, pts.Radius = fittedColor, vg.Points(3)
	p.Add(diag, pts)
	p.Legend.Add("equal quantiles", diag)
	p.Legend.Add("observed against fitted", pts)
	return p, nil
}

// correlationBins is how many distance bins the correlation figure's
// trend lines average over (equal numbers of pairs each).
const correlationBins = 8

func correlationPlot(d *lab.FitData) (*plot.Plot, error) {
	withDistance := len(d.Fit.Pairs) > 0 && d.Fit.Pairs[0].Distance >= 0
	// The drawing frame is metres for longitude/latitude input: kilometres
	// read better than "12500"; planar files keep their own unit.
	scale, x := 1.0, "distance between links (the file's units)"
	if d.Net.Coords == engine.CoordLonLat {
		scale, x = 1e-3, "distance between links (km)"
	}
	if !withDistance {
		x = "pair (the network has no coordinates)"
	}
	p := newPlot("Correlation: observed and fitted", x, "correlation ρ of normal scores")
	var obs, fitted plotter.XYs
	for i, pr := range d.Fit.Pairs {
		xv := pr.Distance * scale
		if !withDistance {
			xv = float64(i)
		}
		obs = append(obs, plotter.XY{X: xv, Y: pr.Observed})
		fitted = append(fitted, plotter.XY{X: xv, Y: pr.Fitted})
	}
	if len(obs) == 0 {
		return p, nil
	}
	// Observed: grey rings; fitted: magenta crosses (two colours of dots
	// were hard to tell apart); each with its mean over distance bins.
	so, err := plotter.NewScatter(obs)
	if err != nil {
		return nil, err
	}
	so.Color, so.Radius, so.Shape = observedColor, vg.Points(2.2), draw.RingGlyph{}
	sf, err := plotter.NewScatter(fitted)
	if err != nil {
		return nil, err
	}
	sf.Color, sf.Radius, sf.Shape = fittedColor, vg.Points(2.2), draw.CrossGlyph{}
	p.Add(so, sf)
	p.Legend.Add("observed (a pair of links)", so)
	p.Legend.Add("fitted (factor model)", sf)
	if withDistance && len(obs) >= 2*correlationBins {
		for _, s := range []struct {
			xy    plotter.XYs
			c     color.Color
			label string
		}{{obs, observedColor, "observed, mean by distance"}, {fitted, fittedColor, "fitted, mean by distance"}} {
			line, err := plotter.NewLine(binnedMeans(s.xy, correlationBins))
			if err != nil {
				return nil, err
			}
			line.Color, line.Width = s.c, vg.Points(2.5)
			p.Add(line)
			p.Legend.Add(s.label, line)
		}
	}
	p.X.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick { return plainTicks(min, max) })
	return p, nil
}

// binnedMeans is xy's mean point in each of k bins of equal counts, by x.
func binnedMeans(xy plotter.XYs, k int) plotter.XYs {
	s := slices.Clone(xy)
	slices.SortFunc(s, func(a, b plotter.XY) int { return cmpFloat(a.X, b.X) })
	var out plotter.XYs
	for b := range k {
		from, to := b*len(s)/k, (b+1)*len(s)/k
		var mx, my float64
		for _, pt := range s[from:to] {
			mx, my = mx+pt.X, my+pt.Y
		}
		n := float64(to - from)
		out = append(out, plotter.XY{X: mx / n, Y: my / n})
	}
	return out
}

// plainTicks are gonum's default ticks written without exponents or
// trailing digits ("12500.(" was cut at the figure's edge).
func plainTicks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 8, 64)
		}
	}
	return ticks
}

// pctText writes a share as a whole percentage ("5%").
func pctText(x float64) string { return strconv.FormatFloat(100*x, 'f', 0, 64) + "%" }

package lab

import (
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/ontime-routing/ontime/engine"
)

// LiveCurveFactors are the budget factors at which a live run also reports
// the on-time rate (on the same episodes): the curve of the Live page. It
// reaches 1.30 × LET, where the budgets for 0.95 and 0.99 lie on the
// shared networks (LET's 0.99 on Sioux Falls 2-15: 1.26; the curve ended at
// 1.15, so they fell off it).
var LiveCurveFactors = []float64{0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15, 1.2, 1.25, 1.3}

// HistogramBins is how many equal bins the arrival-time histogram uses.
const HistogramBins = 40

// cdfPoints caps the points of a CDF series (every k-th sorted time).
const cdfPoints = 400

// XY is one point of a figure's series.
type XY struct{ X, Y float64 }

// Series is one method's line in a figure.
type Series struct {
	Method string
	Points []XY
	// CI is each point's 95% interval of Y (lo, hi), where the figure has
	// one (the on-time curve); nil otherwise.
	CI [][2]float64
}

// HistogramSeries is one method's arrival-time histogram: bin b spans
// [From + b·Width, From + (b+1)·Width) and holds Shares[b] of its episodes.
type HistogramSeries struct {
	Method string
	Shares []float64
}

// LiveFigures are a live run's figures as data, computed once: the
// dashboard draws them and offers them as CSV, and `ontime live` prints
// the same CSV.
type LiveFigures struct {
	Budget      float64 // minutes, marked on the histogram and the CDF
	Factor      float64 // the budget as a factor of the LET time, marked on the curve
	From, Width float64 // the histogram's bins (minutes)
	Histogram   []HistogramSeries
	CDF         []Series // P(time ≤ t)
	Curve       []Series // on-time rate against the budget factor; nil with one factor
	HistTop     float64  // the largest share, for the axis
}

// Figures computes the figures of the methods that ran (in the request's
// order); an error when none has an episode.
func (r *LiveResult) Figures() (*LiveFigures, error) {
	var methods []string
	for _, rt := range r.Rates {
		if rt.Err == "" {
			methods = append(methods, rt.Method)
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range methods {
		for _, t := range r.Times[m] {
			lo, hi = math.Min(lo, t), math.Max(hi, t)
		}
	}
	if math.IsInf(lo, 0) {
		return nil, engine.Errorf(engine.EINVALID, "no episodes to plot")
	}
	lo, hi = math.Min(lo, r.Budget), math.Max(hi, r.Budget)
	f := &LiveFigures{Budget: r.Budget, Factor: r.Budget / r.LETTime, From: lo, Width: (hi - lo) / HistogramBins}
	if f.Width <= 0 {
		f.Width = 1
	}
	for _, m := range methods {
		ts := r.Times[m]
		if len(ts) == 0 {
			continue
		}
		h := HistogramSeries{Method: m, Shares: make([]float64, HistogramBins)}
		for _, t := range ts {
			h.Shares[min(HistogramBins-1, int((t-lo)/f.Width))]++
		}
		for b := range h.Shares {
			h.Shares[b] /= float64(len(ts))
			f.HistTop = math.Max(f.HistTop, h.Shares[b])
		}
		f.Histogram = append(f.Histogram, h)

		sorted := slices.Clone(ts)
		slices.Sort(sorted)
		c := Series{Method: m}
		step := max(1, len(sorted)/cdfPoints)
		for i := 0; i < len(sorted); i += step {
			c.Points = append(c.Points, XY{sorted[i], float64(i+1) / float64(len(sorted))})
		}
		c.Points = append(c.Points, XY{sorted[len(sorted)-1], 1})
		f.CDF = append(f.CDF, c)
	}
	if len(r.Factors) > 1 {
		for _, m := range methods {
			ys := r.Curve[m]
			if len(ys) != len(r.Factors) {
				continue
			}
			s := Series{Method: m}
			for i, x := range r.Factors {
				s.Points = append(s.Points, XY{x, ys[i]})
			}
			if ci := r.CurveCI[m]; len(ci) == len(ys) {
				s.CI = ci
			}
			f.Curve = append(f.Curve, s)
		}
	}
	return f, nil
}

// FigureNames are the live figures a caller can ask for as CSV.
var FigureNames = []string{"histogram", "cdf", "curve"}

// CSV is one figure's data as rows, a header first: "histogram", "cdf" or
// "curve".
func (f *LiveFigures) CSV(figure string) ([][]string, error) {
	ff := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch figure {
	case "histogram":
		rows := [][]string{{"method", "bin_from_minutes", "bin_to_minutes", "share_of_episodes", "budget_minutes"}}
		for _, h := range f.Histogram {
			for b, y := range h.Shares {
				rows = append(rows, []string{h.Method, ff(f.From + float64(b)*f.Width), ff(f.From + float64(b+1)*f.Width), ff(y), ff(f.Budget)})
			}
		}
		return rows, nil
	case "cdf":
		rows := [][]string{{"method", "time_minutes", "p_time_at_most", "budget_minutes"}}
		for _, s := range f.CDF {
			for _, p := range s.Points {
				rows = append(rows, []string{s.Method, ff(p.X), ff(p.Y), ff(f.Budget)})
			}
		}
		return rows, nil
	case "curve":
		rows := [][]string{{"method", "budget_factor", "on_time_rate", "lo95", "hi95"}}
		for _, s := range f.Curve {
			for i, p := range s.Points {
				lo, hi := "", ""
				if s.CI != nil {
					lo, hi = ff(s.CI[i][0]), ff(s.CI[i][1])
				}
				rows = append(rows, []string{s.Method, ff(p.X), ff(p.Y), lo, hi})
			}
		}
		return rows, nil
	}
	return nil, engine.Errorf(engine.EINVALID, "figure %q: give %s", figure, engine.JoinOr(FigureNames))
}

// ODRoute is what a page lists of one benchmark OD pair: its name, LET
// time and path.
type ODRoute struct {
	Name                string
	Origin, Destination string // node ids
	LETTime             float64
	LETPath             []int // link indices
}

// ODRoutes summarises a network's benchmark OD pairs (a stored one or an
// import being checked), kept per network: the network page asks at every
// visit, and on a city the five LET trees took a quarter of a second. A
// network's are computed once, however many ask at once (a city's page and
// its map data ask together when it is first opened).
func ODRoutes(net *engine.Network) []ODRoute {
	odRoutes.Lock()
	e, ok := odRoutes.m[net]
	if !ok {
		if len(odRoutes.m) >= 8 {
			clear(odRoutes.m)
		}
		e = &odRoutesEntry{}
		odRoutes.m[net] = e
	}
	odRoutes.Unlock()
	e.once.Do(func() { e.routes = odRoutesOf(net) })
	return e.routes
}

// odRoutes keeps ODRoutes' answers for the last networks asked (a network
// is not changed once read: a rename or new OD pairs read it again).
var odRoutes = struct {
	sync.Mutex
	m map[*engine.Network]*odRoutesEntry
}{m: map[*engine.Network]*odRoutesEntry{}}

type odRoutesEntry struct {
	once   sync.Once
	routes []ODRoute
}

// odRoutesOf grows the pairs' LET trees on every core.
func odRoutesOf(net *engine.Network) []ODRoute {
	if len(net.ODs) == 0 {
		return nil
	}
	out := make([]ODRoute, len(net.ODs))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, od := range net.ODs {
		g.Go(func() error {
			tree := net.LET(od.Destination)
			out[i] = ODRoute{Name: net.ODString(od), Origin: net.Nodes[od.Origin].ID, Destination: net.Nodes[od.Destination].ID,
				LETTime: tree.Time[od.Origin], LETPath: tree.Path(od.Origin, net)}
			return nil
		})
	}
	g.Wait()
	return out
}

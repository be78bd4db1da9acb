package server

import (
	"io"
	"math"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"gonum.org/v1/plot"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/train"
)

// networkJSON is what the map draws.
type networkJSON struct {
	Name   string     `json:"name"`
	Coords string     `json:"coords"`
	Nodes  []nodeJSON `json:"nodes"`
	Links  []linkJSON `json:"links"`
	ODs    []odJSON   `json:"ods"`
	// Frame, for a lon/lat network, maps the drawing frame back to
	// longitude/latitude (engine.LocalFrame): maps on a tile server's tiles
	// draw in those.
	Frame *frameJSON `json:"frame,omitempty"`
}

type frameJSON struct {
	Lon0            float64 `json:"lon0"`
	Lat0            float64 `json:"lat0"`
	MetresPerDegree float64 `json:"metres_per_degree"`
	CosLat0         float64 `json:"cos_lat0"`
}

type nodeJSON struct {
	ID string  `json:"id"`
	X  float64 `json:"x"`
	Y  float64 `json:"y"`
}

type linkJSON struct {
	ID   int     `json:"id"` // the link's index (ONNX models' link id)
	From int     `json:"from"`
	To   int     `json:"to"`
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	// Shape is the road's course between its ends in the drawing frame
	// (OpenStreetMap, GMNS geometry); absent: a straight line.
	Shape [][2]float64 `json:"shape,omitempty"`
}

type odJSON struct {
	Name        string  `json:"name"`
	Origin      string  `json:"origin"`
	Destination string  `json:"destination"`
	LETTime     float64 `json:"let_time"`
	LETPath     []int   `json:"let_path"`
}

func (s *server) handleNetworksJSON(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, s.Lab.Networks())
}

func (s *server) handleNetworkJSON(w http.ResponseWriter, r *http.Request) {
	n, err := s.Lab.Open(chi.URLParam(r, "name"))
	if _, building := lab.AsBuilding(err); building {
		// The map needs no model: drawn from the stored network meanwhile.
		net, _, _, err := s.networkFacts(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, mapJSON(net))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	e := s.maps.get(n)
	if e.err != nil {
		s.fail(w, r, e.err)
		return
	}
	e.serve(w, r)
}

// mapJSON is what the map draws of a network.
func mapJSON(net *engine.Network) networkJSON {
	out := networkJSON{Name: net.Name, Coords: string(net.Coords)}
	if f, ok := net.LocalFrame(); ok {
		out.Frame = &frameJSON{Lon0: f.Lon0, Lat0: f.Lat0, MetresPerDegree: f.MetresPerDegree, CosLat0: f.CosLat0}
	}
	for _, nd := range net.Nodes {
		out.Nodes = append(out.Nodes, nodeJSON{ID: nd.ID, X: nd.X, Y: nd.Y})
	}
	to, unit := net.Projection(), drawingUnit(net)
	for i, l := range net.Links {
		lj := linkJSON{ID: i, From: l.From, To: l.To, Mean: sig4(l.Mean), SD: sig4(l.SD())}
		for _, p := range l.Shape {
			q := to(p)
			lj.Shape = append(lj.Shape, [2]float64{math.Round(q[0]/unit) * unit, math.Round(q[1]/unit) * unit})
		}
		out.Links = append(out.Links, lj)
	}
	for _, od := range lab.ODRoutes(net) {
		out.ODs = append(out.ODs, odJSON{Name: od.Name, Origin: od.Origin, Destination: od.Destination, LETTime: od.LETTime, LETPath: od.LETPath})
	}
	return out
}

// drawingUnit is what shape points are rounded to: a millionth of the
// network's extent (a decimetre across a state), so that a city's shapes
// do not double its map JSON with digits no screen shows.
func drawingUnit(net *engine.Network) float64 {
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, nd := range net.Nodes {
		lo = [2]float64{math.Min(lo[0], nd.X), math.Min(lo[1], nd.Y)}
		hi = [2]float64{math.Max(hi[0], nd.X), math.Max(hi[1], nd.Y)}
	}
	if ext := math.Max(hi[0]-lo[0], hi[1]-lo[1]); ext > 0 && !math.IsInf(ext, 0) {
		return math.Pow(10, math.Floor(math.Log10(ext*1e-6)))
	}
	return 1e-6
}

// sig4 rounds to 4 significant digits: the map shows 2 decimals, and full
// precision made a city's map JSON a third larger.
func sig4(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return v
}

// teachJSON is the five-node example at an observed A→B time.
type teachJSON struct {
	Observed     float64      `json:"observed"`
	Budget       float64      `json:"budget"`
	Branches     []branchJSON `json:"branches"`
	Optimum      string       `json:"optimum"`
	Learned      string       `json:"learned,omitempty"`
	LearnedError string       `json:"learned_error,omitempty"`
	NoHistory    string       `json:"no_history"`
}

type branchJSON struct {
	Link        string  `json:"link"`
	WithHistory float64 `json:"with_history"`
	Without     float64 `json:"without_history"`
}

func (s *server) handleTeachJSON(w http.ResponseWriter, r *http.Request) {
	n, err := s.Lab.Teaching()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	x, err := strconv.ParseFloat(r.URL.Query().Get("x"), 64)
	if err != nil {
		s.fail(w, r, engine.Errorf(engine.EINVALID, "x=%q: give the observed A→B time in minutes", r.URL.Query().Get("x")))
		return
	}
	v, err := n.Teach(x)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	name := func(e int) string {
		l := n.Net.Links[e]
		return n.Net.Nodes[l.From].ID + "→" + n.Net.Nodes[l.To].ID
	}
	out := teachJSON{Observed: v.Observed, Budget: v.Budget, Optimum: name(v.Optimum), NoHistory: name(v.NoHistoryChoice), LearnedError: v.LearnedErr}
	if v.Learned >= 0 {
		out.Learned = name(v.Learned)
	}
	for i, b := range v.WithHistory {
		out.Branches = append(out.Branches, branchJSON{Link: name(b.Link), WithHistory: b.OnTime, Without: v.WithoutHistory[i].OnTime})
	}
	writeJSON(w, out)
}

func (s *server) handleModelPlot(w http.ResponseWriter, r *http.Request) {
	file := chi.URLParam(r, "file")
	n, err := s.Lab.Open(strings.TrimSuffix(file, path.Ext(file)))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	card, err := n.Card()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.figure(w, r, file, figureSize, func() (*plot.Plot, error) { return trainingCurve(card) }, func(w io.Writer) error { return trainingCSV(card, w) })
}

// handleStoryJSON answers the home page's story: ?net= (ringtown by
// default) and an OD pair ?o=&d= (default: the network's first pair whose
// most reliable route changes with the budget).
func (s *server) handleStoryJSON(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	n, err := s.network(q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var st *lab.Story
	if q.Get("o") != "" || q.Get("d") != "" {
		var od engine.OD
		if od.Origin, err = node(n, "o", q.Get("o"), n.Net.OriginIndex); err == nil {
			od.Destination, err = node(n, "d", q.Get("d"), n.Net.NodeIndex)
		}
		if err == nil {
			st, err = n.Story(od)
		}
	} else {
		st, err = n.DefaultStory() // each story computed once
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, st)
}

// lessonNetwork is the network a lesson's figure is computed on: Sioux
// Falls where the data is, else the embedded example (which has a model
// and OD pairs on every install).
func (s *server) lessonNetwork() (*lab.Net, error) {
	if n, err := s.Lab.Open("sfn"); err == nil {
		return n, nil
	}
	return s.Lab.Open(builtin.Example)
}

// handleLessonAdapt answers the adapt lesson's rates at ?f=, on the
// five-node example: its correlated roads are where adapting pays (on
// Sioux Falls' first pair the best fixed route is within 0.01 of adapting
// at every budget of the lesson's grid, once fixed routes are planned for
// every budget).
func (s *server) handleLessonAdapt(w http.ResponseWriter, r *http.Request) {
	n, err := s.Lab.Teaching()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f, err := strconv.ParseFloat(r.URL.Query().Get("f"), 64)
	if err != nil || !(f > 0.5 && f <= 2) {
		s.fail(w, r, engine.Errorf(engine.EINVALID, "f=%q: give a budget factor in (0.5, 2]", r.URL.Query().Get("f")))
		return
	}
	a, err := n.Adapt(r.Context(), f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, a)
}

// handleLessonData answers the data lesson's days (lab.DataLesson).
func (s *server) handleLessonData(w http.ResponseWriter, r *http.Request) {
	d, err := s.Lab.DataLesson(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, d)
}

// handleLessonLearning answers the learning lesson's curve: the model
// card's validation at each checkpoint.
func (s *server) handleLessonLearning(w http.ResponseWriter, r *http.Request) {
	n, err := s.lessonNetwork()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	card, err := n.Card()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	type point struct {
		Checkpoint int       `json:"checkpoint"`
		Rates      []float64 `json:"rates"`
	}
	out := struct {
		Network string    `json:"network"`
		Factors []float64 `json:"factors"`
		Best    string    `json:"best"`
		Curve   []point   `json:"curve"`
		Command string    `json:"command"`
	}{Network: n.Net.Name, Factors: card.ValidationFactors, Best: train.CheckpointLabel(card.Best), Command: card.Command}
	for _, c := range card.Curve {
		out.Curve = append(out.Curve, point{c.Iteration, c.Validation})
	}
	writeJSON(w, out)
}

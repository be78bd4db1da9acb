package server

import (
	"io"
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

// handleNetworksJSON answers GET /api/networks.
func (s *server) handleNetworksJSON(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, s.Lab.Networks())
}

// handleNetworkJSON answers GET /api/networks/{name}.
func (s *server) handleNetworkJSON(w http.ResponseWriter, r *http.Request) {
	layout, err := mapLayoutByName(r.URL.Query().Get("layout"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	net, err := s.Lab.Graph(chi.URLParam(r, "name"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	e := s.maps.get(net, layout)
	if e.err != nil {
		s.fail(w, r, e.err)
		return
	}
	e.serve(w, r)
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

// handleTeachJSON answers GET /api/teach.
func (s *server) handleTeachJSON(w http.ResponseWriter, r *http.Request) {
	n, err := s.Lab.Teaching()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	x, err := engine.ParseNumber(r.URL.Query().Get("x"))
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

// handleModelPlot answers GET /plots/model/{file}.
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
// Route: GET /api/story.
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
// Route: GET /api/lessons/adapt.
func (s *server) handleLessonAdapt(w http.ResponseWriter, r *http.Request) {
	n, err := s.Lab.Teaching()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f, err := engine.ParseNumber(r.URL.Query().Get("f"))
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
// Route: GET /api/lessons/data.
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
// Route: GET /api/lessons/learning.
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

package server

import (
	"net/http"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/web"
)

// maxSketchBytes bounds a sketch's form (routes.go): 40 nodes and 160
// links with their covariance fit in well under it.
const maxSketchBytes = 1 << 20

// handleSketchPage answers GET /networks/draw.
func (s *server) handleSketchPage(w http.ResponseWriter, r *http.Request) {
	render(w, r, web.Sketch(s.page(r, "networks", "Draw a network"), web.SketchView{
		MaxNodes: lab.MaxSketchNodes, MaxLinks: lab.MaxSketchLinks, Episodes: lab.SketchEpisodes, Methods: lab.Methods(),
	}))
}

// handleSketchRun runs every method on a drawn network (form fields
// network: ontime JSON, od: ORIGIN-DESTINATION, f: budget factor; m: the
// methods, comma-separated, when not all).
// Route: POST /api/sketch.
func (s *server) handleSketchRun(w http.ResponseWriter, r *http.Request) {
	f, err := engine.ParseNumber(r.PostForm.Get("f"))
	if err != nil {
		e := engine.Errorf(engine.EINVALID, "budget factor %q: give a number such as 1.1", r.PostForm.Get("f"))
		e.Field = "f"
		s.fail(w, r, e)
		return
	}
	sketchNames, err := methodNames(r.PostForm["m"], len(lab.Methods()))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	res, err := s.Lab.RunSketch(r.Context(), lab.SketchRequest{Network: []byte(r.PostForm.Get("network")), OD: r.PostForm.Get("od"), Factor: f, Methods: sketchNames})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, map[string]any{"od": res.OD, "let_time": res.LETTime, "budget": res.Budget, "clipped": res.Clipped, "rates": ratesJSON(res.Rates)})
}

package server

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
)

// handlePlanJSON answers "how much time to allow": each method's least
// budget for the on-time rate ?reliability= (0.95 by default) on the pair
// ?o=&d= of ?net=, on ?n= common test realizations (2,000), for the methods
// ?m= (the default comparison's); with ?routes=K, also the reliability
// indices of the pair's K fastest routes on average; as `ontime plan`.
// Route: GET /api/plan.
func (s *server) handlePlanJSON(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rq, err := s.parseRun(q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	alpha := 0.95
	if v := q.Get("reliability"); v != "" {
		if alpha, err = engine.ParseNumber(v); err != nil || !(alpha > 0 && alpha < 1) {
			s.fail(w, r, fieldErr("reliability", "target on-time rate reliability=%q: give a probability between 0 and 1 (exclusive), such as 0.95", v))
			return
		}
	}
	routes := 0
	if v := q.Get("routes"); v != "" {
		if routes, err = strconv.Atoi(v); err != nil || routes < 0 || routes > 20 {
			s.fail(w, r, fieldErr("routes", "routes=%q: give 0 to 20 routes whose reliability indices to add", v))
			return
		}
	}
	release, err := s.plans.acquire(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer release()
	p, err := rq.net.Plan(r.Context(), lab.PlanRequest{OD: rq.od, Alpha: alpha, Methods: rq.methods, Episodes: rq.episodes, Routes: routes})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.Log.Debug("plan answered", "network", rq.net.Net.Name)
	writeJSON(w, p)
}

// handlePlanRoutes sends the plan's routes (?routes=, 3 by default) with
// their reliability indices as ?format= geojson (default) or gpx.
// Route: GET /api/plan/routes.
func (s *server) handlePlanRoutes(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rq, err := s.parseRun(q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	routes := 3
	if v := q.Get("routes"); v != "" {
		if routes, err = strconv.Atoi(v); err != nil || routes < 1 || routes > 20 {
			s.fail(w, r, fieldErr("routes", "routes=%q: give 1 to 20 routes", v))
			return
		}
	}
	format := formatOr(q)
	if err := rq.net.CheckRouteFormat(format); err != nil {
		s.fail(w, r, err) // a bad format before the work
		return
	}
	release, err := s.plans.acquire(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer release()
	p, err := rq.net.Plan(r.Context(), lab.PlanRequest{OD: rq.od, Alpha: 0.95, Methods: nil, Episodes: rq.episodes, Routes: routes})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f, err := rq.net.PlanRoutes(p, format)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sendRoutes(w, f)
}

// handleRoutes sends each method's drive of a comparison (?net, o, d, f, r,
// m as the Compare page) as ?format= geojson (default) or gpx.
// Route: GET /api/routes.
func (s *server) handleRoutes(w http.ResponseWriter, r *http.Request) {
	format := formatOr(r.URL.Query())
	n, c, err := s.compareQuery(r, func(n *lab.Net) error { return n.CheckRouteFormat(format) })
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f, err := n.ComparisonRoutes(c, format)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sendRoutes(w, f)
}

func formatOr(q url.Values) string {
	if v := q.Get("format"); v != "" {
		return v
	}
	return "geojson"
}

func sendRoutes(w http.ResponseWriter, f *lab.RoutesFile) {
	w.Header().Set("Content-Type", f.MediaType)
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, f.Name))
	w.Write(f.Data)
}

package server

import (
	"net/http"
	"strconv"

	"github.com/ontime-routing/ontime/engine/lab"
)

// handlePlanJSON answers "how much time to allow": each method's least
// budget for the on-time rate ?reliability= (0.95 by default) on the pair
// ?o=&d= of ?net=, on ?n= common test realizations (2,000), for the methods
// ?m= (the default comparison's); with ?routes=K, also the reliability
// indices of the pair's K fastest routes on average; as `ontime plan`.
func (s *server) handlePlanJSON(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rq, err := s.parseRun(q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	alpha := 0.95
	if v := q.Get("reliability"); v != "" {
		if alpha, err = strconv.ParseFloat(v, 64); err != nil || !(alpha > 0 && alpha < 1) {
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
	p, err := rq.net.Plan(r.Context(), lab.PlanRequest{OD: rq.od, Alpha: alpha, Methods: rq.methods, Episodes: rq.episodes, Routes: routes})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, p)
}

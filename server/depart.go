package server

import (
	"net/http"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/depart"
)

// handleDepartJSON answers the commuter's question on a network whose law
// changes over the day: arrive_by=HH:MM with depart=HH:MM (each method's
// chances), or alone (the latest departure reaching reliability over the
// window, and the curve). Every method and departure plays the same n
// days.
// Route: GET /api/depart.
func (s *server) handleDepartJSON(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rq, err := s.parseRun(q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	dq := depart.Question{OD: rq.od, Days: rq.episodes}
	if len(q["m"]) > 0 {
		dq.Methods = rq.methods // else lab's: those that know the clock
	}
	clock := func(field string) (*float64, error) {
		v := q.Get(field)
		if v == "" {
			return nil, nil
		}
		t, err := engine.ParseClock(v)
		if err != nil {
			return nil, fieldErr(field, "%s=%q: give HH:MM from 00:00 to 23:59", field, engine.Excerpt(v))
		}
		return &t, nil
	}
	by, err := clock("arrive_by")
	if err == nil && by == nil {
		err = fieldErr("arrive_by", "arrive_by: give the deadline, HH:MM")
	}
	if err == nil {
		dq.Depart, err = clock("depart")
	}
	for _, f := range []struct {
		name string
		to   *float64
	}{{"window", &dq.Window}, {"every", &dq.Every}, {"reliability", &dq.Reliability}} {
		if v := q.Get(f.name); v != "" && err == nil {
			if *f.to, err = engine.ParseNumber(v); err != nil || *f.to == 0 {
				err = fieldErr(f.name, "%s=%q: give a number", f.name, engine.Excerpt(v))
			}
		}
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	dq.ArriveBy = *by
	release, err := s.plans.acquire(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer release()
	a, err := rq.net.Depart(r.Context(), dq)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, a)
}

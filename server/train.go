package server

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/train"
)

// handleTrainStart queues a training job from the models page's form (a
// browser is sent to the job's page) or an API client (202 and the job).
// Route: POST /api/train.
func (s *server) handleTrainStart(w http.ResponseWriter, r *http.Request) {
	n, ok := s.formNetwork(w, r)
	if !ok {
		return
	}
	q, err := parseTrainRequest(r.Form)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	st, err := s.Lab.StartTraining(n, q, clientOf(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.jobAccepted(w, r, st)
}

// formNetwork parses a posted form and opens the network it names,
// answering the error itself when it cannot.
func (s *server) formNetwork(w http.ResponseWriter, r *http.Request) (*lab.Net, bool) {
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, engine.Errorf(engine.EINVALID, "bad form: %v", err))
		return nil, false
	}
	n, err := s.network(r.Form)
	if err != nil {
		s.fail(w, r, err)
		return nil, false
	}
	return n, true
}

// parseTrainRequest reads the form's fields over train.DefaultRequest.
func parseTrainRequest(f map[string][]string) (train.Request, error) {
	q := train.DefaultRequest()
	get := func(k string) string { return formValue(f, k) }
	if v := get("teachers"); v != "" {
		q.Teachers = nil
		for _, t := range strings.Split(v, ",") {
			q.Teachers = append(q.Teachers, strings.TrimSpace(t))
		}
	}
	if v := get("budgets"); v != "" {
		lo, hi, ok := strings.Cut(v, ",")
		a, err1 := engine.ParseNumber(strings.TrimSpace(lo))
		b, err2 := engine.ParseNumber(strings.TrimSpace(hi))
		if !ok || err1 != nil || err2 != nil {
			return q, engine.Errorf(engine.EINVALID, "budgets=%q: give LO,HI factors, e.g. 0.9,1.1", v)
		}
		q.Budgets = [2]float64{a, b}
	}
	if v := get("size"); v != "" {
		parts := strings.Split(v, ",")
		for i := range q.Size {
			q.Size[i] = 0
			if len(parts) == 4 {
				q.Size[i], _ = strconv.Atoi(strings.TrimSpace(parts[i]))
			}
		}
	}
	var fields []intField
	for _, st := range train.Settings {
		fields = append(fields, intField{st.FormField(), st.Of(&q), st.Min, st.Max})
	}
	if err := parseInts(f, fields...); err != nil {
		return q, err
	}
	return q, q.Check()
}

// maxModelUpload bounds an uploaded ONNX file.
const maxModelUpload = 64 << 20

// handleLearnersStart trains a network's learners as a background job.
// Route: POST /api/learners.
func (s *server) handleLearnersStart(w http.ResponseWriter, r *http.Request) {
	n, ok := s.formNetwork(w, r)
	if !ok {
		return
	}
	st, err := s.Lab.StartLearners(n, clientOf(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.jobAccepted(w, r, st)
}

package server

import (
	"fmt"
	"io"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"gonum.org/v1/plot"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/jobs"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/web"
)

// handleBenchStart answers POST /api/bench.
func (s *server) handleBenchStart(w http.ResponseWriter, r *http.Request) {
	n, ok := s.formNetwork(w, r)
	if !ok {
		return
	}
	spec, err := parseBenchSpec(n, r.Form)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	st, err := s.Lab.StartBench(n, spec, clientOf(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSONStatus(w, http.StatusAccepted, st)
}

func parseBenchSpec(n *lab.Net, f map[string][]string) (lab.BenchSpec, error) {
	spec := n.DefaultBenchSpec()
	get := func(k string) string { return formValue(f, k) }
	if v := get("m"); v != "" {
		methods, err := parseMethods(n, []string{v})
		if err != nil {
			return spec, err
		}
		spec.Methods = methods
	}
	if v := get("b"); v != "" {
		spec.Budgets = nil
		for _, b := range strings.Split(v, ",") {
			x, err := engine.ParseNumber(strings.TrimSpace(b))
			if err != nil || !(x > 0 && x <= bench.Limits.MaxBudget) {
				return spec, engine.Errorf(engine.EINVALID, "budget factor %q: give numbers in (0, %g]", b, bench.Limits.MaxBudget)
			}
			spec.Budgets = append(spec.Budgets, x)
		}
	}
	if err := parseInts(f, intField{"pools", &spec.Pools, bench.Limits.MinPools, bench.Limits.MaxPools},
		intField{"size", &spec.PoolSize, bench.Limits.MinPoolSize, bench.Limits.MaxPoolSize}); err != nil {
		return spec, err
	}
	if len(spec.Methods) < 2 {
		return spec, engine.Errorf(engine.EINVALID, "a benchmark compares at least two methods")
	}
	return spec, nil
}

// handleBenchJob answers a job's status (ID), its report as CSV or JSON
// (ID.csv, ID.json) or as the page's HTML fragment (ID.html).
// Route: GET /api/bench/{file}.
func (s *server) handleBenchJob(w http.ResponseWriter, r *http.Request) {
	file := chi.URLParam(r, "file")
	id, ext, _ := strings.Cut(file, ".")
	st, rep, _, err := s.Lab.Job(id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if ext == "" {
		writeJSON(w, st)
		return
	}
	if st.State != "done" || rep == nil {
		s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "benchmark job %s is %s", id, st.State))
		return
	}
	s.writeReport(w, r, rep, fmt.Sprintf("ontime-bench-%s-%s", st.Network, id), "/api/bench/"+id, ext)
}

// handleBenchPublished serves the committed report of a network in the
// same formats as a job's.
// Route: GET /api/bench/published/{file}.
func (s *server) handleBenchPublished(w http.ResponseWriter, r *http.Request) {
	name, ext, _ := strings.Cut(chi.URLParam(r, "file"), ".")
	n, err := s.Lab.Open(name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rep, err := n.Published()
	if err == nil && rep == nil {
		err = engine.Errorf(engine.ENOTFOUND, "no published results for %s", name)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.writeReport(w, r, rep, "ontime-bench-"+name+"-published", "/api/bench/published/"+name, ext)
}

// writeReport writes a report in the format ext, as a download named file.
func (s *server) writeReport(w http.ResponseWriter, r *http.Request, rep *bench.Report, file, base, ext string) {
	switch ext {
	case "csv", "json", "summary.csv", "tex":
		ct := map[string]string{"csv": "text/csv; charset=utf-8", "summary.csv": "text/csv; charset=utf-8", "json": "application/json", "tex": "application/x-tex; charset=utf-8"}[ext]
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s.%s"`, file, ext))
		rep.Write(w, ext)
	case "html":
		render(w, r, web.Report(base, rep, lab.Colors(rep.Methods)))
	case "chart.svg", "chart.png", "chart.csv":
		// The chart's data is the table's: its CSV is summary.csv's.
		s.figure(w, r, strings.TrimPrefix(file, "ontime-")+"."+ext, chartSize, func() (*plot.Plot, error) { return benchChart(rep) }, func(w io.Writer) error { return rep.Write(w, "summary.csv") })
	default:
		s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "unknown format %q (csv, summary.csv, tex, json, html, chart.svg, chart.png)", ext))
	}
}

// jobAccepted answers a started job: JSON for the front end and API
// clients, a redirect to the job's page for a plain form.
func (s *server) jobAccepted(w http.ResponseWriter, r *http.Request, st jobs.Status) {
	if wantsJSON(r) {
		writeJSONStatus(w, http.StatusAccepted, st)
		return
	}
	http.Redirect(w, r, "/jobs/"+st.ID, http.StatusSeeOther)
}

// handleJobs answers GET /jobs.
func (s *server) handleJobs(w http.ResponseWriter, r *http.Request) {
	render(w, r, web.Jobs(s.page(r, "jobs", "Jobs"), s.Lab.Jobs().List("", "")))
}

// handleJobPage answers GET /jobs/{id}.
func (s *server) handleJobPage(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	st, err := s.Lab.Jobs().Get(id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	kind, _ := lab.KindOf(st.Kind)
	v := web.JobView{Status: st, Curve: kind.Curve, Report: kind.Report}
	v.Log, _ = s.Lab.Jobs().Log(id)
	var spec lab.TrainJob
	if kind.Curve && s.Lab.Jobs().Spec(id, &spec) == nil {
		v.Command = spec.Command
	}
	p := s.page(r, "jobs", fmt.Sprintf("Job %s", id))
	p.Network = st.Network
	render(w, r, web.Job(p, v))
}

// handleJobJSON answers a job's status with its events from ?from= on.
// Route: GET /api/jobs/{id}.
func (s *server) handleJobJSON(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	st, err := s.Lab.Jobs().Get(id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	from, _ := strconv.Atoi(r.URL.Query().Get("from"))
	events, _ := s.Lab.Jobs().Events(id, from)
	writeJSON(w, map[string]any{"status": st, "events": events})
}

// handleJobLog answers GET /api/jobs/{id}/log.
func (s *server) handleJobLog(w http.ResponseWriter, r *http.Request) {
	log, err := s.Lab.Jobs().Log(chi.URLParam(r, "id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte(log))
}

// handleJobCancel answers POST /api/jobs/{id}/cancel.
func (s *server) handleJobCancel(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	st, err := s.Lab.Jobs().Cancel(id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if wantsJSON(r) {
		writeJSON(w, st)
		return
	}
	http.Redirect(w, r, "/jobs/"+id, http.StatusSeeOther)
}

// handleJobPlot draws a training job's learning curve so far.
// Route: GET /plots/job/{file}.
func (s *server) handleJobPlot(w http.ResponseWriter, r *http.Request) {
	file := chi.URLParam(r, "file")
	id := strings.TrimSuffix(file, path.Ext(file))
	var spec lab.TrainJob
	if err := s.Lab.Jobs().Spec(id, &spec); err != nil {
		s.fail(w, r, err)
		return
	}
	st, err := s.Lab.Jobs().Get(id)
	if kind, _ := lab.KindOf(st.Kind); err != nil || !kind.Curve {
		s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "no training job %s", id))
		return
	}
	raw, _ := s.Lab.Jobs().Events(id, 0)
	w.Header().Set("Cache-Control", "no-store")
	s.figure(w, r, file, figureSize, func() (*plot.Plot, error) { return jobCurve(raw) }, func(w io.Writer) error { return jobCSV(raw, w) })
}

// handleJobRestart answers POST /api/jobs/{id}/restart.
func (s *server) handleJobRestart(w http.ResponseWriter, r *http.Request) {
	st, err := s.Lab.Restart(chi.URLParam(r, "id"), clientOf(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.jobAccepted(w, r, st)
}

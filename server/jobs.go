package server

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"gonum.org/v1/plot"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/web"
)

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

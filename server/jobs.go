package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/web"
)

// benchSpec is what a benchmark job runs.
type benchSpec struct {
	Methods  []string
	Budgets  []float64
	Pools    int
	PoolSize int
}

func (b benchSpec) budgetText() string {
	s := make([]string, len(b.Budgets))
	for i, f := range b.Budgets {
		s[i] = strconv.FormatFloat(f, 'f', 2, 64)
	}
	return strings.Join(s, ",")
}

// flags lists the runs outside what a learned method was trained for.
func (b benchSpec) flags(n *lab.Net) []string {
	var out []string
	for _, m := range b.Methods {
		for _, od := range n.Net.ODs {
			for _, f := range b.Budgets {
				if w := n.Scope(m, od, f); w != "" && !slices.Contains(out, w) {
					out = append(out, w)
				}
			}
		}
	}
	return out
}

// defaultBenchSpec is the paper's table for the network.
func defaultBenchSpec(n *lab.Net) benchSpec {
	spec := benchSpec{Budgets: lab.BenchmarkFactors, Pools: 10, PoolSize: 2000,
		Methods: []string{"let", "dot", "fma", "mlr", "pql", "ctd", "segac", "cgr", "cdot", "bestpath", "clairvoyant"}}
	if n.Net.Name == "twobranch" {
		spec.Budgets = []float64{1}
		spec.Methods = []string{"let", "condrule", "cgr", "dot", "clairvoyant"}
	}
	if _, err := n.Policy("gpght"); err == nil {
		spec.Methods = append([]string{"gpght"}, spec.Methods...)
	}
	return spec
}

// job is one benchmark run in the background; finished reports are kept
// in memory while the server runs.
type job struct {
	id      string
	net     string
	spec    benchSpec
	mu      sync.Mutex
	state   string // running, done, failed
	stage   string
	done    int
	total   int
	err     string
	started time.Time
	elapsed time.Duration
	report  *bench.Report
	flags   []string
}

type jobStatus struct {
	ID       string  `json:"id"`
	Network  string  `json:"network"`
	State    string  `json:"state"`
	Stage    string  `json:"stage"`
	Done     int     `json:"done"`
	Total    int     `json:"total"`
	Fraction float64 `json:"fraction"`
	Error    string  `json:"error,omitempty"`
	Seconds  float64 `json:"seconds"`
	// Flags are requests outside what a learned method was trained for.
	Flags []string `json:"flags,omitempty"`
}

func (j *job) status() jobStatus {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := jobStatus{ID: j.id, Network: j.net, State: j.state, Stage: j.stage, Done: j.done, Total: j.total, Error: j.err, Flags: j.flags}
	// Building methods (training learners) counts for the first quarter.
	switch {
	case j.state == "done":
		st.Fraction = 1
	case j.stage == "methods" && j.total > 0:
		st.Fraction = 0.25 * float64(j.done) / float64(j.total)
	case j.stage == "pools" && j.total > 0:
		st.Fraction = 0.25 + 0.75*float64(j.done)/float64(j.total)
	}
	st.Seconds = time.Since(j.started).Seconds()
	if j.state != "running" {
		st.Seconds = j.elapsed.Seconds()
	}
	return st
}

type jobs struct {
	lab    *lab.Lab
	mu     sync.Mutex
	byID   map[string]*job
	latest map[string]*job
}

func newJobs(l *lab.Lab) *jobs {
	return &jobs{lab: l, byID: map[string]*job{}, latest: map[string]*job{}}
}

func (js *jobs) get(id string) *job {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.byID[id]
}

func (js *jobs) latestFor(net string) *job {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.latest[net]
}

// start runs spec on n unless the same run is running or done (the cache).
func (js *jobs) start(n *lab.Net, spec benchSpec, version string) *job {
	h := sha256.Sum256(fmt.Appendf(nil, "%s|%v|%v|%d|%d", n.Net.Name, spec.Methods, spec.Budgets, spec.Pools, spec.PoolSize))
	id := hex.EncodeToString(h[:6])
	js.mu.Lock()
	defer js.mu.Unlock()
	if j, ok := js.byID[id]; ok && j.status().State != "failed" {
		js.latest[n.Net.Name] = j
		return j
	}
	j := &job{id: id, net: n.Net.Name, spec: spec, state: "running", stage: "methods", total: len(spec.Methods), started: time.Now(),
		flags: spec.flags(n)}
	js.byID[id], js.latest[n.Net.Name] = j, j
	opts := js.lab.Options()
	cfg := bench.Config{Net: n.Net, Model: n.Model, Methods: spec.Methods, Budgets: spec.Budgets, ODs: n.Net.ODs,
		Pools: spec.Pools, PoolSize: spec.PoolSize, CacheDir: opts.CacheDir, Device: opts.Device, Models: opts.ModelsDir,
		Logf: opts.Logf, Version: version,
		OnProgress: func(stage string, done, total int) {
			j.mu.Lock()
			j.stage, j.done, j.total = stage, done, total
			j.mu.Unlock()
		}}
	go func() {
		rep, err := bench.Run(context.Background(), cfg)
		j.mu.Lock()
		defer j.mu.Unlock()
		j.elapsed = time.Since(j.started)
		if err != nil {
			j.state, j.err = "failed", err.Error()
			return
		}
		j.state, j.report = "done", rep
	}()
	return j
}

func (s *server) handleBenchStart(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, engine.Errorf(engine.EINVALID, "bad form: %v", err))
		return
	}
	n, err := s.network(r.Form)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	spec, err := parseBenchSpec(n, r.Form)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	j := s.jobs.start(n, spec, s.Version)
	w.WriteHeader(http.StatusAccepted)
	writeJSON(w, j.status())
}

func parseBenchSpec(n *lab.Net, f map[string][]string) (benchSpec, error) {
	spec := defaultBenchSpec(n)
	get := func(k string) string {
		if v := f[k]; len(v) > 0 {
			return strings.TrimSpace(v[0])
		}
		return ""
	}
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
			x, err := strconv.ParseFloat(strings.TrimSpace(b), 64)
			if err != nil || x <= 0 || x > 5 {
				return spec, engine.Errorf(engine.EINVALID, "budget factor %q: give numbers in (0, 5]", b)
			}
			spec.Budgets = append(spec.Budgets, x)
		}
	}
	for _, p := range []struct {
		key      string
		dst      *int
		min, max int
	}{{"pools", &spec.Pools, 2, 10}, {"size", &spec.PoolSize, 10, 20000}} {
		if v := get(p.key); v != "" {
			x, err := strconv.Atoi(v)
			if err != nil || x < p.min || x > p.max {
				return spec, engine.Errorf(engine.EINVALID, "%s=%q: give %d to %d", p.key, v, p.min, p.max)
			}
			*p.dst = x
		}
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
	j := s.jobs.get(id)
	if j == nil {
		s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "no benchmark job %s (results are kept while the server runs)", id))
		return
	}
	st := j.status()
	if ext == "" {
		writeJSON(w, st)
		return
	}
	if st.State != "done" {
		s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "benchmark job %s is %s", id, st.State))
		return
	}
	switch ext {
	case "csv", "json":
		ct := map[string]string{"csv": "text/csv; charset=utf-8", "json": "application/json"}[ext]
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="ontime-bench-%s-%s.%s"`, j.net, id, ext))
		j.report.Write(w, ext)
	case "html":
		render(w, r, web.Report(id, j.report))
	default:
		s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "unknown format %q (csv, json, html)", ext))
	}
}

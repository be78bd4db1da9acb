package lab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/store"
)

// BenchSpec is what a benchmark job runs.
type BenchSpec struct {
	Methods  []string  `json:"methods"`
	Budgets  []float64 `json:"budgets"`
	Pools    int       `json:"pools"`
	PoolSize int       `json:"pool_size"`
}

// BudgetText writes the budgets as a form shows them.
func (b BenchSpec) BudgetText() string {
	s := make([]string, len(b.Budgets))
	for i, f := range b.Budgets {
		s[i] = strconv.FormatFloat(f, 'f', 2, 64)
	}
	return strings.Join(s, ",")
}

// Flags lists the runs outside what a learned method was trained for.
func (n *Net) Flags(b BenchSpec) []string {
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

// DefaultBenchSpec is the paper's table for the network: the registry's
// benchmark methods (GPG-HT where its model runs), the network's budget
// factors, 10 pools of 2000.
func (n *Net) DefaultBenchSpec() BenchSpec {
	spec := BenchSpec{Budgets: n.Net.BudgetFactors(), Pools: 10, PoolSize: 2000}
	for _, m := range policy.Methods {
		if !m.Bench {
			continue
		}
		if m.Kind == policy.Model {
			if _, err := n.Policy(m.Name); err != nil {
				continue
			}
		}
		spec.Methods = append(spec.Methods, m.Name)
	}
	return spec
}

// JobStatus is a job's state as the dashboard polls it.
type JobStatus struct {
	ID       string  `json:"id"`
	Network  string  `json:"network"`
	State    string  `json:"state"` // running, done, failed, interrupted
	Stage    string  `json:"stage"`
	Done     int     `json:"done"`
	Total    int     `json:"total"`
	Fraction float64 `json:"fraction"`
	Error    string  `json:"error,omitempty"`
	Seconds  float64 `json:"seconds"`
	// Flags are requests outside what a learned method was trained for.
	Flags []string `json:"flags,omitempty"`
}

// job is a benchmark running in this process.
type job struct {
	mu      sync.Mutex
	st      JobStatus
	spec    BenchSpec
	started time.Time
	report  *bench.Report
}

func (j *job) status() JobStatus {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := j.st
	// Building methods (training learners) counts for the first quarter.
	switch {
	case st.State == "done":
		st.Fraction = 1
	case st.Stage == "methods" && st.Total > 0:
		st.Fraction = 0.25 * float64(st.Done) / float64(st.Total)
	case st.Stage == "pools" && st.Total > 0:
		st.Fraction = 0.25 + 0.75*float64(st.Done)/float64(st.Total)
	}
	if st.State == "running" {
		st.Seconds = time.Since(j.started).Seconds()
	}
	return st
}

// jobs are the benchmark jobs of this process; finished ones are also in
// the store (when a state directory is open), which outlives the process.
type jobs struct {
	mu     sync.Mutex
	byID   map[string]*job
	latest map[string]string // network → job id
}

const jobKind = "bench"

// StartBench runs spec on n in the background unless the same run is
// running or done (then that job is returned).
func (l *Lab) StartBench(n *Net, spec BenchSpec, version string) JobStatus {
	h := sha256.Sum256(fmt.Appendf(nil, "%s|%s|%v|%v|%d|%d", n.Net.Name, n.Net.PoolKey(), spec.Methods, spec.Budgets, spec.Pools, spec.PoolSize))
	id := hex.EncodeToString(h[:6])
	js := &l.jobs
	js.mu.Lock()
	defer js.mu.Unlock()
	if js.byID == nil {
		js.byID, js.latest = map[string]*job{}, map[string]string{}
	}
	if j, ok := js.byID[id]; ok {
		if st := j.status(); st.State == "running" || st.State == "done" {
			js.latest[n.Net.Name] = id
			return st
		}
	}
	if st, err := l.store(); err == nil {
		if rec, err := st.Job(context.Background(), id); err == nil && rec.State == "done" {
			js.latest[n.Net.Name] = id
			return statusOf(rec)
		}
	}
	j := &job{st: JobStatus{ID: id, Network: n.Net.Name, State: "running", Stage: "methods", Total: len(spec.Methods), Flags: n.Flags(spec)},
		spec: spec, started: time.Now()}
	js.byID[id], js.latest[n.Net.Name] = j, id
	opts := l.opts
	cfg := bench.Config{Net: n.Net, Model: n.Model, Methods: spec.Methods, Budgets: spec.Budgets, ODs: n.Net.ODs,
		Pools: spec.Pools, PoolSize: spec.PoolSize, CacheDir: opts.CacheDir, Device: opts.Device, Models: opts.ModelsDir,
		Logf: opts.Logf, Version: version,
		OnProgress: func(stage string, done, total int) {
			j.mu.Lock()
			j.st.Stage, j.st.Done, j.st.Total = stage, done, total
			j.mu.Unlock()
		}}
	l.persist(j.status(), spec, j.started, nil)
	go func() {
		rep, err := bench.Run(l.ctx, cfg)
		final := j.status()
		final.Seconds = time.Since(j.started).Seconds()
		if err != nil {
			final.State, final.Error, rep = "failed", engine.ErrorMessage(err), nil
			l.logf("benchmark job %s failed: %v", id, err)
		} else {
			final.State = "done"
		}
		// Stored first, then shown: whoever sees "done" finds it in the store.
		l.persist(final, spec, j.started, rep)
		j.mu.Lock()
		j.st, j.report = final, rep
		j.mu.Unlock()
	}()
	return j.status()
}

// persist writes a job's record to the store, if one is open.
func (l *Lab) persist(s JobStatus, spec BenchSpec, started time.Time, rep *bench.Report) {
	st, err := l.store()
	if err != nil {
		return
	}
	specJSON, _ := json.Marshal(spec)
	rec := store.Job{ID: s.ID, Kind: jobKind, Network: s.Network, State: s.State, Error: s.Error, Spec: specJSON, Started: started, Seconds: s.Seconds}
	if rep != nil {
		rec.Result, _ = json.Marshal(rep)
	}
	if err := st.PutJob(context.Background(), rec); err != nil {
		l.logf("storing job %s: %v", s.ID, err)
	}
}

func statusOf(rec *store.Job) JobStatus {
	st := JobStatus{ID: rec.ID, Network: rec.Network, State: rec.State, Error: rec.Error, Seconds: rec.Seconds}
	if rec.State == "done" {
		st.Fraction = 1
	}
	return st
}

// Job returns a job's status, its report when done, and its spec.
func (l *Lab) Job(id string) (JobStatus, *bench.Report, BenchSpec, error) {
	l.jobs.mu.Lock()
	j, ok := l.jobs.byID[id]
	l.jobs.mu.Unlock()
	if ok {
		j.mu.Lock()
		rep := j.report
		j.mu.Unlock()
		return j.status(), rep, j.spec, nil
	}
	st, err := l.store()
	if err != nil {
		return JobStatus{}, nil, BenchSpec{}, engine.Errorf(engine.ENOTFOUND, "no benchmark job %s", id)
	}
	rec, err := st.Job(context.Background(), id)
	if err != nil {
		return JobStatus{}, nil, BenchSpec{}, engine.Errorf(engine.ENOTFOUND, "no benchmark job %s", id)
	}
	return decodeJob(rec)
}

func decodeJob(rec *store.Job) (JobStatus, *bench.Report, BenchSpec, error) {
	var spec BenchSpec
	json.Unmarshal(rec.Spec, &spec)
	var rep *bench.Report
	if rec.State == "done" && len(rec.Result) > 0 {
		rep = new(bench.Report)
		if err := json.Unmarshal(rec.Result, rep); err != nil {
			return JobStatus{}, nil, spec, fmt.Errorf("stored job %s: %w", rec.ID, err)
		}
	}
	return statusOf(rec), rep, spec, nil
}

// LatestBench returns the network's latest job started in this process,
// else its latest finished job in the store; ok is false when there is none.
func (l *Lab) LatestBench(network string) (JobStatus, *bench.Report, BenchSpec, bool) {
	l.jobs.mu.Lock()
	id, ok := l.jobs.latest[network]
	l.jobs.mu.Unlock()
	if ok {
		st, rep, spec, err := l.Job(id)
		return st, rep, spec, err == nil
	}
	st, err := l.store()
	if err != nil {
		return JobStatus{}, nil, BenchSpec{}, false
	}
	rec, err := st.LatestJob(context.Background(), network, jobKind, "done")
	if err != nil {
		return JobStatus{}, nil, BenchSpec{}, false
	}
	s, rep, spec, err := decodeJob(rec)
	return s, rep, spec, err == nil
}

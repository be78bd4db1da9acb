package lab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/jobs"
	"github.com/ontime-routing/ontime/engine/policy"
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
// factors, bench.Defaults' pools.
func (n *Net) DefaultBenchSpec() BenchSpec {
	spec := BenchSpec{Budgets: n.Net.BudgetFactors(), Pools: bench.Defaults.Pools, PoolSize: bench.Defaults.PoolSize}
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

// JobStatus is a benchmark job as the dashboard polls it.
type JobStatus struct {
	jobs.Status
	// Flags are requests outside what a learned method was trained for.
	Flags []string `json:"flags,omitempty"`
	// Source says where an imported report was computed (a sweep).
	Source string `json:"source,omitempty"`
}

// benchJob is what a benchmark job stores as its spec.
type benchJob struct {
	BenchSpec
	Flags []string `json:"flags,omitempty"`
	// Source says where an imported report was computed (a sweep).
	Source string `json:"source,omitempty"`
}

const jobKind = "bench"

// Jobs is the lab's one jobs service (benchmarks, training), over the
// store when a state directory is open; its jobs run under the lab's
// lifetime (Close).
func (l *Lab) Jobs() *jobs.Service {
	l.jobsOnce.Do(func() {
		st, _ := l.store() // no state directory: jobs live in this process only
		l.js = jobs.New(l.ctx, st, jobs.Options{Concurrency: l.opts.Concurrency, Logf: l.opts.Logf,
			MaxActive: l.opts.MaxJobs, MaxPerOwner: l.opts.MaxJobsPerClient, LogCopy: l.opts.JobLog})
	})
	return l.js
}

// StartBench queues spec on n for owner (a client address, "" for the
// process itself) unless the same run is queued, running or done (then
// that job is returned); a new job over the jobs' bounds is refused.
func (l *Lab) StartBench(n *Net, spec BenchSpec, owner string) (JobStatus, error) {
	h := sha256.Sum256(fmt.Appendf(nil, "%s|%s|%v|%v|%d|%d", n.Net.Name, n.Net.PoolKey(), spec.Methods, spec.Budgets, spec.Pools, spec.PoolSize))
	id := hex.EncodeToString(h[:6])
	flags := n.Flags(spec)
	opts := l.opts
	task := jobs.Task{ID: id, Kind: jobKind, Network: n.Net.Name, Spec: benchJob{BenchSpec: spec, Flags: flags}, Owner: owner,
		Run: func(ctx context.Context, p *jobs.Progress) (any, error) {
			var bar benchBar
			cfg := bench.Config{Net: n.Net, Model: n.Model, Methods: spec.Methods, Budgets: spec.Budgets, ODs: n.Net.ODs,
				Pools: spec.Pools, PoolSize: spec.PoolSize, CacheDir: opts.CacheDir, Device: opts.Device, Models: n.ModelsDir(), UserModel: n.userModel,
				Logf: opts.Logf, Version: opts.Version, Commit: opts.Commit,
				OnProgress: func(stage string, done, total int) {
					f, left, known := bar.update(stage, done, total, time.Now())
					p.Estimate(left, known)
					p.Report(stage, done, total, f)
				}}
			return bench.Run(ctx, cfg)
		}}
	st, err := l.Jobs().Submit(task)
	if err != nil {
		return JobStatus{}, err
	}
	return JobStatus{Status: st, Flags: flags}, nil
}

// benchBar turns a benchmark's progress into its job's bar and time left.
// Building the methods (training the learners) is the bar's first quarter,
// the rollouts (a method on a pool) the rest; the planners' rollouts run
// while the learners train, so both move at once. A build's time cannot be
// told in advance (a learner trains for minutes, a planner for
// milliseconds), so no time left is known until every method is built;
// then it is the pace of the rollouts since (the earlier ones ran on the
// cores the learners left).
type benchBar struct {
	built, methods, rolled, rollouts, rolledAtBuilt int
	builtAt                                         time.Time
}

// update hears one progress call at now; it returns the bar's fraction and
// the seconds left, if known.
func (b *benchBar) update(stage string, done, total int, now time.Time) (fraction, left float64, known bool) {
	switch {
	case strings.HasPrefix(stage, "methods"):
		b.built, b.methods = done, total
	case stage == "rollouts":
		b.rolled, b.rollouts = done, total
	}
	if b.builtAt.IsZero() && b.methods > 0 && b.built == b.methods {
		b.builtAt, b.rolledAtBuilt = now, b.rolled
	}
	if b.methods > 0 {
		fraction += 0.25 * float64(b.built) / float64(b.methods)
	}
	if b.rollouts > 0 {
		fraction += 0.75 * float64(b.rolled) / float64(b.rollouts)
	}
	if b.builtAt.IsZero() || b.rolled == b.rolledAtBuilt {
		return fraction, 0, false
	}
	pace := now.Sub(b.builtAt).Seconds() / float64(b.rolled-b.rolledAtBuilt)
	return fraction, pace * float64(b.rollouts-b.rolled), true
}

// Job returns a benchmark job's status, its report when done, and its spec.
func (l *Lab) Job(id string) (JobStatus, *bench.Report, BenchSpec, error) {
	st, err := l.Jobs().Get(id)
	if err != nil || st.Kind != jobKind {
		return JobStatus{}, nil, BenchSpec{}, engine.Errorf(engine.ENOTFOUND, "no benchmark job %s", engine.Excerpt(id))
	}
	var spec benchJob
	if err := l.Jobs().Spec(id, &spec); err != nil {
		return JobStatus{}, nil, BenchSpec{}, err
	}
	var rep *bench.Report
	if st.State == jobs.Done {
		rep = new(bench.Report)
		if err := l.Jobs().Result(id, rep); err != nil {
			return JobStatus{}, nil, spec.BenchSpec, err
		}
		rep.EnsureLeaders() // a report stored before leaders were: marked once here
	}
	return JobStatus{Status: st, Flags: spec.Flags, Source: spec.Source}, rep, spec.BenchSpec, nil
}

// LatestBench returns the network's newest benchmark job that is queued,
// running or done; ok is false when there is none.
func (l *Lab) LatestBench(network string) (JobStatus, *bench.Report, BenchSpec, bool) {
	for _, st := range l.Jobs().List(jobKind, network) {
		if st.State == jobs.Queued || st.State == jobs.Running || st.State == jobs.Done {
			js, rep, spec, err := l.Job(st.ID)
			return js, rep, spec, err == nil
		}
	}
	return JobStatus{}, nil, BenchSpec{}, false
}

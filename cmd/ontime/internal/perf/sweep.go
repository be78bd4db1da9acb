package perf

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/sweep"
)

// sweepOverhead is the sharded sweep's cost: its training phase and tasks
// run one after another on this machine's cores against one `ontime bench`
// process; the merge of 1,000 parts; and, from a real task on Chicago
// Regional, what a city's full bench would take on a cluster.
func sweepOverhead(ctx context.Context, c *Config, w io.Writer) error {
	open := func(name string) (*engine.Network, error) { return builtin.Load(name, c.DataDir) }
	cores := runtime.GOMAXPROCS(0)
	tmp, err := os.MkdirTemp("", "ontime-perf-sweep-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// 1. Overhead on Sioux Falls.
	f := &sweep.File{Name: "overhead", Methods: []string{"let", "dot", "cdot", "cgr", "pql", "ctd"}, Budgets: []float64{0.95, 1, 1.05},
		Pools: 10, PoolSize: 2000, Shards: 2, Seeds: []uint64{0}, Networks: []sweep.NetworkSpec{{Name: "sfn"}}, Correlations: []sweep.CorrSpec{{}}}
	o := sweep.Options{Open: open, Models: c.ModelsDir, Version: c.Version, Commit: c.Commit}
	// This machine's timings wander by several percent from run to run: each
	// way is measured three times, interleaved, and the medians compared.
	const reps = 3
	shardings := []int{1, 2}
	var ones []float64
	type sharded struct{ train, tasks, merge, slowest []float64 }
	runs := make([]sharded, len(shardings))
	nTasks := make([]int, len(shardings))
	var nODs int
	for rep := range reps {
		m, err := sweep.Plan(f, open, c.Version, c.Commit)
		if err != nil {
			return err
		}
		nODs = len(m.Instances[0].ODs)
		cfg, err := m.Config(m.Instances[0], open)
		if err != nil {
			return err
		}
		cfg.CacheDir, cfg.Models = filepath.Join(tmp, fmt.Sprintf("one-cache-%d", rep)), c.ModelsDir
		fmt.Fprintf(c.Log, "perf: sweep overhead %d/%d: one process …\n", rep+1, reps)
		t0 := time.Now()
		if _, err := bench.Run(ctx, cfg); err != nil {
			return err
		}
		ones = append(ones, time.Since(t0).Seconds())
		for k, shards := range shardings {
			f.Shards = shards
			m, err := sweep.Plan(f, open, c.Version, c.Commit)
			if err != nil {
				return err
			}
			nTasks[k] = len(m.Tasks)
			dir := filepath.Join(tmp, fmt.Sprintf("sfn-%d-%d", shards, rep))
			if err := sweep.WriteManifest(dir, m); err != nil {
				return err
			}
			fmt.Fprintf(c.Log, "perf: sweep overhead %d/%d: %d tasks …\n", rep+1, reps, len(m.Tasks))
			t0 := time.Now()
			if _, err := sweep.Train(ctx, dir, 0, o); err != nil {
				return err
			}
			train := time.Since(t0).Seconds()
			slowest := 0.0
			t1 := time.Now()
			for i := range m.Tasks {
				t2 := time.Now()
				if _, err := sweep.RunTask(ctx, dir, i, o); err != nil {
					return err
				}
				slowest = math.Max(slowest, time.Since(t2).Seconds())
			}
			tasks := time.Since(t1).Seconds()
			t1 = time.Now()
			if _, _, err := sweep.Merge(dir, open, false); err != nil {
				return err
			}
			r := &runs[k]
			r.train, r.tasks, r.merge, r.slowest = append(r.train, train), append(r.tasks, tasks), append(r.merge, time.Since(t1).Seconds()), append(r.slowest, slowest)
		}
	}
	one := median(ones)
	fmt.Fprintf(w, "### Overhead of a sharded sweep\n\n")
	fmt.Fprintf(w, "Sioux Falls, %v on its %d OD pairs at budgets 0.95, 1, 1.05, 10 test pools of 2,000, learners\n", f.Methods, nODs)
	fmt.Fprintf(w, "trained afresh in both: `ontime bench` as one process (median %.1f s, %.1f–%.1f over %d runs) against the same\n", one, slices.Min(ones), slices.Max(ones), reps)
	fmt.Fprintf(w, "benchmark as a sweep, its training phase (learners only) and tasks run one after another on the same %d cores,\n", cores)
	fmt.Fprintf(w, "then merged; medians of %d runs, interleaved with the one-process runs. Each task builds its methods again\n", reps)
	fmt.Fprintf(w, "(learners from the sweep's cache, DOT's table for its own destination) and starts with cold policy caches:\n")
	fmt.Fprintf(w, "that is the overhead, the larger the smaller the tasks.\n\n")
	fmt.Fprintf(w, "| shards (pool ranges per OD pair) | tasks | pools a task | training s | tasks s | merge s | overhead (median; range) | slowest task s |\n|---:|---:|---:|---:|---:|---:|---|---:|\n")
	for k, shards := range shardings {
		r := runs[k]
		var overs []float64
		for i := range reps {
			overs = append(overs, 100*(r.train[i]+r.tasks[i]+r.merge[i]-ones[i])/ones[i])
		}
		over := 100 * (median(r.train) + median(r.tasks) + median(r.merge) - one) / one
		verdict := "meets the goal (under 10%)"
		if over >= 10 {
			verdict = "**short of the goal** (under 10%)"
		}
		fmt.Fprintf(w, "| %d | %d | %d | %.1f | %.1f | %.2f | %+.1f%% — %s; runs %+.1f%% to %+.1f%% | %.1f |\n", shards, nTasks[k], f.Pools/shards,
			median(r.train), median(r.tasks), median(r.merge), over, verdict, slices.Min(overs), slices.Max(overs), median(r.slowest))
	}
	fmt.Fprintln(w)

	// 2. Merging 1,000 parts.
	mf := &sweep.File{Name: "merge", Methods: []string{"let", "condrule"}, Budgets: []float64{1}, Pools: 20, PoolSize: 20, Shards: 20,
		Networks: []sweep.NetworkSpec{{Name: "twobranch"}}, Correlations: []sweep.CorrSpec{{}}}
	for s := range 50 {
		mf.Seeds = append(mf.Seeds, uint64(s))
	}
	mm, err := sweep.Plan(mf, open, c.Version, c.Commit)
	if err != nil {
		return err
	}
	mdir := filepath.Join(tmp, "merge")
	if err := sweep.WriteManifest(mdir, mm); err != nil {
		return err
	}
	fmt.Fprintf(c.Log, "perf: sweep merge: %d tasks …\n", len(mm.Tasks))
	for i := range mm.Instances {
		if _, err := sweep.Train(ctx, mdir, i, o); err != nil {
			return err
		}
	}
	for i := range mm.Tasks {
		if _, err := sweep.RunTask(ctx, mdir, i, o); err != nil {
			return err
		}
	}
	t0 := time.Now()
	res, _, err := sweep.Merge(mdir, open, false)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "### Merging 1,000 parts\n\n")
	fmt.Fprintf(w, "`ontime sweep merge` on %d parts (%d instances of the five-node example, 20 pool ranges each):\n", len(mm.Tasks), len(res))
	fmt.Fprintf(w, "every part read, verified (SHA-256) and assembled, %d reports and report.md written in **%.2f s**.\n\n", len(res), time.Since(t0).Seconds())

	// 3. A city, on paper from one real task.
	path := filepath.Join(c.DataDir, "tntp", "ChicagoRegional_net.tntp")
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(w, "### Chicago Regional\n\nNot measured: %s is not in the data directory.\n", path)
		return nil
	}
	files, err := netfile.ReadFiles(path)
	if err != nil {
		return err
	}
	net, _, err := netfile.Import(files, netfile.ImportOptions{})
	if err != nil {
		return err
	}
	model, err := linktime.New(net)
	if err != nil {
		return err
	}
	methods := []string{"let", "dot", "cdot", "cgr"}
	ccfg := bench.Config{Net: net, Model: model, Methods: methods, Budgets: []float64{0.95, 1, 1.05}, ODs: net.ODs, Pools: 10, PoolSize: 2000,
		Evaluate: []int{0}, Models: c.ModelsDir, Version: c.Version}
	fmt.Fprintf(c.Log, "perf: sweep: one Chicago Regional task …\n")
	t0 = time.Now()
	p, err := bench.Prepare(ctx, ccfg)
	if err != nil {
		return err
	}
	prep := time.Since(t0).Seconds()
	t0 = time.Now()
	if _, err := p.Count(ctx, []int{0}, []int{0}); err != nil {
		return err
	}
	pool := time.Since(t0).Seconds()
	task := prep + pool
	tasks := len(net.ODs) * 10
	fmt.Fprintf(w, "### Chicago Regional on a cluster, on paper\n\n")
	fmt.Fprintf(w, "One real task measured here: Chicago Regional (%d nodes, %d links, %s correlation as imported), %v, OD pair\n", len(net.Nodes), len(net.Links), net.Correlation.Model, methods)
	fmt.Fprintf(w, "%s at budgets 0.95, 1, 1.05, one test pool of 2,000 on %d cores: building the methods (DOT's table for\n", net.ODString(net.ODs[0]), cores)
	fmt.Fprintf(w, "one destination) **%.1f s**, the pool **%.1f s**. A full bench of these methods on the network's %d OD pairs\n", prep, pool, len(net.ODs))
	fmt.Fprintf(w, "and 10 pools as a sweep of one pool a task is %d tasks of about %.0f s (%.1f core-hours, if the other OD\n", tasks, task, float64(tasks)*task*float64(cores)/3600)
	fmt.Fprintf(w, "pairs cost as much as this one); the learners (pql, ctd, segac) are left out: their training on a city\n")
	fmt.Fprintf(w, "was not measured.\n\n")
	fmt.Fprintf(w, "| nodes of %d cores | evaluation wall time |\n|---:|---:|\n", cores)
	for _, n := range []int{1, 5, 10, 25, tasks} {
		waves := (tasks + n - 1) / n
		fmt.Fprintf(w, "| %d | %s |\n", n, duration(float64(waves)*task))
	}
	fmt.Fprintln(w)
	return nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func duration(s float64) string {
	switch {
	case s >= 3600:
		return fmt.Sprintf("%.1f h", s/3600)
	case s >= 60:
		return fmt.Sprintf("%.0f min", s/60)
	}
	return fmt.Sprintf("%.0f s", s)
}

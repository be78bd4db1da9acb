package perf

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
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
	m, err := sweep.Plan(f, open, c.Version, c.Commit)
	if err != nil {
		return err
	}
	cfg, err := m.Config(m.Instances[0], open)
	if err != nil {
		return err
	}
	cfg.CacheDir, cfg.Models, cfg.Version, cfg.Commit = filepath.Join(tmp, "one-cache"), c.ModelsDir, c.Version, c.Commit
	fmt.Fprintf(c.Log, "perf: sweep overhead: one process …\n")
	t0 := time.Now()
	if _, err := bench.Run(ctx, cfg); err != nil {
		return err
	}
	one := time.Since(t0).Seconds()
	fmt.Fprintf(w, "### Overhead of a sharded sweep\n\n")
	fmt.Fprintf(w, "Sioux Falls, %v on its %d OD pairs at budgets 0.95, 1, 1.05, 10 test pools of 2,000, learners\n", f.Methods, len(m.Instances[0].ODs))
	fmt.Fprintf(w, "trained afresh in both: `ontime bench` as one process (%.1f s) against the same benchmark as a sweep, its\n", one)
	fmt.Fprintf(w, "training phase and tasks run one after another on the same %d cores, then merged. Each task builds its\n", cores)
	fmt.Fprintf(w, "methods again (learners from the sweep's cache, DOT's table for its own destination only) and starts with\n")
	fmt.Fprintf(w, "cold policy caches: that is the overhead, the larger the smaller the tasks.\n\n")
	fmt.Fprintf(w, "| shards (pool ranges per OD pair) | tasks | pools a task | training s | tasks s | merge s | overhead | slowest task s |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	o := sweep.Options{Open: open, Models: c.ModelsDir, Version: c.Version, Commit: c.Commit}
	for _, shards := range []int{1, 2} {
		f.Shards = shards
		m, err := sweep.Plan(f, open, c.Version, c.Commit)
		if err != nil {
			return err
		}
		dir := filepath.Join(tmp, fmt.Sprintf("sfn-%d", shards))
		if err := sweep.WriteManifest(dir, m); err != nil {
			return err
		}
		fmt.Fprintf(c.Log, "perf: sweep overhead: %d tasks …\n", len(m.Tasks))
		t0 = time.Now()
		if _, err := sweep.Train(ctx, dir, 0, o); err != nil {
			return err
		}
		train := time.Since(t0).Seconds()
		var slowest float64
		for i := range m.Tasks {
			t1 := time.Now()
			if _, err := sweep.RunTask(ctx, dir, i, o); err != nil {
				return err
			}
			slowest = math.Max(slowest, time.Since(t1).Seconds())
		}
		sharded := time.Since(t0).Seconds()
		t0 = time.Now()
		if _, _, err := sweep.Merge(dir, open, false); err != nil {
			return err
		}
		merge := time.Since(t0).Seconds()
		over := 100 * (sharded + merge - one) / one
		verdict := "meets the goal (under 10%)"
		if over >= 10 {
			verdict = "**short of the goal** (under 10%)"
		}
		fmt.Fprintf(w, "| %d | %d | %d | %.1f | %.1f | %.2f | %+.1f%% — %s | %.1f |\n", shards, len(m.Tasks), f.Pools/shards, train, sharded-train, merge, over, verdict, slowest)
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
	t0 = time.Now()
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

func duration(s float64) string {
	switch {
	case s >= 3600:
		return fmt.Sprintf("%.1f h", s/3600)
	case s >= 60:
		return fmt.Sprintf("%.0f min", s/60)
	}
	return fmt.Sprintf("%.0f s", s)
}

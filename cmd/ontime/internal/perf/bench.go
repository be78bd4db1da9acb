package perf

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
)

// benchNetworks are the paper's networks, measured in every section.
var benchNetworks = []string{"sfn", "anaheim"}

func load(c *Config, name string) (*engine.Network, *linktime.Gaussian, error) {
	net, err := builtin.Load(name, c.DataDir)
	if err != nil {
		return nil, nil, err
	}
	model, err := linktime.New(net)
	return net, model, err
}

// benchMethods are the default benchmark table's methods (GPG-HT where its
// model runs here).
func benchMethods(c *Config, net *engine.Network, model *linktime.Gaussian) []string {
	var out []string
	env := &policy.Env{Net: net, Model: model, Tasks: sim.Tasks(net, net.ODs, []float64{1}), ModelsDir: c.ModelsDir, ORTLib: c.ORTLib}
	for _, m := range policy.Methods {
		if !m.Bench {
			continue
		}
		if m.Kind == policy.Model {
			if _, _, err := m.Build(env); err != nil {
				fmt.Fprintf(c.Log, "perf: %s on %s left out: %v\n", m.Name, net.Name, err)
				continue
			}
		}
		out = append(out, m.Name)
	}
	return out
}

// sampling times drawing joint realizations on one goroutine.
func sampling(_ context.Context, c *Config, w io.Writer) error {
	fmt.Fprintf(w, "Pools of 2,000 joint realizations drawn one after another on one goroutine for at least 3 s\n")
	fmt.Fprintf(w, "(the benchmark draws its pools on all cores; the city networks are in the last section).\n\n")
	fmt.Fprintf(w, "| network | links | correlation | factor rank | realizations/s | link times/s |\n|---|---:|---|---:|---:|---:|\n")
	for _, name := range benchNetworks {
		net, model, err := load(c, name)
		if err != nil {
			return err
		}
		rate := drawRate(net, model, 2000, 3*time.Second)
		fmt.Fprintf(w, "| %s | %d | %s | %d | %.0f | %.3g |\n", name, len(net.Links), model.Spec.Model, model.Stats.Rank, rate, rate*float64(len(net.Links)))
	}
	fmt.Fprintln(w)
	return nil
}

// drawRate is realizations drawn per second in pools of size.
func drawRate(net *engine.Network, model *linktime.Gaussian, size int, least time.Duration) float64 {
	var buf []float64
	n := 0
	t0 := time.Now()
	for k := 0; time.Since(t0) < least; k++ {
		p := sim.NewPool(model, net.PoolKey(), sim.Test, k, size, 0, buf)
		buf = p.X
		n += size
	}
	return float64(n) / time.Since(t0).Seconds()
}

// fullBench runs the paper's table as `ontime bench` does with --no-cache:
// every method trained or solved afresh, 10 test pools of 2,000.
func fullBench(ctx context.Context, c *Config, w io.Writer) error {
	fmt.Fprintf(w, "The paper's table for each network: every benchmark method at budget factors 0.95, 1, 1.05 on\n")
	fmt.Fprintf(w, "10 test pools of 2,000 realizations and the network's 5 OD pairs, on all %d cores, learners\n", runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "trained afresh (no cache), as `ontime bench --no-cache` runs it. Solve is each method's build: tables solved,\n")
	fmt.Fprintf(w, "learners trained, models loaded. The builds run %d at a time (the learners first), so their times overlap;\n", runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "the other methods are evaluated on the pools while the learners train, and *all builds* is the time until\n")
	fmt.Fprintf(w, "the last build ended.\n\n")
	for _, name := range benchNetworks {
		net, model, err := load(c, name)
		if err != nil {
			return err
		}
		var (
			builtAt                       time.Time
			rolled, rollouts, rolledBuilt int
		)
		cfg := bench.Config{Net: net, Model: model, Methods: benchMethods(c, net, model), Budgets: net.BudgetFactors(), ODs: net.ODs,
			Pools: 10, PoolSize: 2000, CacheDir: c.cache, Models: c.ModelsDir, Version: c.Version,
			OnProgress: func(stage string, done, total int) {
				switch {
				case stage == "rollouts":
					rolled, rollouts = done, total
				case stage == "methods" && done == total:
					builtAt, rolledBuilt = time.Now(), rolled
				}
			}}
		t0 := time.Now()
		rep, err := bench.Run(ctx, cfg)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		build := builtAt.Sub(t0).Seconds()
		wall := time.Since(t0).Seconds()
		fmt.Fprintf(w, "### %s: %.0f s wall (%.1f min)\n\n", name, wall, wall/60)
		fmt.Fprintf(w, "| method | solve s | share of the wall time |\n|---|---:|---:|\n")
		infos := slices.Clone(rep.Provenance.Methods)
		slices.SortStableFunc(infos, func(a, b bench.MethodInfo) int {
			switch {
			case a.SolveSeconds > b.SolveSeconds:
				return -1
			case a.SolveSeconds < b.SolveSeconds:
				return 1
			}
			return 0
		})
		for _, m := range infos {
			fmt.Fprintf(w, "| %s | %.1f | %.0f%% |\n", m.Name, m.SolveSeconds, 100*m.SolveSeconds/wall)
		}
		fmt.Fprintf(w, "| *all builds* | %.1f | %.0f%% |\n", build, 100*build/wall)
		fmt.Fprintf(w, "| *after the builds: the rest of the rollouts, statistics* | %.1f | %.0f%% |\n\n", wall-build, 100*(wall-build)/wall)
		fmt.Fprintf(w, "%d of the %d rollouts (a method on a pool, counted as each batch of %d pools ends) were done when the last build ended.\n\n", rolledBuilt, rollouts, runtime.GOMAXPROCS(0))
		fmt.Fprintf(w, "%s\n\n", samePublished(c, rep))
	}
	return nil
}

package perf

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
)

// decisionPool is how many realizations each policy is rolled out on, per
// OD pair; rollout, which simulates continuations at every decision, gets
// fewer.
const decisionPool, rolloutPool = 200, 20

// timed hides a policy's batching and records how long each decision takes.
type timed struct {
	p  engine.Policy
	ns []float64
}

func (t *timed) Act(o *engine.Observation) int {
	t0 := time.Now()
	l := t.p.Act(o)
	t.ns = append(t.ns, float64(time.Since(t0).Nanoseconds()))
	return l
}

// policies rolls each policy out on one goroutine: throughput as the
// benchmark runs it (batched where the method batches), latency one
// decision at a time.
func policies(ctx context.Context, c *Config, w io.Writer) error {
	fmt.Fprintf(w, "Each policy plays the network's 5 OD pairs at budget factor 1 on %d test realizations each\n", decisionPool)
	fmt.Fprintf(w, "(rollout: %d), on one goroutine. **decisions/s** is as the benchmark runs it: a batched policy\n", rolloutPool)
	fmt.Fprintf(w, "(GPG-HT) decides for every active episode at once. **Latency** is one decision on its own (batch 1), as\n")
	fmt.Fprintf(w, "the dashboard's comparison asks it. Build is the method's construction here: learners are loaded from\n")
	fmt.Fprintf(w, "the cache the bench section filled when it ran in the same run (their training time is there).\n")
	fmt.Fprintf(w, "Clairvoyant is a bound, timed per episode.\n\n")
	for _, name := range benchNetworks {
		net, model, err := load(c, name)
		if err != nil {
			return err
		}
		tasks := sim.Tasks(net, net.ODs, []float64{1})
		env := &policy.Env{Net: net, Model: model, Tasks: tasks, CacheDir: c.cache, ModelsDir: c.ModelsDir, ORTLib: c.ORTLib}
		methods := benchMethods(c, net, model)
		if i := slices.Index(methods, "clairvoyant"); i >= 0 {
			methods = slices.Insert(methods, i, "rollout")
		}
		fmt.Fprintf(w, "### %s\n\n| method | build s | decisions/s | latency p50 ms | latency p99 ms | decisions timed |\n|---|---:|---:|---:|---:|---:|\n", name)
		for _, mname := range methods {
			if err := ctx.Err(); err != nil {
				return err
			}
			m, err := policy.Lookup(mname)
			if err != nil {
				return err
			}
			t0 := time.Now()
			p, _, err := m.Build(env)
			if err != nil {
				return fmt.Errorf("%s on %s: %w", mname, name, err)
			}
			build := time.Since(t0).Seconds()
			size := decisionPool
			if mname == "rollout" {
				size = rolloutPool
			}
			pool := sim.NewPool(model, net.PoolKey(), sim.Test, 0, size, 0, nil)
			r := &sim.Runner{Net: net}
			res := make([]sim.Result, size)
			if _, ok := p.(engine.Oracle); ok {
				t0 := time.Now()
				for _, task := range tasks {
					r.Run(p, task, pool, res)
				}
				per := time.Since(t0).Seconds() * 1000 / float64(len(tasks)*size)
				fmt.Fprintf(w, "| %s | %.2f | (a bound: %.3f ms an episode) | | | |\n", mname, build, per)
				continue
			}
			decisions := 0
			t0 = time.Now()
			for _, task := range tasks {
				if err := r.Run(p, task, pool, res); err != nil {
					return fmt.Errorf("%s on %s: %w", mname, name, err)
				}
				for _, x := range res {
					decisions += x.Links
				}
			}
			rate := float64(decisions) / time.Since(t0).Seconds()
			tp := &timed{p: p}
			for _, task := range tasks {
				if err := r.Run(tp, task, pool, res); err != nil {
					return err
				}
			}
			slices.Sort(tp.ns)
			q := func(f float64) float64 { return tp.ns[min(len(tp.ns)-1, int(f*float64(len(tp.ns))))] / 1e6 }
			fmt.Fprintf(w, "| %s | %.2f | %.0f | %.4g | %.4g | %d |\n", mname, build, rate, q(0.5), q(0.99), len(tp.ns))
			if cl, ok := p.(interface{ Close() error }); ok {
				cl.Close()
			}
		}
		fmt.Fprintln(w)
	}
	return nil
}

package policy_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// rates plays p on task over pool and returns the per-episode on-time
// indicators.
func rates(t testing.TB, net *engine.Network, p engine.Policy, task sim.Task, pool *sim.Pool) []float64 {
	t.Helper()
	out := make([]sim.Result, pool.Size)
	if err := (&sim.Runner{Net: net}).Run(p, task, pool, out); err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(out))
	for i, r := range out {
		if r.OnTime {
			x[i] = 1
		}
	}
	return x
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func build(t testing.TB, env *policy.Env, name string) engine.Policy {
	t.Helper()
	m, err := policy.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := m.New(env)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// On the five-node example rollout reaches the closed-form optimum 0.5370
// within Monte Carlo error: at B the draws of the unseen branches, given
// the observed A→B time, tell which branch is likelier on time.
func TestRolloutReachesTheTwoBranchOptimum(t *testing.T) {
	if testing.Short() {
		t.Skip("trains or runs many episodes; the full run (make test) covers it")
	}
	net, err := builtin.Load(builtin.Example, "")
	if err != nil {
		t.Fatal(err)
	}
	model, _ := linktime.New(net)
	env := &policy.Env{Net: net, Model: model, Tasks: sim.Tasks(net, net.ODs, []float64{1}), RolloutBase: "dot", RolloutSamples: 400}
	p := build(t, env, "rollout")
	pool := sim.NewPool(model, net.PoolKey(), sim.Test, 0, 20000, 0, nil)
	x := rates(t, net, p, env.Tasks[0], pool)
	got, se := mean(x), math.Sqrt(0.25/float64(len(x)))
	if want := policy.TwoBranchOptimum(); math.Abs(got-want) > 3*se {
		t.Errorf("rollout %.4f, closed form %.4f (3 SE = %.4f)", got, want, 3*se)
	}
}

// On Sioux Falls rollout is at least as good as its base, within the
// paired Monte Carlo error, on two OD pairs at factor 1 (base dot, whose
// decisions are cheap enough for many draws in a test).
func TestRolloutAtLeastItsBase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs many episodes on the benchmark data; the full run (make test) covers it")
	}
	net, model := testenv.Network(t, "sfn", testenv.DataDir(t))
	ods := net.ODs[:2]
	env := &policy.Env{Net: net, Model: model, Tasks: sim.Tasks(net, ods, []float64{1}), RolloutBase: "dot", RolloutSamples: 256}
	base := build(t, env, "dot")
	ro := build(t, env, "rollout")
	pool := sim.NewPool(model, net.PoolKey(), sim.Test, 0, 300, 0, nil)
	var diff []float64
	for _, task := range env.Tasks {
		a, b := rates(t, net, ro, task, pool), rates(t, net, base, task, pool)
		for i := range a {
			diff = append(diff, a[i]-b[i])
		}
	}
	m := mean(diff)
	v := 0.0
	for _, d := range diff {
		v += (d - m) * (d - m)
	}
	se := math.Sqrt(v / float64(len(diff)-1) / float64(len(diff)))
	t.Logf("rollout − dot = %+.4f (SE %.4f) over %d episodes", m, se, len(diff))
	if m < -3*se-1e-12 {
		t.Errorf("rollout below its base: %+.4f (3 SE = %.4f)", m, 3*se)
	}
}

// firstChoice walks from the origin along single out-links (Anaheim's
// origins are zone connectors) to the first node with a choice, at the
// links' mean times, so the benchmark times a real decision.
func firstChoice(net *engine.Network, od engine.OD, budget float64) *engine.Observation {
	o := &engine.Observation{Node: od.Origin, Destination: od.Destination, Remaining: budget}
	for len(net.Out(o.Node)) == 1 && o.Node != od.Destination {
		l := net.Out(o.Node)[0]
		o.Prefix = append(o.Prefix, engine.Step{Link: l, Time: net.Links[l].Mean})
		o.Remaining -= net.Links[l].Mean
		o.Step++
		o.Node = net.Links[l].To
	}
	return o
}

// BenchmarkRolloutDecision times one rollout decision at the first choice
// on the way from the first benchmark origin (batch 1) of Sioux Falls and Anaheim, per base and
// sample count: the labeller's cost per visited state in training.
func BenchmarkRolloutDecision(b *testing.B) {
	for _, name := range []string{"sfn", "anaheim"} {
		net, err := builtin.Load(name, testenv.DataDir(b))
		if err != nil {
			b.Fatal(err)
		}
		model, _ := linktime.New(net)
		od := net.ODs[0]
		task := sim.Tasks(net, []engine.OD{od}, []float64{1})[0]
		for _, base := range []string{"dot", "cdot", "cgr"} {
			for _, m := range []int{16, 64, 256, 1000} {
				env := &policy.Env{Net: net, Model: model, Tasks: []sim.Task{task}, RolloutBase: base, RolloutSamples: m}
				p := build(b, env, "rollout")
				o := firstChoice(net, od, task.Budget)
				b.Run(fmt.Sprintf("%s/%s/M=%d", name, base, m), func(b *testing.B) {
					for range b.N {
						o.Remaining = task.Budget + 1e-9*float64(b.N) // a fresh seed each time
						p.Act(o)
					}
				})
			}
		}
	}
}

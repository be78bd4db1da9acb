package policy

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// recorder plays DOT and keeps every observation it was asked at.
type recorder struct {
	p   engine.Policy
	obs []engine.Observation
}

func (r *recorder) Act(o *engine.Observation) int {
	c := *o
	c.Prefix = append([]engine.Step(nil), o.Prefix...)
	r.obs = append(r.obs, c)
	return r.p.Act(o)
}

// The fast DOT continuation ends every draw as sim.Runner's episode rule
// ends "take this link, then follow DOT": on the states DOT itself visits
// (budgets 0.9 to 1.1 × LET, so late, on-time and capped ends all occur),
// for every outgoing link and every draw, the on-time flags are equal.
func TestRolloutDOTFastPathMatchesRunner(t *testing.T) {
	names, data := []string{"ringtown", "twobranch"}, os.Getenv("ONTIME_DATA")
	if data != "" {
		names = append(names, "sfn")
	}
	names = testenv.Sized(names, names[:1])
	every := testenv.Sized(3, 30) // check every third decision DOT made (-short: every thirtieth)
	for _, name := range names {
		net, model := testenv.Network(t, name, data)
		tasks := sim.Tasks(net, net.ODs, []float64{0.9, 1, 1.1})
		env := &Env{Net: net, Model: model, Tasks: tasks}
		d := env.DOT()
		ro := NewRollout(net, model, d, 64)
		slow := NewRollout(net, model, d, 64)
		slow.slow = true
		rec := &recorder{p: d}
		pool := sim.NewPool(model, net.PoolKey(), sim.Validation, 0, 20, 0, nil)
		res := make([]sim.Result, pool.Size)
		for _, task := range tasks {
			if err := (&sim.Runner{Net: net}).Run(rec, task, pool, res); err != nil {
				t.Fatal(err)
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		checked, differ := 0, 0
		r := &sim.Runner{Net: net}
		out := make([]sim.Result, 64)
		won := make([]bool, 64)
		for k, o := range rec.obs {
			if k%every != 0 || len(net.Out(o.Node)) < 2 {
				continue
			}
			spent := 0.0
			for _, s := range o.Prefix {
				spent += s.Time
			}
			x := model.SampleN(rng, 64, nil)
			p := &sim.Pool{Purpose: "rollout", Size: 64, Dim: model.Dim(), X: x}
			task := sim.Task{OD: engine.OD{Origin: o.Node, Destination: o.Destination}, Budget: spent + o.Remaining, Cap: ro.cap}
			memo := ro.dotMemo(d, o.Destination, o.Remaining)
			for _, e := range net.Out(o.Node) {
				if err := r.RunFrom(&thenBase{first: e, step: o.Step, base: d}, task, &o, p, out); err != nil {
					t.Fatal(err)
				}
				ro.continueDOT(memo, &o, e, rows{x, model.Dim()}, won)
				for i := range won {
					checked++
					if won[i] != out[i].OnTime {
						differ++
					}
				}
			}
			if a, b := ro.Act(&o), slow.Act(&o); a != b {
				t.Errorf("%s: rollout's choice at %+v: fast %d, runner %d", name, o.Node, a, b)
			}
		}
		if differ > 0 || checked == 0 {
			t.Errorf("%s: %d of %d continuations differ from sim.Runner's", name, differ, checked)
		}
		t.Logf("%s: %d continuations equal", name, checked)
	}
}

// scoreNormal is the discretized score without the PMF, to the last bit,
// on laws from far below the floor to far above the budget.
func TestScoreNormalEqualsDiscretized(t *testing.T) {
	net, model := testenv.Network(t, "ringtown", "")
	tasks := sim.Tasks(net, net.ODs, []float64{1.1})
	d := (&Env{Net: net, Model: model, Tasks: tasks}).DOT()
	rng := rand.New(rand.NewPCG(3, 4))
	for range testenv.Sized(20000, 2000) {
		task := tasks[rng.IntN(len(tasks))]
		j := rng.IntN(len(net.Nodes))
		mu := rng.Float64() * 10
		sd := []float64{0, rng.Float64() * 3, rng.Float64() * 0.01}[rng.IntN(3)]
		floor := []float64{0.1, mu / 10, rng.Float64()}[rng.IntN(3)]
		rem := rng.Float64() * task.Budget
		left := rng.IntN(d.cap + 2)
		want := d.scorePMF(task.OD.Destination, j, discretize(mu, sd, floor, d.Delta), rem, left)
		if got := d.scoreNormal(task.OD.Destination, j, mu, sd, floor, rem, left); got != want {
			t.Fatalf("N(%g, %g²) floored at %g, remaining %g, left %d: %v, want %v", mu, sd, floor, rem, left, got, want)
		}
	}
}

// rows are realizations stored row-major, dim links a row.
type rows struct {
	x   []float64
	dim int
}

func (r rows) At(i, e int) float64 { return r.x[i*r.dim+e] }

package policy_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// A time of day read back to the static law's scale is the static time
// that gives it: Time(StaticTime(y)) = y for links of Rushtown's two
// profiles at every hour, on both branches of the law (the spread's, and
// the floor's in a stretched left tail).
func TestStaticTimeInvertsTime(t *testing.T) {
	net, _ := testenv.Network(t, builtin.Rushtown, "")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		e := rng.IntN(len(net.Links))
		at := rng.Float64() * engine.MinutesPerDay
		mu := net.Links[e].Mean
		x := mu * math.Exp(rng.NormFloat64()) // any positive static time
		y := net.Clock.Time(e, at, x, mu)
		if back := net.Clock.Time(e, at, net.Clock.StaticTime(e, at, y, mu), mu); math.Abs(back-y) > 1e-9*y {
			t.Fatalf("link %d at %s: x %v takes %v, read back %v", e, engine.FormatClock(at), x, y, back)
		}
	}
}

// The time-dependent cgr under a day whose factors are all 1 is cgr: the
// same link at every decision of every episode (independent links: the
// same sums; correlated: the same conditional law, up to rounding).
func TestTimedCGRWithAFlatDayIsCGR(t *testing.T) {
	for _, corr := range []engine.Correlation{{Model: linktime.Independent}, {Model: linktime.Spatial, Strength: 0.8, Length: 1500}} {
		net, _ := testenv.Network(t, builtin.Ringtown, "")
		net.Correlation = corr
		model, err := linktime.New(net)
		if err != nil {
			t.Fatal(err)
		}
		flat := engine.RushHourProfile(15, 0, 0) // every factor 1
		net.Clock = &engine.Clock{Step: 15, Profiles: []engine.DayProfile{flat}, Depart: 8 * 60}
		cgr, timed := policy.NewCGR(net, model, 10), policy.NewTimedCGR(net, model, 10)
		pool := sim.NewPool(model, net.PoolKey(), sim.Test, 0, 200, 0, nil)
		r := &sim.Runner{Net: net}
		for _, task := range sim.Tasks(net, net.ODs[:2], []float64{0.95, 1.1}) {
			a, b := make([]sim.Result, pool.Size), make([]sim.Result, pool.Size)
			if err := r.Run(cgr, task, pool, a); err != nil {
				t.Fatal(err)
			}
			task.Depart = 8 * 60
			if err := r.Run(timed, task, pool, b); err != nil {
				t.Fatal(err)
			}
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("%s, %v: episode %d: cgr %+v, time-dependent cgr %+v", corr.Model, task.Budget, i, a[i], b[i])
				}
			}
		}
	}
}

// The conditioned law kept per episode (one link more at each decision,
// each time read back at its hour) is the law conditioned from scratch on
// the whole route: on Rushtown's correlated links, along episodes of the
// time-dependent cgr itself.
func TestTimedConditionKeptEqualsFromScratch(t *testing.T) {
	net, model := testenv.Network(t, builtin.Rushtown, "")
	c := policy.NewTimedCGR(net, model, 10)
	pool := sim.NewPool(model, net.PoolKey(), sim.Test, 0, 20, 0, nil)
	r := &sim.Runner{Net: net}
	task := sim.TasksAt(net, net.ODs[:1], []float64{1.1}, 8*60)[0]
	for i := range pool.Size {
		_, steps, err := r.Trace(c, task, pool.Row(i))
		if err != nil {
			t.Fatal(err)
		}
		at := task.Depart
		prefix := make([]engine.Step, 0, len(steps)) // one storage: the cache extends its entry
		for _, s := range steps {
			prefix = append(prefix, s)
			at += s.Time
			o := &engine.Observation{Node: net.Links[s.Link].To, Destination: task.OD.Destination, Remaining: task.Budget - (at - task.Depart), Clock: at, Prefix: prefix}
			kept, scratch := policy.TimedConditions(c, o)
			for e := range net.Links {
				m1, s1 := kept(e)
				m2, s2 := scratch(e)
				if math.Abs(m1-m2) > 1e-9*(1+math.Abs(m2)) || math.Abs(s1-s2) > 1e-9*(1+s2) {
					t.Fatalf("episode %d after %d links, link %d: kept N(%v, %v), from scratch N(%v, %v)", i, len(prefix), e, m1, s1, m2, s2)
				}
			}
		}
	}
}

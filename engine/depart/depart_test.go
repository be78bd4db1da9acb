package depart_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/depart"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

func load(t *testing.T, name string) (*engine.Network, *linktime.Gaussian) {
	return testenv.Network(t, name, "")
}

// A law constant over the day is the static law: the same fingerprint and
// pools, and every method's episodes the static network's, bit for bit.
func TestConstantClockIsStatic(t *testing.T) {
	static, sm := load(t, builtin.Ringtown)
	flat, fm := load(t, builtin.Rushtown)
	for i := range flat.Clock.Profiles {
		p := &flat.Clock.Profiles[i]
		for k := range p.Mean {
			p.Mean[k], p.Spread[k] = 1, 1
		}
	}
	flat.Name, flat.Instance = static.Name, static.Instance
	if flat.Timed() || engine.Fingerprint(flat, flat.Correlation) != engine.Fingerprint(static, static.Correlation) {
		t.Fatal("a constant clock changed the network's fingerprint or is read as timed")
	}
	tasks := sim.Tasks(static, static.ODs[:2], []float64{0.95, 1.15})
	for _, name := range []string{"let", "dot", "cdot", "cgr", "fma", "clairvoyant"} {
		var got [2][]sim.Result
		for i, c := range []struct {
			net *engine.Network
			m   *linktime.Gaussian
		}{{static, sm}, {flat, fm}} {
			env := &policy.Env{Net: c.net, Model: c.m, Tasks: tasks}
			meth, _ := policy.Lookup(name)
			p, _, err := meth.Build(env)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			pool := sim.NewPool(c.m, c.net.PoolKey(), sim.Test, 0, 100, 0, nil)
			r := &sim.Runner{Net: c.net}
			for _, task := range tasks {
				out := make([]sim.Result, pool.Size)
				if err := r.Run(p, task, pool, out); err != nil {
					t.Fatal(err)
				}
				got[i] = append(got[i], out...)
			}
		}
		for k := range got[0] {
			if got[0][k] != got[1][k] {
				t.Fatalf("%s: episode %d static %+v, constant clock %+v", name, k, got[0][k], got[1][k])
			}
		}
	}
}

// On Rushtown (and its independent-links variant) at departures across
// the morning: the clairvoyant bound is on time on every day some method
// is; with independent links the time-dependent DOT is on time at least
// as often as the time-dependent LET path (paired days, within three
// standard errors of their difference and the grid's resolution); DOT's
// table at the origin never rises when leaving later (the day's laws are
// FIFO, so waiting never helps); and the latest departure for 0.9 is on
// time at 0.9 while the next one tried is not.
func TestTimedInvariants(t *testing.T) {
	for _, indep := range []bool{false, true} {
		net, m := load(t, builtin.Rushtown)
		if indep {
			net.Correlation = engine.Correlation{Model: linktime.Independent}
			var err error
			if m, err = linktime.New(net); err != nil {
				t.Fatal(err)
			}
		}
		od := net.ODs[0]
		deadline := 8*60 + 30.0
		departs := depart.Grid(deadline-14, deadline-4, 1)
		curves, err := depart.Curves(context.Background(), depart.Request{Net: net, Model: m, OD: od, Methods: []string{"let", "dot", "cgr", "clairvoyant"}, Deadline: deadline, Departs: departs, Days: 400})
		if err != nil {
			t.Fatal(err)
		}
		let, dot, bound := curves[0], curves[1], curves[3]
		for i, at := range departs {
			for _, c := range curves[:3] {
				if c.OnTime[i] > bound.OnTime[i] {
					t.Errorf("independent %v, leaving %s: %s on time %d days, the clairvoyant bound %d", indep, engine.FormatClock(at), c.Method, c.OnTime[i], bound.OnTime[i])
				}
			}
			if indep {
				slack := 3*math.Sqrt(float64(let.Days)) + 0.01*float64(let.Days)
				if float64(dot.OnTime[i]) < float64(let.OnTime[i])-slack {
					t.Errorf("leaving %s: dot on time %d days, let %d", engine.FormatClock(at), dot.OnTime[i], let.OnTime[i])
				}
			}
		}
		d := policy.NewTimedDOT(net, m, 0.01)
		prev := math.Inf(1)
		for _, at := range departs {
			v := d.Value(od.Destination, od.Origin, deadline, deadline-at)
			if v > prev+1e-9 {
				t.Errorf("independent %v: DOT's value rises leaving later, at %s: %v after %v", indep, engine.FormatClock(at), v, prev)
			}
			prev = v
		}
		at, _, _, ok := dot.Latest(0.9)
		if !ok {
			t.Fatalf("independent %v: no departure reaches 0.9: %v", indep, dot.Rate)
		}
		for i, x := range departs {
			if x == at && (dot.Rate[i] < 0.9 || i+1 < len(departs) && dot.Rate[i+1] >= 0.9) {
				t.Errorf("independent %v: latest %s, rates %v", indep, engine.FormatClock(at), dot.Rate)
			}
		}
		t.Logf("independent %v: rates let %v dot %v bound %v; latest for 0.9 %s", indep, let.Rate, dot.Rate, bound.Rate, engine.FormatClock(at))
	}
}

// A method that does not know the clock is refused on a timed network with
// its reason, never answered as if the day were static; a static network
// refuses the deadline question.
func TestMethodsWithoutTheClockAreRefused(t *testing.T) {
	net, m := load(t, builtin.Rushtown)
	for _, name := range []string{"fma", "mlr", "pql", "segac", "rollout", "gpght"} {
		_, err := depart.Curves(context.Background(), depart.Request{Net: net, Model: m, OD: net.ODs[0], Methods: []string{name}, Deadline: 540, Departs: []float64{500}, Days: 10})
		if err == nil || !strings.Contains(err.Error(), "method "+name+" does not know the clock") {
			t.Errorf("%s: %v", name, err)
		}
	}
	static, sm := load(t, builtin.Ringtown)
	if _, err := depart.Curves(context.Background(), depart.Request{Net: static, Model: sm, OD: static.ODs[0], Methods: []string{"let"}, Deadline: 540, Departs: []float64{500}, Days: 10}); err == nil || !strings.Contains(err.Error(), "no law over the day") {
		t.Errorf("static: %v", err)
	}
	if _, err := depart.Curves(context.Background(), depart.Request{Net: net, Model: m, OD: net.ODs[0], Methods: []string{"let"}, Deadline: 540, Departs: []float64{545}, Days: 10}); err == nil || !strings.Contains(err.Error(), "not before the deadline") {
		t.Errorf("departure after the deadline: %v", err)
	}
}

func TestClockTimes(t *testing.T) {
	for _, bad := range []string{"", "9", "24:00", "08:60", "8:5", "08:05:00", "-1:00", "ab:cd"} {
		if _, err := engine.ParseClock(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, good := range []string{"00:00", "08:15", "23:59", "7:30"} {
		v, err := engine.ParseClock(good)
		if err != nil || engine.FormatClock(v) != strings.Repeat("0", 5-len(good))+good {
			t.Errorf("%q: %v %v", good, v, err)
		}
	}
}

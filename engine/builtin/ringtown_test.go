package builtin_test

import (
	"bytes"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
)

// Ringtown is generated the same every time, is a map of the size the
// offline demo needs (coordinates, 100–400 links, a spatial correlation),
// and is worth showing: on every OD pair, at some budget factor of its
// table, the path most likely on time beats the path fastest on average by
// at least 5 points on the validation pool; and both sides of the budget's
// lesson appear: a gamble on the ring pays at the tightest factor on one
// pair, the steady avenue at the loosest on another.
func TestRingtown(t *testing.T) {
	net, err := builtin.Load(builtin.Ringtown, "")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := builtin.Load(builtin.Ringtown, "")
	var a, b bytes.Buffer
	netfile.WriteJSON(&a, net)
	netfile.WriteJSON(&b, again)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two generations differ")
	}
	if n := len(net.Links); n < 100 || n > 400 || net.Coords == "" || net.Correlation.Model != "spatial" || len(net.ODs) != 4 {
		t.Fatalf("%d links, coordinates %q, correlation %q, %d OD pairs", n, net.Coords, net.Correlation.Model, len(net.ODs))
	}
	model, err := linktime.New(net)
	if err != nil {
		t.Fatal(err)
	}
	factors := net.BudgetFactors()
	pool := sim.NewPool(model, net.PoolKey(), sim.Validation, 0, 2000, 0, nil)
	var tight, loose float64 // the largest gains at the tightest and the loosest factor
	for _, od := range net.ODs {
		best := 0.0
		for k, task := range sim.Tasks(net, []engine.OD{od}, factors) {
			rate := func(name string) float64 {
				m, _ := policy.Lookup(name)
				p, _, err := m.New(&policy.Env{Net: net, Model: model, Tasks: []sim.Task{task}})
				if err != nil {
					t.Fatal(err)
				}
				r, err := sim.OnTimeRate(net, p, []sim.Task{task}, pool)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			gain := rate("bestpath") - rate("let")
			best = max(best, gain)
			switch k {
			case 0:
				tight = max(tight, gain)
			case len(factors) - 1:
				loose = max(loose, gain)
			}
		}
		if best < 0.05 {
			t.Errorf("OD %s: the most reliable path gains at most %.3f over the fastest", net.ODString(od), best)
		}
	}
	if tight < 0.05 || loose < 0.05 {
		t.Errorf("gains %.3f at the tightest factor, %.3f at the loosest: both lessons (risk pays when time is short, safety when it is not) need ≥ 0.05", tight, loose)
	}
}

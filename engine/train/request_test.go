package train

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// cover: the benchmark pairs first, then every pair with a route, or N of
// them drawn once with the seed.
func TestCoverODs(t *testing.T) {
	net, err := builtin.Load("twobranch", "")
	if err != nil {
		t.Fatal(err)
	}
	bench, _ := CoverODs(net, "bench", 0)
	all, _ := CoverODs(net, "all", 0)
	some, _ := CoverODs(net, "bench+2", 7)
	again, _ := CoverODs(net, "bench+2", 7)
	if len(bench) != 1 || len(all) <= len(bench) || all[0] != bench[0] || len(some) != 3 || !slices.Equal(some, again) {
		t.Errorf("bench %v, all %v, bench+2 %v / %v", bench, all, some, again)
	}
	for _, od := range all {
		if od.Origin == od.Destination || math.IsInf(net.LET(od.Destination).Time[od.Origin], 1) {
			t.Errorf("pair %v has no route", od)
		}
	}
	if _, err := CoverODs(net, "bench+x", 0); err == nil || !strings.Contains(err.Error(), "cover") {
		t.Errorf("bad cover: %v", err)
	}
	// demand+N: the benchmark's pairs, then N pairs with trips, never one
	// twice; refused where the network has no demand table.
	if _, err := CoverODs(net, "demand+2", 7); err == nil || !strings.Contains(err.Error(), "no demand table") {
		t.Errorf("demand without a table: %v", err)
	}
	for _, od := range all[1:4] {
		net.Demand = append(net.Demand, engine.Demand{OD: od, Trips: 10})
	}
	net.Demand = append(net.Demand, engine.Demand{OD: bench[0], Trips: 1e6})
	byDemand, err := CoverODs(net, "demand+2", 7)
	if err != nil || len(byDemand) != 3 || byDemand[0] != bench[0] || byDemand[1] == bench[0] || byDemand[2] == bench[0] || byDemand[1] == byDemand[2] {
		t.Errorf("demand+2: %v (%v)", byDemand, err)
	}
	for _, od := range byDemand[1:] {
		if !slices.Contains(all[1:4], od) {
			t.Errorf("demand+2 drew %v, which has no trips", od)
		}
	}
}

// Every bad field is refused with its name; the default request resolves.
func TestRequestCheck(t *testing.T) {
	net, model := testenv.Network(t, "twobranch", "")
	for _, tc := range []struct {
		field string
		edit  func(*Request)
	}{
		{"budgets", func(q *Request) { q.Budgets = [2]float64{1.1, 0.9} }},
		{"budgets", func(q *Request) { q.Budgets = [2]float64{0, 1} }},
		{"teachers", func(q *Request) { q.Teachers = nil }},
		{"teachers", func(q *Request) { q.Teachers = []string{"pql"} }},
		{"ablation", func(q *Request) { q.Ablation = "nope" }},
		{"size", func(q *Request) { q.Size = [4]int{64, 0, 1, 4} }},
		{"size", func(q *Request) { q.Size = [4]int{30, 1, 1, 4} }},
		{"demos", func(q *Request) { q.Demos = 0 }},
		{"rounds", func(q *Request) { q.Rounds = -1 }},
		{"cover", func(q *Request) { q.Cover = "some" }},
	} {
		q := DefaultRequest()
		tc.edit(&q)
		if _, err := q.Config(net, model); err == nil || !strings.HasPrefix(err.Error(), tc.field) {
			t.Errorf("%+v: error %v, want one naming %s", q, err, tc.field)
		}
	}
	q := DefaultRequest()
	q.Ablation = "indep"
	cfg, err := q.Config(net, model)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Net == net || cfg.Net.Correlation.Model != "independent" || net.Correlation.Model == "independent" {
		t.Errorf("indep control: config network %p (%s), caller's %p (%s)", cfg.Net, cfg.Net.Correlation.Model, net, net.Correlation.Model)
	}
}

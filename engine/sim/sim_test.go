package sim

import (
	"math"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// loop: a→b (1), b→a (2), b→c (3), c→d (4), and d has no way out; a→e (5) is
// the short way to e.
func loop() *engine.Network {
	net := &engine.Network{Name: "loop", Correlation: engine.Correlation{Model: "independent"}}
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		net.Nodes = append(net.Nodes, engine.Node{ID: id})
	}
	for _, l := range [][3]int{{0, 1, 1}, {1, 0, 2}, {1, 2, 3}, {2, 3, 4}, {0, 4, 5}} {
		net.Links = append(net.Links, engine.Link{From: l[0], To: l[1], Mean: float64(l[2])})
	}
	net.Index()
	return net
}

// script plays a fixed sequence of links and records what it was shown.
type script struct {
	links []int
	seen  [][]engine.Step
}

func (s *script) Act(o *engine.Observation) int {
	s.seen = append(s.seen, append([]engine.Step(nil), o.Prefix...))
	return s.links[o.Step]
}

func pool(rows ...[]float64) *Pool {
	p := &Pool{Size: len(rows), Dim: len(rows[0])}
	for _, r := range rows {
		p.X = append(p.X, r...)
	}
	return p
}

func TestEpisodeRules(t *testing.T) {
	net := loop()
	row := []float64{1, 2, 3, 4, 5}
	for _, tc := range []struct {
		name   string
		links  []int
		task   Task
		want   Result
		prefix int // observations checked: the prefix at the last decision
	}{
		{"arrive on time", []int{0, 2}, Task{OD: engine.OD{Origin: 0, Destination: 2}, Budget: 4, Cap: 3},
			Result{End: Arrived, OnTime: true, Time: 4, Links: 2}, 1},
		{"arrive late ends over time", []int{0, 2}, Task{OD: engine.OD{Origin: 0, Destination: 2}, Budget: 3.9, Cap: 3},
			Result{End: OverTime, Time: 4, Links: 2}, 1},
		{"a revisited link costs its one realized time", []int{0, 1, 0, 2}, Task{OD: engine.OD{Origin: 0, Destination: 2}, Budget: 100, Cap: 4},
			Result{End: Arrived, OnTime: true, Time: 1 + 2 + 1 + 3, Links: 4, Revisit: true}, 3},
		{"arriving on the last allowed link counts", []int{0, 1, 4}, Task{OD: engine.OD{Origin: 0, Destination: 4}, Budget: 100, Cap: 3},
			Result{End: Arrived, OnTime: true, Time: 8, Links: 3}, 2},
		{"the cap ends an episode", []int{0, 1, 0}, Task{OD: engine.OD{Origin: 0, Destination: 4}, Budget: 100, Cap: 3},
			Result{End: CapHit, Time: 4, Links: 3, Revisit: true}, 2},
		{"no cap means 4 × the nodes", []int{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, Task{OD: engine.OD{Origin: 0, Destination: 4}, Budget: 100},
			Result{End: CapHit, Time: 30, Links: 20, Revisit: true}, 19},
		{"a dead end fails", []int{0, 2, 3}, Task{OD: engine.OD{Origin: 0, Destination: 4}, Budget: 100, Cap: 9},
			Result{End: DeadEnd, Time: 8, Links: 3}, 2},
		{"exceeding the budget ends at once", []int{0, 1, 0, 1}, Task{OD: engine.OD{Origin: 0, Destination: 4}, Budget: 3.5, Cap: 9},
			Result{End: OverTime, Time: 4, Links: 3, Revisit: true}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &script{links: tc.links}
			r := &Runner{Net: net}
			out := make([]Result, 1)
			if err := r.Run(p, tc.task, pool(row), out); err != nil {
				t.Fatal(err)
			}
			if out[0] != tc.want {
				t.Errorf("got %+v, want %+v", out[0], tc.want)
			}
			last := p.seen[len(p.seen)-1]
			if len(last) != tc.prefix {
				t.Errorf("last prefix %v, want %d steps", last, tc.prefix)
			}
			for k, s := range last {
				if s.Link != tc.links[k] || s.Time != row[s.Link] {
					t.Errorf("prefix[%d] = %+v", k, s)
				}
			}
		})
	}
}

func TestPolicyMustChooseALeavingLink(t *testing.T) {
	r := &Runner{Net: loop()}
	err := r.Run(engine.PolicyFunc(func(*engine.Observation) int { return 3 }), Task{OD: engine.OD{Destination: 4}, Budget: 9}, pool([]float64{1, 2, 3, 4, 5}), make([]Result, 1))
	if err == nil {
		t.Fatal("a link not leaving the node was accepted")
	}
}

func TestHistoryVariants(t *testing.T) {
	net := loop()
	rows := pool([]float64{1, 2, 3, 4, 5}, []float64{10, 20, 30, 40, 50})
	task := Task{OD: engine.OD{Origin: 0, Destination: 2}, Budget: 100, Cap: 3}
	for _, tc := range []struct {
		h    History
		want []engine.Step // shown at episode 0's second decision
	}{
		{Realized, []engine.Step{{Link: 0, Time: 1}}},
		{NoHistory, nil},
		{Shuffled, []engine.Step{{Link: 0, Time: 10}}}, // times from the other realization
	} {
		var shown []engine.Step
		p := engine.PolicyFunc(func(o *engine.Observation) int {
			if o.Step == 1 && o.Remaining == 99 {
				shown = append([]engine.Step(nil), o.Prefix...)
			}
			return []int{0, 2}[o.Step]
		})
		out := make([]Result, 2)
		if err := (&Runner{Net: net, History: tc.h}).Run(p, task, rows, out); err != nil {
			t.Fatal(err)
		}
		if len(shown) != len(tc.want) || (len(shown) == 1 && shown[0] != tc.want[0]) {
			t.Errorf("%v: shown %v, want %v", tc.h, shown, tc.want)
		}
		// The outcome follows the real realization whatever is shown.
		if out[0].Time != 4 || out[1].Time != 40 {
			t.Errorf("%v: times %v, %v", tc.h, out[0].Time, out[1].Time)
		}
	}
}

func TestPoolSeeds(t *testing.T) {
	seen := map[[2]uint64]string{}
	for _, purpose := range []string{Train, Validation, Test} {
		for _, net := range []string{"sfn", "anaheim"} {
			for shift := range uint64(3) {
				for i := range 10 {
					s := Seed(net, purpose, i, shift)
					if prev, dup := seen[s]; dup {
						t.Fatalf("seed %v shared by %s and %s/%s/%d/%d", s, prev, net, purpose, i, shift)
					}
					seen[s] = net + purpose
				}
			}
		}
	}
	// Pools are identical across runs (and, with PCG, across machines).
	net := loop()
	for e := range net.Links {
		net.Links[e].Var = 1
	}
	m, _ := linktime.New(net)
	a := NewPool(m, "loop", Test, 3, 50, 0, nil)
	b := NewPool(m, "loop", Test, 3, 50, 0, nil)
	c := NewPool(m, "loop", Test, 4, 50, 0, nil)
	for i := range a.X {
		if a.X[i] != b.X[i] {
			t.Fatal("same pool drawn twice differs")
		}
	}
	if a.X[0] == c.X[0] && a.X[1] == c.X[1] {
		t.Error("pools 3 and 4 coincide")
	}
}

func TestTrainingStreamIsDisjointFromTestPools(t *testing.T) {
	net := loop()
	for e := range net.Links {
		net.Links[e].Var = 1
	}
	m, _ := linktime.New(net)
	s := NewStream(m, "loop", 0)
	a, b := s.Next(20), s.Next(20)
	if a.Index != 0 || b.Index != 1 || a.Purpose != Train || a.X[0] == b.X[0] {
		t.Fatalf("stream batches %d %d", a.Index, b.Index)
	}
	test := NewPool(m, "loop", Test, 0, 20, 0, nil)
	for i := range a.X {
		if a.X[i] == test.X[i] {
			t.Fatal("training batch 0 repeats test pool 0")
		}
	}
}

// hashPolicy is a batch policy that decides each row alone, by a hash of
// all it is shown (node, budget left, prefix links and times); it counts
// the rows of its largest batch.
type hashPolicy struct {
	net     *engine.Network
	largest int
}

func (h *hashPolicy) Act(o *engine.Observation) int {
	x := uint64(o.Node)*0x9e3779b97f4a7c15 ^ math.Float64bits(o.Remaining)
	for _, st := range o.Prefix {
		x = (x^uint64(st.Link))*0xbf58476d1ce4e5b9 ^ math.Float64bits(st.Time)
	}
	x ^= x >> 31
	out := h.net.Out(o.Node)
	return out[x%uint64(len(out))]
}

func (h *hashPolicy) ActBatch(obs []*engine.Observation, links []int) {
	h.largest = max(h.largest, len(obs))
	for i, o := range obs {
		links[i] = h.Act(o)
	}
}

// One OD pair's budgets played together give every episode the result it
// has played alone, whatever the history shown; a batch policy is asked
// for all of them at once.
func TestRunTasksIsRunPerTask(t *testing.T) {
	net := loop()
	for e := range net.Links {
		net.Links[e].Var = 0.25 * net.Links[e].Mean * net.Links[e].Mean
	}
	m, _ := linktime.New(net)
	p := NewPool(m, "loop", Test, 0, 300, 0, nil)
	for _, od := range []engine.OD{{Origin: 0, Destination: 2}, {Origin: 0, Destination: 4}, {Origin: 1, Destination: 4}} {
		for _, h := range []History{Realized, NoHistory, Shuffled} {
			var tasks []Task
			for _, b := range []float64{2, 4.5, 6, 9} {
				tasks = append(tasks, Task{OD: od, Budget: b, Cap: 6})
			}
			together := make([][]Result, len(tasks))
			for i := range together {
				together[i] = make([]Result, p.Size)
			}
			pol := &hashPolicy{net: net}
			r := &Runner{Net: net, History: h}
			if err := r.RunTasks(pol, tasks, p, together); err != nil {
				t.Fatal(err)
			}
			if pol.largest != len(tasks)*p.Size {
				t.Errorf("largest batch %d rows, want %d", pol.largest, len(tasks)*p.Size)
			}
			for i, task := range tasks {
				alone := make([]Result, p.Size)
				if err := (&Runner{Net: net, History: h}).Run(&hashPolicy{net: net}, task, p, alone); err != nil {
					t.Fatal(err)
				}
				for j := range alone {
					if alone[j] != together[i][j] {
						t.Fatalf("OD %v, %v, budget %v, realization %d: %+v together, %+v alone", od, h, task.Budget, j, together[i][j], alone[j])
					}
				}
			}
		}
	}
}

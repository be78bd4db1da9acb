package sim

import (
	"errors"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// actOnly is hashPolicy without ActBatch: a policy that decides each
// episode alone, as the planners do.
type actOnly struct{ h *hashPolicy }

func (a actOnly) Act(o *engine.Observation) int { return a.h.Act(o) }

// countingOracle is an oracle whose best time is the realization's first
// link time; it counts the times it was asked.
type countingOracle struct{ asked int }

func (c *countingOracle) Act(o *engine.Observation) int { return 0 }
func (c *countingOracle) BestTime(_ engine.OD, _ int, x []float64) float64 {
	c.asked++
	return x[0]
}

// panicky panics on one realization's second step.
type panicky struct{ actOnly }

func (p panicky) Act(o *engine.Observation) int {
	if o.Step == 1 && o.Prefix[0].Time > 0.99 && o.Prefix[0].Time < 1.01 {
		panic("a policy's bug")
	}
	return p.actOnly.Act(o)
}

// A crew gives every episode the result one Runner gives it, whatever the
// number of parts (even ones that do not divide the pool, and pools too
// small to split); a batch policy is asked for the whole pool at once and
// an oracle runs whole (its best times kept for the next budget); a
// policy's panic in a part comes back as an error, not a crash.
func TestCrewIsOneRunner(t *testing.T) {
	net := loop()
	for e := range net.Links {
		net.Links[e].Var = 0.25 * net.Links[e].Mean * net.Links[e].Mean
	}
	m, _ := linktime.New(net)
	for _, size := range []int{300, 40, 5} {
		p := NewPool(m, "loop", Test, 0, size, 0, nil)
		for _, od := range []engine.OD{{Origin: 0, Destination: 2}, {Origin: 0, Destination: 4}, {Origin: 1, Destination: 4}} {
			for _, b := range []float64{2, 4.5, 6, 9} {
				task := Task{OD: od, Budget: b, Cap: 6}
				pol := actOnly{&hashPolicy{net: net}}
				want := make([]Result, p.Size)
				if err := (&Runner{Net: net}).Run(pol, task, p, want); err != nil {
					t.Fatal(err)
				}
				for _, crew := range []int{1, 2, 3, 7} {
					got := make([]Result, p.Size)
					if err := NewCrew(net, crew).Run(pol, task, p, got); err != nil {
						t.Fatal(err)
					}
					for j := range want {
						if got[j] != want[j] {
							t.Fatalf("pool of %d, OD %v, budget %v, crew of %d, realization %d: %+v, one Runner %+v", size, od, b, crew, j, got[j], want[j])
						}
					}
				}
			}
		}
	}
	p := NewPool(m, "loop", Test, 0, 300, 0, nil)
	crew := NewCrew(net, 4)
	out := make([]Result, p.Size)
	batch := &hashPolicy{net: net}
	if err := crew.Run(batch, Task{OD: engine.OD{Origin: 0, Destination: 4}, Budget: 6, Cap: 6}, p, out); err != nil || batch.largest != p.Size {
		t.Errorf("a batch policy: %v, largest batch %d rows, want %d", err, batch.largest, p.Size)
	}
	oracle := &countingOracle{}
	for _, b := range []float64{4, 6} {
		if err := crew.Run(oracle, Task{OD: engine.OD{Origin: 0, Destination: 4}, Budget: b, Cap: 6}, p, out); err != nil {
			t.Fatal(err)
		}
	}
	if oracle.asked != p.Size {
		t.Errorf("an oracle on two budgets was asked %d best times, want %d (one a realization)", oracle.asked, p.Size)
	}
	row := make([]float64, p.Dim)
	for i := range row {
		row[i] = 1 // the realization that makes panicky panic
	}
	copy(p.Row(250), row)
	err := crew.Run(panicky{actOnly{&hashPolicy{net: net}}}, Task{OD: engine.OD{Origin: 0, Destination: 2}, Budget: 20, Cap: 6}, p, out)
	if e := (*engine.Error)(nil); !errors.As(err, &e) || e.Code != engine.EINTERNAL {
		t.Errorf("a panic in a part: %v, want an internal error", err)
	}
}

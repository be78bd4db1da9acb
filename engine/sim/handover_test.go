package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// wanderer picks a link leaving its node by a hash of what it sees: a
// stand-in for a learned model far from its training, which loops until
// the step cap ends its episodes.
type wanderer struct {
	net *engine.Network
}

func (w wanderer) Act(o *engine.Observation) int {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d|%d|%d", o.Node, o.Destination, o.Step)
	out := w.net.Out(o.Node)
	return out[h.Sum64()%uint64(len(out))]
}

// guarded is the wanderer with engine.HandsOver: outside says whether an
// episode is outside its training (every one, or none).
type guarded struct {
	wanderer
	outside bool
}

func (g guarded) Fallback(o *engine.Observation) (*engine.LETTree, *engine.HopTree) {
	if !g.outside {
		return nil, nil
	}
	let := g.net.LET(o.Destination)
	return let, g.net.FewestLinks(o.Destination, let)
}

func (g guarded) FallbackName() string { return "let" }

// randomNet is n nodes on a two-way ring with n/2 one-way chords across
// it, means drawn from rng: every node reaches every other, by routes of
// many lengths.
func randomNet(rng *rand.Rand, n int) *engine.Network {
	net := &engine.Network{Name: "random", Correlation: engine.Correlation{Model: "independent"}}
	for i := range n {
		net.Nodes = append(net.Nodes, engine.Node{ID: fmt.Sprint(i + 1)})
	}
	add := func(a, b int) {
		net.Links = append(net.Links, engine.Link{From: a, To: b, Mean: 0.5 + 2*rng.Float64()})
	}
	for i := range n {
		add(i, (i+1)%n)
		add((i+1)%n, i)
	}
	for range n / 2 {
		if a, b := rng.IntN(n), rng.IntN(n); a != b && b != (a+1)%n && a != (b+1)%n {
			add(a, b)
		}
	}
	net.Index()
	return net
}

// The hand-over rule's invariants, on generated networks with a policy
// that wanders, under a budget no episode runs out of: inside the
// training (Fallback nil) every episode is the policy's own; outside, an
// episode the policy drives home within the cap is untouched and not
// marked, and one that the cap would have ended is handed over and
// arrives within the cap, whenever its origin is close enough to arrive.
func TestHandOverKeepsArrivalsAndSavesCapHits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 70))
	handedSeen := 0
	for k := range 25 {
		size := 8 + rng.IntN(30)
		net := randomNet(rng, size)
		m, err := linktime.New(net)
		if err != nil {
			t.Fatal(err)
		}
		pool := NewPool(m, "random", Test, k, 40, 0, nil)
		for trial := range 6 {
			od := engine.OD{Origin: rng.IntN(len(net.Nodes)), Destination: rng.IntN(len(net.Nodes))}
			if od.Origin == od.Destination {
				continue
			}
			hops := net.FewestLinks(od.Destination, nil).Hops[od.Origin]
			capN := hops + rng.IntN(6)
			task := Task{OD: od, Budget: 1e9, Cap: capN}
			plain, inside, outside := make([]Result, pool.Size), make([]Result, pool.Size), make([]Result, pool.Size)
			r := &Runner{Net: net}
			for _, run := range []struct {
				p   engine.Policy
				out []Result
			}{{wanderer{net}, plain}, {guarded{wanderer{net}, false}, inside}, {guarded{wanderer{net}, true}, outside}} {
				if err := r.Run(run.p, task, pool, run.out); err != nil {
					t.Fatal(err)
				}
			}
			for i := range plain {
				where := fmt.Sprintf("net %d (%d nodes), trial %d, OD %v, cap %d (fewest %d), day %d", k, size, trial, od, capN, hops, i)
				if inside[i] != plain[i] {
					t.Fatalf("%s: inside the training the episode changed: %+v, alone %+v", where, inside[i], plain[i])
				}
				switch plain[i].End {
				case Arrived:
					if outside[i] != plain[i] {
						t.Fatalf("%s: the policy arrived within the cap alone (%+v) but the rule changed it to %+v", where, plain[i], outside[i])
					}
				case CapHit:
					if !outside[i].HandedOver || outside[i].End != Arrived || outside[i].Links > capN {
						t.Fatalf("%s: the cap ended the policy's episode, and handed over it gave %+v (want arrived within the cap, marked)", where, outside[i])
					}
					handedSeen++
				}
			}
		}
	}
	if handedSeen < 100 {
		t.Fatalf("only %d episodes were handed over: the generated cases do not exercise the rule", handedSeen)
	}
}

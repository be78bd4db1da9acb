package netfile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paulmach/osm"

	"github.com/ontime-routing/ontime/engine"
)

// Property: an automatic layout never puts two nodes on one spot (the
// middle nodes of a diamond once shared one, and the map's zoom broke).
// Tried on diamonds, stars, chains and random small graphs.
func TestLayoutNeverStacksNodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	build := func(n int, edges [][2]int) *engine.Network {
		net := &engine.Network{Name: "g"}
		for i := range n {
			net.Nodes = append(net.Nodes, engine.Node{ID: string(rune('a'+i%26)) + string(rune('0'+i/26))})
		}
		for _, e := range edges {
			net.Links = append(net.Links, engine.Link{From: e[0], To: e[1], Mean: 1, Var: 0.1})
		}
		return net
	}
	cases := map[string]*engine.Network{
		"diamond": build(4, [][2]int{{0, 1}, {1, 3}, {0, 2}, {2, 3}}),
		"five":    build(5, [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}}),
		"star":    build(6, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}}),
		"pair":    build(2, [][2]int{{0, 1}}),
		"none":    build(3, nil),
	}
	for k := range 40 {
		n := 3 + rng.IntN(12)
		var edges [][2]int
		for i := 1; i < n; i++ {
			edges = append(edges, [2]int{rng.IntN(i), i})
		}
		for range rng.IntN(n) {
			edges = append(edges, [2]int{rng.IntN(n), rng.IntN(n)})
		}
		cases["random"+string(rune('A'+k))] = build(n, edges)
	}
	for name, net := range cases {
		Layout(net)
		minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, nd := range net.Nodes {
			minX, maxX, minY, maxY = math.Min(minX, nd.X), math.Max(maxX, nd.X), math.Min(minY, nd.Y), math.Max(maxY, nd.Y)
		}
		extent := math.Max(maxX-minX, maxY-minY)
		for i := range net.Nodes {
			for j := range i {
				a, b := net.Nodes[i], net.Nodes[j]
				if d := math.Hypot(a.X-b.X, a.Y-b.Y); !(d > 1e-3*extent) {
					t.Errorf("%s: nodes %d and %d %.3g apart (extent %.3g)", name, j, i, d, extent)
				}
			}
		}
	}
}

// The same network gets the same layout at every import: Isomap reads the
// nodes in ID order, not in a map's. A ring with chords is symmetric, so
// many layouts are equally good, and map order gave 18 of them in 20 runs.
func TestLayoutIsTheSameEveryRun(t *testing.T) {
	ring := func() *engine.Network {
		net := &engine.Network{Name: "ring"}
		for i := range 30 {
			net.Nodes = append(net.Nodes, engine.Node{ID: fmt.Sprint(i)})
		}
		for i := range 30 {
			net.Links = append(net.Links, engine.Link{From: i, To: (i + 1) % 30, Mean: 1}, engine.Link{From: i, To: (i*7 + 3) % 30, Mean: 1})
		}
		Layout(net)
		return net
	}
	first := ring()
	for run := range 10 {
		again := ring()
		for i, n := range again.Nodes {
			if n.X != first.Nodes[i].X || n.Y != first.Nodes[i].Y {
				t.Fatalf("run %d: node %d at (%g, %g), first run (%g, %g)", run, i, n.X, n.Y, first.Nodes[i].X, first.Nodes[i].Y)
			}
		}
	}
}

// Of two largest strongly connected components of equal size, the same one
// is kept at every import (Tarjan's search reads nodes in ID order).
func TestLargestComponentTieIsTheSameEveryRun(t *testing.T) {
	kept := func() []bool {
		g := &roadGraph{nodes: make([]osm.NodeID, 6), coords: make([][2]float64, 6)}
		for _, c := range [][2]int{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}} {
			g.edges = append(g.edges, roadEdge{from: c[0], to: c[1]})
		}
		g.keepLargestComponent()
		alive := make([]bool, len(g.edges))
		for i, e := range g.edges {
			alive[i] = !e.dead
		}
		return alive
	}
	first := kept()
	if n := len(slices.DeleteFunc(slices.Clone(first), func(b bool) bool { return !b })); n != 3 {
		t.Fatalf("kept %d links, want one triangle's 3: %v", n, first)
	}
	for run := range 20 {
		if again := kept(); !slices.Equal(again, first) {
			t.Fatalf("run %d kept %v, first run %v", run, again, first)
		}
	}
}

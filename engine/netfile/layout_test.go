package netfile

import (
	"math"
	"math/rand/v2"
	"testing"

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

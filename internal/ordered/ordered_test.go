package ordered

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/simple"
)

func ids(it graph.Nodes) []int64 {
	var out []int64
	for it.Next() {
		out = append(out, it.Node().ID())
	}
	return out
}

// The sorted-once graph lists every node and every node's neighbours in
// increasing ID at every read, whatever a reader did to an earlier list
// (Yen's search swaps the entries of the lists it reads).
func TestWeightedDirectedListsInIDOrderAtEveryRead(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		g := simple.NewWeightedDirectedGraph(0, 0)
		n := 2 + rng.IntN(40)
		for i := range n {
			g.AddNode(simple.Node(i))
		}
		for range rng.IntN(4 * n) {
			a, b := rng.IntN(n), rng.IntN(n)
			if a != b {
				g.SetWeightedEdge(simple.WeightedEdge{F: simple.Node(a), T: simple.Node(b), W: rng.Float64()})
			}
		}
		og := NewWeightedDirected(g)
		for read := range 3 {
			all := ids(og.Nodes())
			if !slices.IsSorted(all) || len(all) != n {
				t.Fatalf("trial %d read %d: nodes %v", trial, read, all)
			}
			for i := range n {
				want := ids(g.From(int64(i)))
				slices.Sort(want)
				it := og.From(int64(i))
				nodes := graph.NodesOf(it)
				got := make([]int64, len(nodes))
				for k, x := range nodes {
					got[k] = x.ID()
				}
				if !slices.Equal(got, want) {
					t.Fatalf("trial %d read %d: node %d's neighbours %v, want %v", trial, read, i, got, want)
				}
				rng.Shuffle(len(nodes), func(a, b int) { nodes[a], nodes[b] = nodes[b], nodes[a] }) // a reader's edit
			}
		}
	}
}

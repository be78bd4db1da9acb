// Package ordered lists a gonum graph's nodes in increasing ID. gonum's
// simple graphs keep nodes in maps, so their iterators change order from
// run to run, and the algorithms that read them (Yen's k shortest paths,
// Isomap's layout, Tarjan's components) break ties by that order: the same
// input gave other answers on other runs.
package ordered

import (
	"cmp"
	"slices"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
)

// Nodes returns its nodes as a new iterator in increasing ID, over a copy
// the caller may edit (Yen's search edits the lists it reads).
func Nodes(it graph.Nodes) graph.Nodes {
	return iterator.NewOrderedNodes(sorted(it))
}

// sorted lists its nodes in increasing ID, in a new slice.
func sorted(it graph.Nodes) []graph.Node {
	nodes := slices.Clone(graph.NodesOf(it))
	slices.SortFunc(nodes, func(a, b graph.Node) int { return cmp.Compare(a.ID(), b.ID()) })
	return nodes
}

// Directed is a directed graph read in increasing ID (Tarjan's components).
type Directed struct{ graph.Directed }

func (g Directed) Nodes() graph.Nodes        { return Nodes(g.Directed.Nodes()) }
func (g Directed) From(id int64) graph.Nodes { return Nodes(g.Directed.From(id)) }

// WeightedDirected is a weighted directed graph read in increasing ID
// (Yen's k shortest paths, which keeps its weights). Its lists are sorted
// once, at first read, and each read gets a copy: Yen's search runs a
// Dijkstra search per spur node, each listing every node and the
// neighbours of each node it settles, and sorting them again at each read
// was half the search's time (Anaheim's bestpath: 1.65 of 3.6 s). The
// graph must not change once read; not for concurrent use.
type WeightedDirected struct {
	graph.WeightedDirected
	nodes []graph.Node
	from  map[int64][]graph.Node
}

// NewWeightedDirected reads g in increasing ID.
func NewWeightedDirected(g graph.WeightedDirected) *WeightedDirected {
	return &WeightedDirected{WeightedDirected: g, from: map[int64][]graph.Node{}}
}

func (g *WeightedDirected) Nodes() graph.Nodes {
	if g.nodes == nil {
		g.nodes = sorted(g.WeightedDirected.Nodes())
	}
	return iterator.NewOrderedNodes(slices.Clone(g.nodes))
}

func (g *WeightedDirected) From(id int64) graph.Nodes {
	nodes, ok := g.from[id]
	if !ok {
		nodes = sorted(g.WeightedDirected.From(id))
		g.from[id] = nodes
	}
	return iterator.NewOrderedNodes(slices.Clone(nodes))
}

// Undirected is an undirected graph read in increasing ID (Isomap's layout).
type Undirected struct{ graph.Undirected }

func (g Undirected) Nodes() graph.Nodes        { return Nodes(g.Undirected.Nodes()) }
func (g Undirected) From(id int64) graph.Nodes { return Nodes(g.Undirected.From(id)) }

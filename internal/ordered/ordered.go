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
	nodes := slices.Clone(graph.NodesOf(it))
	slices.SortFunc(nodes, func(a, b graph.Node) int { return cmp.Compare(a.ID(), b.ID()) })
	return iterator.NewOrderedNodes(nodes)
}

// Directed is a directed graph read in increasing ID (Tarjan's components).
type Directed struct{ graph.Directed }

func (g Directed) Nodes() graph.Nodes        { return Nodes(g.Directed.Nodes()) }
func (g Directed) From(id int64) graph.Nodes { return Nodes(g.Directed.From(id)) }

// WeightedDirected is a weighted directed graph read in increasing ID
// (Yen's k shortest paths, which keeps its weights).
type WeightedDirected struct{ graph.WeightedDirected }

func (g WeightedDirected) Nodes() graph.Nodes { return Nodes(g.WeightedDirected.Nodes()) }
func (g WeightedDirected) From(id int64) graph.Nodes {
	return Nodes(g.WeightedDirected.From(id))
}

// Undirected is an undirected graph read in increasing ID (Isomap's layout).
type Undirected struct{ graph.Undirected }

func (g Undirected) Nodes() graph.Nodes        { return Nodes(g.Undirected.Nodes()) }
func (g Undirected) From(id int64) graph.Nodes { return Nodes(g.Undirected.From(id)) }

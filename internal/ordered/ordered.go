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

// Nodes returns it's nodes as a new iterator in increasing ID, over a copy
// the caller may edit (Yen's search edits the lists it reads).
func Nodes(it graph.Nodes) graph.Nodes {
	nodes := slices.Clone(graph.NodesOf(it))
	slices.SortFunc(nodes, func(a, b graph.Node) int { return cmp.Compare(a.ID(), b.ID()) })
	return iterator.NewOrderedNodes(nodes)
}

package testenv

import (
	"fmt"

	"github.com/ontime-routing/ontime/engine"
)

// Grid is the street grid the tests build their networks on: w × h nodes
// spacing apart, ids 1 … w·h row by row, and its streets, each a pair of
// neighbouring nodes (a, b) with b to the right of a or below it, node by
// node in id order. A test adds its links along the streets (one way or
// both, with its own times).
func Grid(w, h int, spacing float64) (nodes []engine.Node, streets [][2]int) {
	for y := range h {
		for x := range w {
			nodes = append(nodes, engine.Node{ID: fmt.Sprint(y*w + x + 1), Coord: [2]float64{float64(x) * spacing, float64(y) * spacing}})
		}
	}
	for y := range h {
		for x := range w {
			i := y*w + x
			if x+1 < w {
				streets = append(streets, [2]int{i, i + 1})
			}
			if y+1 < h {
				streets = append(streets, [2]int{i, i + w})
			}
		}
	}
	return nodes, streets
}

// GridNetwork is a network on Grid whose streets are two-way links, each
// pair of directions given mean and variance by times (in the streets'
// order, the link a→b first); projected and indexed.
func GridNetwork(name string, w, h int, spacing float64, times func(a, b int) (mean, variance float64)) *engine.Network {
	net := &engine.Network{Name: name, Coords: engine.CoordPlanar}
	nodes, streets := Grid(w, h, spacing)
	net.Nodes = nodes
	for _, s := range streets {
		for _, d := range [][2]int{s, {s[1], s[0]}} {
			m, v := times(d[0], d[1])
			net.Links = append(net.Links, engine.Link{From: d[0], To: d[1], Mean: m, Var: v})
		}
	}
	net.Project()
	net.Index()
	return net
}

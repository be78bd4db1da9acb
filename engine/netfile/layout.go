// The automatic layout of a network given without coordinates.

package netfile

import (
	"math"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/internal/ordered"
	"gonum.org/v1/gonum/graph/layout"
	"gonum.org/v1/gonum/graph/simple"
)

// Layout places a network without coordinates: Isomap (gonum) on the
// undirected graph, which keeps graph distances; a circle where the graph
// is too large or not connected.
func Layout(net *engine.Network) {
	defer fixLayout(net)
	defer unstack(net)
	if len(net.Nodes) <= layoutLimit {
		g := simple.NewUndirectedGraph()
		for i := range net.Nodes {
			g.AddNode(simple.Node(i))
		}
		for _, l := range net.Links {
			if l.From != l.To && g.Edge(int64(l.From), int64(l.To)) == nil {
				g.SetEdge(g.NewEdge(simple.Node(l.From), simple.Node(l.To)))
			}
		}
		// In ID order: Isomap numbers the nodes as it reads them, and with
		// simple's map order a symmetric grid got another of its equally
		// good layouts at every import (18 in 20 runs of a 30-node ring).
		opt := layout.NewOptimizerR2(ordered.Undirected{Undirected: g}, layout.IsomapR2{}.Update)
		for opt.Update() {
		}
		ok := true
		for i := range net.Nodes {
			p := opt.Coord2(int64(i))
			if math.IsNaN(p.X) || math.IsNaN(p.Y) {
				ok = false
				break
			}
			net.Nodes[i].X, net.Nodes[i].Y = p.X, p.Y
		}
		if ok {
			return
		}
	}
	for i := range net.Nodes {
		a := 2 * math.Pi * float64(i) / float64(len(net.Nodes))
		net.Nodes[i].X, net.Nodes[i].Y = math.Cos(a), math.Sin(a)
	}
}

// unstack moves nodes a layout put on one spot (Isomap places nodes with
// the same distances to every other, like the two middle nodes of a
// diamond, together) onto a small circle around it: a tenth of the
// distance to the nearest other spot, so that every node can be seen and
// clicked, and the map's bounds never collapse.
func unstack(net *engine.Network) {
	if len(net.Nodes) < 2 {
		return
	}
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, n := range net.Nodes {
		minX, maxX, minY, maxY = math.Min(minX, n.X), math.Max(maxX, n.X), math.Min(minY, n.Y), math.Max(maxY, n.Y)
	}
	extent := math.Max(maxX-minX, maxY-minY)
	if extent == 0 { // every node on one spot: a unit circle
		for i := range net.Nodes {
			a := 2 * math.Pi * float64(i) / float64(len(net.Nodes))
			net.Nodes[i].X, net.Nodes[i].Y = minX+math.Cos(a), minY+math.Sin(a)
		}
		return
	}
	tol := 1e-6 * extent
	type spot struct{ x, y float64 }
	var spots []spot
	index := map[[2]int64]int{} // a spot by its position rounded to tol
	groups := map[int][]int{}
	for i, n := range net.Nodes {
		key := [2]int64{int64(math.Round(n.X / tol)), int64(math.Round(n.Y / tol))}
		k, ok := index[key]
		if !ok {
			spots = append(spots, spot{n.X, n.Y})
			k = len(spots) - 1
			index[key] = k
		}
		groups[k] = append(groups[k], i)
	}
	for k, members := range groups {
		if len(members) < 2 {
			continue
		}
		near := math.Inf(1) // stacks are rare: a scan of the spots for each
		for j, s := range spots {
			if j != k {
				near = math.Min(near, math.Hypot(s.x-spots[k].x, s.y-spots[k].y))
			}
		}
		r := 0.1 * near // near is finite: the extent is not 0, so there is another spot
		for m, i := range members {
			a := 2 * math.Pi * float64(m) / float64(len(members))
			net.Nodes[i].X, net.Nodes[i].Y = spots[k].x+r*math.Cos(a), spots[k].y+r*math.Sin(a)
		}
	}
}

// fixLayout keeps a computed layout as the nodes' coordinates, so that it
// survives a round trip through ontime's JSON.
func fixLayout(net *engine.Network) {
	for i := range net.Nodes {
		net.Nodes[i].Coord = [2]float64{net.Nodes[i].X, net.Nodes[i].Y}
	}
	net.Coords = engine.CoordLayout
}

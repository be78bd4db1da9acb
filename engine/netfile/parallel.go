package netfile

import (
	"fmt"

	"github.com/ontime-routing/ontime/engine"
)

// ParallelConnector is the mean, in minutes, of the link that joins a
// parallel road's split node to its end: a thousandth of a minute, so that
// the road keeps its own law and the connector costs nothing anyone reads.
const ParallelConnector = 0.001

// splitParallel imports parallel links (two or more links between the same
// two nodes that differ in time or spread: a toll road beside a free one),
// which ontime's methods, keyed by the links between two nodes, cannot hold
// as they are: every such link after the first ends at a new node on the
// road (engine.ParallelMark: "3~12#2", drawn near the road's middle),
// joined to the end by a connector link of ParallelConnector minutes with
// no spread. Each road keeps its own law; a route through it takes one
// link more. A link that repeats an earlier one (the same row less its
// line number, rows[e]; nil rows: the same time and spread) is a
// duplicate, not a second road: it is refused, naming the row it repeats.
// Returns how many links were split.
func splitParallel(net *engine.Network, src *source, rows []string, unitMinutes float64) (int, engine.Problems) {
	var dups engine.Problems
	type key struct{ from, to int }
	first := map[key][]int{} // the links between two nodes, in file order
	for e, l := range net.Links {
		k := key{l.From, l.To}
		first[k] = append(first[k], e)
	}
	ids := map[string]bool{}
	for _, n := range net.Nodes {
		ids[n.ID] = true
	}
	split := 0
	n := len(net.Links)
	for e := range n {
		l := net.Links[e]
		same := first[key{l.From, l.To}]
		at := indexOf(same, e)
		if at == 0 {
			continue
		}
		if f := repeats(net, rows, same[:at], e); f >= 0 {
			s, fs := src.at(e, net), src.at(f, net)
			dups = append(dups, engine.InputError(s.file, s.line, "From/To", "duplicate link %s→%s: it repeats the link at %s line %d (parallel roads that differ are imported, each as a road of its own; a row that repeats another is not)",
				net.Nodes[l.From].ID, net.Nodes[l.To].ID, fs.file, fs.line))
			// split all the same, so that Check does not say it twice
		}
		from, to := net.Nodes[l.From], net.Nodes[l.To]
		id := fmt.Sprintf("%s%s%s#%d", from.ID, engine.ParallelMark, to.ID, at+1)
		for ids[id] {
			id += "'"
		}
		ids[id] = true
		mid := engine.Node{ID: id, Coord: between(from.Coord, to.Coord, 0.5, 0.06*float64(at)), X: 0, Y: 0}
		mid.X, mid.Y = betweenXY(from, to, 0.5, 0.06*float64(at))
		net.Nodes = append(net.Nodes, mid)
		x := len(net.Nodes) - 1
		net.Links[e].To, net.Links[e].Shape = x, nil // drawn straight to the split node, beside the first road
		net.Links = append(net.Links, engine.Link{From: x, To: l.To, Mean: ParallelConnector / unitMinutes})
		if src != nil && e < len(src.links) {
			src.links[e].to = to.ID
			c := src.links[e]
			c.meanField, c.varField = "parallel road's connector ("+c.meanField+")", "parallel road's connector"
			src.links = append(src.links, c)
		}
		split++
	}
	if split > 0 {
		net.Index()
	}
	return split, dups
}

func indexOf(xs []int, x int) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// repeats is the link of earlier that link e repeats (its row, rows[e],
// or without rows its time and spread), or -1.
func repeats(net *engine.Network, rows []string, earlier []int, e int) int {
	for _, f := range earlier {
		if rows != nil && rows[f] == rows[e] || rows == nil && net.Links[f].Mean == net.Links[e].Mean && net.Links[f].Var == net.Links[e].Var {
			return f
		}
	}
	return -1
}

// parallelNote is the import report's word on the links split.
func parallelNote(n int) string {
	links := "links"
	if n == 1 {
		links = "link"
	}
	return fmt.Sprintf("%d parallel %s (a second road between the same two nodes) imported as roads of their own: each ends at a new node on the road (id FROM%sTO#k, not offered as a trip's end), joined to its end by a %g-min connector", n, links, engine.ParallelMark, ParallelConnector)
}

// between is the point at share t from a to b, moved sideways by side ×
// their distance (so a second road is drawn beside the first).
func between(a, b [2]float64, t, side float64) [2]float64 {
	dx, dy := b[0]-a[0], b[1]-a[1]
	return [2]float64{a[0] + t*dx - side*dy, a[1] + t*dy + side*dx}
}

func betweenXY(a, b engine.Node, t, side float64) (float64, float64) {
	p := between([2]float64{a.X, a.Y}, [2]float64{b.X, b.Y}, t, side)
	return p[0], p[1]
}

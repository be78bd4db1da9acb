package netfile

import (
	"math"

	"github.com/paulmach/osm"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"

	"github.com/ontime-routing/ontime/internal/ordered"
)

// roadEdge is a directed road between two junctions.
type roadEdge struct {
	from, to int
	meters   float64
	minutes  float64
	way      osm.WayID
	shape    [][2]float64 // the points between its ends (lon, lat), for drawing
	dead     bool
}

// roadStats says what building the graph did, for the import report.
type roadStats struct {
	missingRefs     int // way nodes not in the extract (cut at its border)
	junctions       int // graph nodes before the strong component
	segments        int // directed links before anything was dropped
	loops, parallel int // self-loops and slower parallel links dropped
	sccNodes        int // nodes and links of the largest strongly connected component
	sccLinks        int
	components      int // strongly connected components in all
	contracted      int // degree-2 nodes merged into their links
	short           int // roads shorter than MinRoadMeters, lengthened to it
}

// MinRoadMeters is the shortest road a link is given: OpenStreetMap has
// distinct nodes drawn at one spot, and a link of length 0 would take no
// time, which no link-time law allows.
const MinRoadMeters = 1.0

// roadGraph is an extract's drivable ways as a directed graph: ways are
// split where they meet (junctions), the largest strongly connected
// component is kept (every trip in it can be driven), and chains through
// nodes with two neighbours are merged into one link.
type roadGraph struct {
	nodes  []osm.NodeID
	coords [][2]float64 // each node's lon, lat
	edges  []roadEdge
	stats  roadStats
}

func buildRoads(x *osmExtract, allow map[string]bool) *roadGraph {
	g := &roadGraph{}
	// Runs of a way's nodes present in the extract (a way crossing its
	// border is cut there).
	type run struct {
		w     *osmWay
		nodes []osm.NodeID
	}
	var runs []run
	for i := range x.ways {
		w := &x.ways[i]
		if !allow[w.class] {
			continue
		}
		start := 0
		for k := 0; k <= len(w.nodes); k++ {
			if k < len(w.nodes) {
				if _, ok := x.coords[w.nodes[k]]; ok {
					continue
				}
				g.stats.missingRefs++
			}
			if k-start >= 2 {
				runs = append(runs, run{w, w.nodes[start:k]})
			}
			start = k + 1
		}
	}
	// A junction is where runs meet or end.
	uses := map[osm.NodeID]int{}
	for _, r := range runs {
		for _, n := range r.nodes {
			uses[n]++
		}
		uses[r.nodes[0]]++
		uses[r.nodes[len(r.nodes)-1]]++
	}
	index := map[osm.NodeID]int{}
	junction := func(n osm.NodeID) int {
		if i, ok := index[n]; ok {
			return i
		}
		index[n] = len(g.nodes)
		g.nodes = append(g.nodes, n)
		g.coords = append(g.coords, x.coords[n])
		return len(g.nodes) - 1
	}
	for _, r := range runs {
		from, meters := 0, 0.0
		var shape [][2]float64
		for k := 1; k < len(r.nodes); k++ {
			a, b := x.coords[r.nodes[k-1]], x.coords[r.nodes[k]]
			meters += haversine(a, b)
			if uses[r.nodes[k]] < 2 {
				shape = append(shape, b)
				continue
			}
			if meters < MinRoadMeters {
				meters = MinRoadMeters // two nodes drawn at one spot
				g.stats.short++
			}
			u, v := junction(r.nodes[from]), junction(r.nodes[k])
			minutes := meters / (r.w.kmh * 1000 / 60)
			if r.w.forward {
				g.edges = append(g.edges, roadEdge{from: u, to: v, meters: meters, minutes: minutes, way: r.w.id, shape: shape})
			}
			if r.w.backward {
				g.edges = append(g.edges, roadEdge{from: v, to: u, meters: meters, minutes: minutes, way: r.w.id, shape: reversed(shape)})
			}
			from, meters, shape = k, 0, nil
		}
	}
	g.stats.junctions, g.stats.segments = len(g.nodes), len(g.edges)
	g.dropLoopsAndParallels()
	g.keepLargestComponent()
	g.contract()
	g.compact()
	return g
}

// dropLoopsAndParallels drops self-loops and, of links joining the same
// two junctions the same way, all but the fastest.
func (g *roadGraph) dropLoopsAndParallels() {
	best := map[[2]int]int{}
	for i := range g.edges {
		e := &g.edges[i]
		if e.from == e.to {
			e.dead = true
			g.stats.loops++
			continue
		}
		k := [2]int{e.from, e.to}
		j, ok := best[k]
		switch {
		case !ok:
			best[k] = i
		case e.minutes < g.edges[j].minutes:
			g.edges[j].dead = true
			best[k] = i
			g.stats.parallel++
		default:
			e.dead = true
			g.stats.parallel++
		}
	}
}

// keepLargestComponent keeps the largest strongly connected component:
// from any of its nodes every other can be reached and left again.
func (g *roadGraph) keepLargestComponent() {
	dg := simple.NewDirectedGraph()
	for i := range g.nodes {
		dg.AddNode(simple.Node(i))
	}
	for _, e := range g.edges {
		if !e.dead {
			dg.SetEdge(simple.Edge{F: simple.Node(e.from), T: simple.Node(e.to)})
		}
	}
	// In ID order, so that of two largest components of equal size the
	// same one is kept at every import (simple's map order varied).
	sccs := topo.TarjanSCC(ordered.Directed{Directed: dg})
	g.stats.components = len(sccs)
	largest := 0
	for i, c := range sccs {
		if len(c) > len(sccs[largest]) {
			largest = i
		}
	}
	in := make([]bool, len(g.nodes))
	if len(sccs) > 0 {
		for _, n := range sccs[largest] {
			in[n.ID()] = true
		}
		g.stats.sccNodes = len(sccs[largest])
	}
	for i := range g.edges {
		e := &g.edges[i]
		if !e.dead && !(in[e.from] && in[e.to]) {
			e.dead = true
		}
		if !e.dead {
			g.stats.sccLinks++
		}
	}
}

// contract merges each node that only passes traffic through (exactly two
// neighbours a and b, entered from one and left to the other: a→v→b, and
// b→v→a where the road is two-way) into one link per direction, length
// and time summed, its point kept in the link's shape. A merge that would
// duplicate a link a→b already there is not made.
func (g *roadGraph) contract() {
	out := make([][]int, len(g.nodes))
	in := make([][]int, len(g.nodes))
	has := map[[2]int]bool{}
	for i, e := range g.edges {
		if e.dead {
			continue
		}
		out[e.from] = append(out[e.from], i)
		in[e.to] = append(in[e.to], i)
		has[[2]int{e.from, e.to}] = true
	}
	alive := func(list []int) []int {
		k := 0
		for _, i := range list {
			if !g.edges[i].dead {
				list[k] = i
				k++
			}
		}
		return list[:k]
	}
	merge := func(e1, e2 int) int { // e1 = a→v, e2 = v→b
		a, b := g.edges[e1], g.edges[e2]
		shape := make([][2]float64, 0, len(a.shape)+1+len(b.shape))
		shape = append(append(append(shape, a.shape...), g.coords[a.to]), b.shape...)
		g.edges[e1].dead, g.edges[e2].dead = true, true
		delete(has, [2]int{a.from, a.to})
		delete(has, [2]int{b.from, b.to})
		g.edges = append(g.edges, roadEdge{from: a.from, to: b.to, meters: a.meters + b.meters, minutes: a.minutes + b.minutes, way: a.way, shape: shape})
		i := len(g.edges) - 1
		has[[2]int{a.from, b.to}] = true
		out[a.from] = append(out[a.from], i)
		in[b.to] = append(in[b.to], i)
		return i
	}
	queue := make([]int, len(g.nodes))
	for i := range queue {
		queue[i] = i
	}
	for len(queue) > 0 {
		v := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		out[v], in[v] = alive(out[v]), alive(in[v])
		if len(out[v]) != len(in[v]) || len(out[v]) == 0 || len(out[v]) > 2 {
			continue
		}
		if len(out[v]) == 1 {
			e1, e2 := in[v][0], out[v][0]
			a, b := g.edges[e1].from, g.edges[e2].to
			if a == b || has[[2]int{a, b}] {
				continue
			}
			merge(e1, e2)
			out[v], in[v] = nil, nil
			g.stats.contracted++
			queue = append(queue, a, b)
			continue
		}
		// Two-way: in from a and b, out to a and b.
		a, b := g.edges[in[v][0]].from, g.edges[in[v][1]].from
		o0, o1 := g.edges[out[v][0]].to, g.edges[out[v][1]].to
		if a == b || !((o0 == a && o1 == b) || (o0 == b && o1 == a)) || has[[2]int{a, b}] || has[[2]int{b, a}] {
			continue
		}
		toA, toB := out[v][0], out[v][1]
		if o0 == b {
			toA, toB = toB, toA
		}
		fromA, fromB := in[v][0], in[v][1]
		merge(fromA, toB)
		merge(fromB, toA)
		out[v], in[v] = nil, nil
		g.stats.contracted++
		queue = append(queue, a, b)
	}
}

// compact drops dead links and the nodes no link touches, renumbering.
func (g *roadGraph) compact() {
	keep := make([]int, len(g.nodes))
	for i := range keep {
		keep[i] = -1
	}
	var nodes []osm.NodeID
	var coords [][2]float64
	var edges []roadEdge
	for _, e := range g.edges {
		if e.dead {
			continue
		}
		for _, v := range []int{e.from, e.to} {
			if keep[v] < 0 {
				keep[v] = len(nodes)
				nodes = append(nodes, g.nodes[v])
				coords = append(coords, g.coords[v])
			}
		}
		e.from, e.to = keep[e.from], keep[e.to]
		edges = append(edges, e)
	}
	g.nodes, g.coords, g.edges = nodes, coords, edges
}

func reversed(s [][2]float64) [][2]float64 {
	if len(s) == 0 {
		return nil
	}
	r := make([][2]float64, len(s))
	for i, p := range s {
		r[len(s)-1-i] = p
	}
	return r
}

// haversine is the great-circle distance in metres between two
// (lon, lat) points.
func haversine(a, b [2]float64) float64 {
	const earth = 6_371_008.8 // mean radius, metres
	rad := math.Pi / 180
	dLat, dLon := (b[1]-a[1])*rad, (b[0]-a[0])*rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a[1]*rad)*math.Cos(b[1]*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earth * math.Asin(math.Min(1, math.Sqrt(h)))
}

package netfile

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// osmTiers are the highway classes left out, lowest first, when a city
// is over the limits and its classes were not chosen.
var osmTiers = [][]string{
	{"living_street", "residential"},
	{"unclassified"},
	{"tertiary", "tertiary_link"},
	{"secondary", "secondary_link"},
}

// osmLimit is the size an OpenStreetMap road graph is coarsened to fit:
// ontime's limits (a variable so that a test can try the rule on a real
// extract under smaller ones).
var osmLimit = struct{ nodes, links int }{MaxNodes, MaxLinks}

// readOSMNetwork builds a network from an OpenStreetMap extract: the
// drivable ways of the kept highway classes, one-way rules respected, the
// largest strongly connected component, degree-2 chains merged, link time
// = length / speed (maxspeed, else the class default). Every assumption
// goes into the report.
func readOSMNetwork(r roles, o ImportOptions, rep *ImportReport) (*engine.Network, *source, error) {
	keep, classes := highwaySet(o.Highways)
	x, err := readOSM(r.osm, keep)
	if err != nil {
		return nil, nil, err
	}
	allow := maps.Clone(keep)
	g := buildRoads(x, allow)
	// Every default class is kept up to ontime's limits (Delaware whole:
	// 46,933 nodes, 112,702 links). Beyond them (a large metropolitan
	// extract) unless the classes were chosen, the lowest ones are left
	// out, one tier at a time, until it fits (said in the report).
	var coarsened []string
	for _, tier := range osmTiers {
		if len(o.Highways) > 0 || (len(g.nodes) <= osmLimit.nodes && len(g.edges) <= osmLimit.links) {
			break
		}
		for _, c := range tier {
			if allow[c] {
				delete(allow, c)
				coarsened = append(coarsened, c)
			}
		}
		before := [2]int{len(g.nodes), len(g.edges)}
		g = buildRoads(x, allow)
		rep.note("the road graph (%d nodes, %d links) is over ontime's limits (%d nodes, %d links): left out %s, leaving %d nodes and %d links",
			before[0], before[1], osmLimit.nodes, osmLimit.links, strings.Join(tier, ", "), len(g.nodes), len(g.edges))
	}
	if len(coarsened) > 0 {
		rep.note("to keep every class, cut a smaller extract (osmium extract --bbox) or choose the highway classes yourself")
	}
	st := g.stats
	var kept, ignored []string
	for c, n := range x.seen {
		if keep[c] {
			kept = append(kept, fmt.Sprintf("%s %d", c, n))
		} else {
			ignored = append(ignored, fmt.Sprintf("%s %d", c, n))
		}
	}
	slices.Sort(kept)
	slices.Sort(ignored)
	rep.note("highway classes kept (ways read): %s", strings.Join(kept, ", "))
	if len(ignored) > 0 {
		rep.note("highway classes left out (not in the kept set %s): %s", strings.Join(classes, ", "), listSome(ignored, 12))
	}
	for why, n := range x.dropped {
		rep.note("%d ways left out: %s", n, why)
	}
	rep.note("one-way: oneway=yes/true/1 one way, -1/reverse against the drawing, roundabouts and motorways one way unless oneway=no")
	if len(g.edges) == 0 {
		return nil, nil, engine.InputError(r.osm.Name, 0, "highway", "no drivable road of the kept classes (%s) was found", strings.Join(classes, ", "))
	}
	speedSet := 0
	for _, w := range x.ways {
		if w.speedSet {
			speedSet++
		}
	}
	rep.note("speeds: %d of %d ways have a maxspeed that parses (km/h, or mph); the others take their class's default (km/h): %s", speedSet, len(x.ways), speedNote(classes))
	rep.note("link time = length (great-circle, metres) / speed, in minutes")
	if st.short > 0 {
		rep.note("%d roads shorter than %g m (distinct nodes drawn at one spot) are taken as %g m long", st.short, MinRoadMeters, MinRoadMeters)
	}
	if st.missingRefs > 0 {
		rep.note("%d way nodes are not in the extract (ways cut at its border)", st.missingRefs)
	}
	rep.note("road graph: %d junctions and %d directed links; %d self-loops and %d slower parallel links dropped", st.junctions, st.segments, st.loops, st.parallel)
	rep.note("kept the largest of %d strongly connected components (every trip in it can be driven and left again): %d nodes, %d links; %d nodes and %d links dropped (one-way dead ends, pieces cut off at the border)",
		st.components, st.sccNodes, st.sccLinks, st.junctions-st.sccNodes, st.segments-st.loops-st.parallel-st.sccLinks)
	rep.note("merged %d nodes that only pass traffic through (two neighbours): %d nodes, %d links remain", st.contracted, len(g.nodes), len(g.edges))
	net := &engine.Network{Name: baseName(r.osm.Name), Coords: engine.CoordLonLat}
	for i, id := range g.nodes {
		net.Nodes = append(net.Nodes, engine.Node{ID: strconv.FormatInt(int64(id), 10), Coord: g.coords[i]})
	}
	src := &source{noVars: true, minutes: true}
	var points, drawn int
	for _, e := range g.edges {
		shape := simplifyShape(g.coords[e.from], e.shape, g.coords[e.to])
		points, drawn = points+len(e.shape), drawn+len(shape)
		net.Links = append(net.Links, engine.Link{From: e.from, To: e.to, Mean: e.minutes, Shape: shape})
		f := fmt.Sprintf("way %d", e.way)
		src.links = append(src.links, linkSource{file: r.osm.Name, meanField: f, varField: f})
	}
	orderNodesByID(net) // as every other import, so its GMNS export reads back the same
	net.Project()
	rep.note("coordinates: longitude/latitude (OpenStreetMap's)")
	rep.note("link shapes kept for drawing: %d of the roads' %d bend points, the others within %g m of the drawn line (times use the full length)", drawn, points, ShapeToleranceMeters)
	net.Sources = []engine.SourceFile{{Path: r.osm.Name, SHA256: Digest(r.osm.Data)}}
	return net, src, nil
}

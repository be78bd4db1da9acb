// Assembling a network from what the readers found: its nodes, their
// order and coordinates (the topology) that the TNTP and link-CSV readers
// build on.

package netfile

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// optionalCoords reads a node coordinate file, TNTP or GeoJSON, if one was
// given, keeping its row problems in probs.
func optionalCoords(f *File, probs *problemList) ([]NodeCoord, string, error) {
	if f == nil {
		return nil, "", nil
	}
	var coords []NodeCoord
	var err error
	if tntpNodeName.MatchString(f.Name) {
		coords, err = ReadTNTPNodes(bytes.NewReader(f.Data), f.Name)
	} else {
		coords, err = ReadGeoJSONNodes(bytes.NewReader(f.Data), f.Name)
	}
	return coords, f.Name, partial(err, probs)
}

// topology holds nodes by id in a stable order while links are read.
type topology struct {
	net    *engine.Network
	coords map[string][2]float64
	ids    map[string]int
	has    int // nodes with coordinates
}

func newTopology(name string, coords []NodeCoord, coordFile string) (*topology, engine.Problems) {
	t := &topology{net: &engine.Network{Name: name}, coords: map[string][2]float64{}, ids: map[string]int{}}
	var probs problemList
	for _, c := range coords {
		if _, dup := t.coords[c.ID]; dup {
			probs.add(engine.InputError(coordFile, c.Line, "node", "duplicate node id %s", c.ID))
			continue
		}
		t.coords[c.ID] = c.Coord
	}
	return t, probs.list
}

// known reports link endpoints missing from the coordinate file, when one
// was given: a link to an unknown node.
func (t *topology) known(coordFile, file string, line int, fields ...string) engine.Problems {
	if coordFile == "" {
		return nil
	}
	var probs engine.Problems
	for i := 0; i+1 < len(fields); i += 2 {
		if _, ok := t.coords[fields[i+1]]; !ok {
			probs = append(probs, engine.InputError(file, line, fields[i], "node %s is not in %s", fields[i+1], coordFile))
		}
	}
	return probs
}

// node returns the index of id, adding the node on first sight.
func (t *topology) node(id string) int {
	if i, ok := t.ids[id]; ok {
		return i
	}
	nd := engine.Node{ID: id}
	if c, ok := t.coords[id]; ok {
		nd.Coord = c
		t.has++
	}
	t.net.Nodes = append(t.net.Nodes, nd)
	t.ids[id] = len(t.net.Nodes) - 1
	return len(t.net.Nodes) - 1
}

// orderNodesByID sorts the nodes by id (numerically for integer ids, as
// engine.CompareIDs), remaps the links to them and indexes the network:
// every import orders its nodes so, which makes a round trip through GMNS
// the same network.
func orderNodesByID(net *engine.Network) {
	order := make([]int, len(net.Nodes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return engine.CompareIDs(net.Nodes[a].ID, net.Nodes[b].ID) })
	pos := make([]int, len(order))
	nodes := make([]engine.Node, len(order))
	for k, i := range order {
		pos[i], nodes[k] = k, net.Nodes[i]
	}
	net.Nodes = nodes
	for e := range net.Links {
		net.Links[e].From, net.Links[e].To = pos[net.Links[e].From], pos[net.Links[e].To]
	}
	net.Index()
}

// finish orders nodes by id (numerically for TNTP ids), remapping links,
// and places the nodes: as given, or laid out where coordinates are missing.
func (t *topology) finish(o ImportOptions, rep *ImportReport, coordFile string) {
	net := t.net
	orderNodesByID(net)
	switch {
	case t.has == len(net.Nodes):
		var raw [][2]float64
		for _, nd := range net.Nodes {
			raw = append(raw, nd.Coord)
		}
		net.Coords = engine.CoordPlanar
		switch o.Coords {
		case "lonlat":
			net.Coords = engine.CoordLonLat
		case "planar":
		default:
			if engine.LooksLonLat(raw) {
				net.Coords = engine.CoordLonLat
				rep.note("coordinates read as longitude/latitude (every point is within ±180/±90); choose planar coordinates if they are not")
			} else if inRange(raw) {
				rep.note("coordinates read as planar: they are within ±180/±90, but all within %g° of (0°, 0°), which is open sea; choose longitude/latitude if they are", engine.NullIsland)
			} else {
				rep.note("coordinates read as planar")
			}
		}
		net.Project()
	default:
		missing := len(net.Nodes) - t.has
		if coordFile == "" {
			rep.note("no node coordinates were given: the map shows an automatic layout of the graph")
		} else {
			rep.note("%d of %d nodes have no coordinates in %s: the map shows an automatic layout of the graph", missing, len(net.Nodes), coordFile)
		}
		Layout(net)
	}
}

// ZeroTimeMean is the mean in minutes given to a link whose file time is
// zero (zone connectors): a tenth of a minute costs almost nothing yet keeps
// the positive mean every method needs.
const ZeroTimeMean = 0.1

func lawLabel(name string) string {
	l, _ := linktime.LawByName(name)
	return l.Label
}

// listSome joins the first k items, saying how many more there are.
func listSome(items []string, k int) string {
	if len(items) <= k {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:k], ", ") + fmt.Sprintf(" and %d more", len(items)-k)
}

// DefaultFactorStrength is the correlation between coincident links of the
// spatial factor model a large network gets by default (as --corr-strength).
const DefaultFactorStrength = 0.5

package netfile

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/internal/csvsafe"
)

// GMNS (the General Modeling Network Specification, what osm2gmns,
// Path4GMNS/DTALite and AequilibraE exchange) is a node.csv and a link.csv.
// The columns ontime reads, and the ones it adds (GMNS allows extra
// columns): a link's time and its spread, in minutes.
const (
	GMNSMean = "ontime_mean" // mean link time, minutes
	GMNSSD   = "ontime_sd"   // standard deviation of the link time, minutes
	GMNSVar  = "ontime_var"  // or its variance, minutes²
)

var (
	gmnsNodeColumns = []string{"node_id", "x_coord", "y_coord"}
	gmnsLinkColumns = []string{"link_id", "from_node_id", "to_node_id", "directed"}
)

// gmnsKind says whether a CSV's header is a GMNS node or link table ("" if
// neither): GMNS files are told by their columns, not their names.
func gmnsKind(data []byte) string {
	line, _, _ := bytes.Cut(data[:min(len(data), 4096)], []byte("\n"))
	h := map[string]bool{}
	for _, c := range strings.Split(strings.TrimPrefix(string(line), "\ufeff"), ",") {
		h[strings.ToLower(strings.Trim(strings.TrimSpace(c), `"`))] = true
	}
	switch {
	case h["from_node_id"] && h["to_node_id"]:
		return "link"
	case h["node_id"] && h["x_coord"]:
		return "node"
	}
	return ""
}

// csvRow is one row of a CSV read by header name.
type csvRow struct {
	line int
	col  map[string]int
	rec  []string
}

// get is the row's value in column c, trimmed; "" when the header has no c.
func (r csvRow) get(c string) string {
	if i, ok := r.col[c]; ok && i < len(r.rec) {
		return strings.TrimSpace(r.rec[i])
	}
	return ""
}

func (r csvRow) has(c string) bool { _, ok := r.col[c]; return ok }

// readCSVTable reads a CSV whose header names the columns (any order, case
// and a UTF-8 byte-order mark ignored), calling fn on every row.
func readCSVTable(data []byte, file string, required []string, fn func(csvRow) engine.Problems) error {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.TrimLeadingSpace = true
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return engine.InputError(file, 1, "header", "file is empty")
		}
		return csvError(file, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	for _, need := range required {
		if _, ok := col[need]; !ok {
			return engine.InputError(file, 1, need, "header has no %s column (GMNS needs %s; header: %s)", need, strings.Join(required, ", "), strings.Join(header, ","))
		}
	}
	var probs problemList
	rows := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return csvError(file, err)
		}
		line, _ := cr.FieldPos(0)
		rows++
		if probs.add(fn(csvRow{line, col, rec})...) {
			break
		}
	}
	if rows == 0 {
		return engine.InputError(file, 2, "", "no rows after the header")
	}
	return probs.err()
}

// gmnsLink is one link.csv row, a direction of it when undirected.
type gmnsLink struct {
	line     int
	from, to string
	mean     float64
	variance float64
	shape    [][2]float64 // between the ends
	timeFrom string       // the field the mean came from
}

// readGMNSNetwork builds a network from a GMNS node.csv and link.csv.
func readGMNSNetwork(r roles, o ImportOptions, rep *ImportReport) (*engine.Network, *source, error) {
	nodeFile, linkFile := r.gmnsNode, r.gmnsLink
	var coords []NodeCoord
	err := readCSVTable(nodeFile.Data, nodeFile.Name, gmnsNodeColumns, func(row csvRow) engine.Problems {
		get, line := row.get, row.line
		id := get("node_id")
		if id == "" {
			return engine.Problems{engine.InputError(nodeFile.Name, line, "node_id", "empty node id")}
		}
		var c [2]float64
		for k, f := range []string{"x_coord", "y_coord"} {
			v, err := parseFinite(nodeFile.Name, line, f, get(f))
			if err != nil {
				return engine.Problems{err.(*engine.Error)}
			}
			c[k] = v
		}
		coords = append(coords, NodeCoord{Line: line, ID: id, Coord: c})
		if len(coords) > MaxNodes {
			return engine.Problems{engine.InputError(nodeFile.Name, line, "row", "more than %d nodes: ontime takes at most %d", MaxNodes, MaxNodes)}
		}
		return nil
	})
	var probs problemList
	if err = partial(err, &probs); err != nil {
		return nil, nil, err
	}
	links, spread, undirected, err := readGMNSLinks(linkFile)
	if err = partial(err, &probs); err != nil {
		return nil, nil, err
	}
	name := baseName(strings.TrimSuffix(strings.TrimSuffix(linkFile.Name, ".csv"), "link"))
	if name == "" {
		name = "gmns"
	}
	net, src := nodesAndLinks(name, coords, nodeFile, links, linkFile, spread, o, rep, &probs)
	rep.note("GMNS: nodes from %s, links from %s", nodeFile.Name, linkFile.Name)
	rep.note("link time: %s (minutes) where the column is given, else length / free_speed with length in metres and free_speed in km/h (osm2gmns's units)", GMNSMean)
	if spread != "" {
		rep.note("link spread: the %s column", spread)
	}
	if undirected > 0 {
		rep.note("%d undirected links (directed = 0) became two links, one each way", undirected)
	}
	rep.note("link shapes: the geometry column's LINESTRING where given (drawing only), else a straight line")
	return net, src, probs.err()
}

// nodesAndLinks builds a network from node coordinates and links read from
// nodeFile and linkFile (GMNS's pair, or one GeoJSON file for both): nodes
// ordered by id, links to unknown nodes reported in probs, shapes simplified
// on a map.
func nodesAndLinks(name string, coords []NodeCoord, nodeFile *File, links []gmnsLink, linkFile *File, spread string, o ImportOptions, rep *ImportReport, probs *problemList) (*engine.Network, *source) {
	t, ps := newTopology(name, coords, nodeFile.Name)
	probs.add(ps...)
	src := &source{noVars: spread == "", minutes: true}
	for _, l := range links {
		probs.add(t.known(nodeFile.Name, linkFile.Name, l.line, "from_node_id", l.from, "to_node_id", l.to)...)
		t.net.Links = append(t.net.Links, engine.Link{From: t.node(l.from), To: t.node(l.to), Mean: l.mean, Var: l.variance, Shape: l.shape})
		src.links = append(src.links, linkSource{file: linkFile.Name, line: l.line, meanField: l.timeFrom, varField: spread})
	}
	unused := len(coords) - len(t.ids)
	t.finish(o, rep, nodeFile.Name)
	if t.net.Coords == engine.CoordLonLat {
		for e := range t.net.Links {
			l := &t.net.Links[e]
			l.Shape = simplifyShape(t.net.Nodes[l.From].Coord, l.Shape, t.net.Nodes[l.To].Coord)
		}
	}
	n, dups := splitParallel(t.net, src, nil, 1)
	probs.add(dups...)
	if n > 0 {
		rep.note("%s", parallelNote(n))
	}
	t.net.Sources = []engine.SourceFile{{Path: nodeFile.Name, SHA256: Digest(nodeFile.Data)}}
	if linkFile != nodeFile {
		t.net.Sources = append(t.net.Sources, engine.SourceFile{Path: linkFile.Name, SHA256: Digest(linkFile.Data)})
	}
	if unused > 0 {
		rep.note("%d nodes of %s are on no link and were left out", unused, nodeFile.Name)
	}
	return t.net, src
}

// readGMNSLinks reads link.csv; spread names the column σ comes from ("":
// none, the CV rule applies); undirected counts the links made two.
func readGMNSLinks(f *File) (links []gmnsLink, spread string, undirected int, err error) {
	err = readCSVTable(f.Data, f.Name, gmnsLinkColumns, func(row csvRow) engine.Problems {
		get, line := row.get, row.line
		var probs engine.Problems
		bad := func(field, format string, args ...any) {
			probs = append(probs, engine.InputError(f.Name, line, field, format, args...))
		}
		l := gmnsLink{line: line, from: get("from_node_id"), to: get("to_node_id")}
		if l.from == "" || l.to == "" {
			bad("from_node_id/to_node_id", "empty node id")
		}
		num := func(field string) (float64, bool) {
			s := get(field)
			if s == "" {
				return 0, false
			}
			v, err := parseFinite(f.Name, line, field, s)
			if err != nil {
				probs = append(probs, err.(*engine.Error))
				return 0, false
			}
			return v, true
		}
		directed := true
		switch strings.ToLower(get("directed")) {
		case "1", "true", "yes", "t", "y":
		case "0", "false", "no", "f", "n":
			directed = false
		default:
			bad("directed", "%q: give 1 (one way, from → to) or 0 (both ways)", get("directed"))
		}
		if get(GMNSMean) != "" {
			l.mean, _ = num(GMNSMean)
			l.timeFrom = GMNSMean
		} else {
			if get("length") == "" || get("free_speed") == "" {
				bad(GMNSMean, "no link time: give %s (minutes), or length (m) and free_speed (km/h)", GMNSMean)
			} else if length, okL := num("length"); okL {
				if speed, okS := num("free_speed"); okS && !(speed > 0) {
					bad("free_speed", "free_speed %v must be positive", speed)
				} else if okS {
					l.mean, l.timeFrom = length/1000/speed*60, "length/free_speed"
				}
			}
		}
		// A spread column is given on every row or none: a row without it
		// would get a made-up σ beside the file's. The header says which
		// column it is: the variance where both are (exact; ontime writes both).
		if spread = spreadColumn(row); spread != "" {
			v, ok := num(spread)
			switch {
			case !ok && get(spread) == "":
				bad(spread, "empty: the file gives %s, so every link needs one", spread)
			case ok && v < 0:
				bad(spread, "%v must be ≥ 0", v)
			case ok && spread == GMNSSD:
				l.variance = v * v
			case ok:
				l.variance = v
			}
		}
		if g := get("geometry"); g != "" {
			if pts, err := parseLineString(g); err != nil {
				bad("geometry", "%s", err.Error())
			} else if len(pts) > 2 {
				l.shape = pts[1 : len(pts)-1]
			}
		}
		if len(probs) > 0 {
			return probs
		}
		links = append(links, l)
		if !directed {
			back := l
			back.from, back.to, back.shape = l.to, l.from, reversed(l.shape)
			links = append(links, back)
			undirected++
		}
		if len(links) > MaxLinks {
			bad("row", "more than %d links: ontime takes at most %d", MaxLinks, MaxLinks)
		}
		return probs
	})
	return links, spread, undirected, err
}

// spreadColumn is the column link.csv's σ is read from: ontime_var, else
// ontime_sd, else none ("").
func spreadColumn(row csvRow) string {
	for _, col := range []string{GMNSVar, GMNSSD} {
		if row.has(col) {
			return col
		}
	}
	return ""
}

// parseFinite reads a number that must be finite (coordinates, times).
func parseFinite(file string, line int, field, s string) (float64, error) {
	v, err := parseFloat(file, line, field, s)
	if err == nil && !finite(v) {
		err = engine.InputError(file, line, field, "%q is not a number", s)
	}
	return v, err
}

// WriteGMNS writes net as GMNS node.csv and link.csv: coordinates as given,
// one directed link per ontime link (link_id = its index + 1), its course
// as a WKT LINESTRING, and ontime's mean, σ and variance (σ to read, the
// variance so that a round trip is exact).
func WriteGMNS(net *engine.Network) (node, link []byte, err error) {
	var nb, lb bytes.Buffer
	nw, lw := csvsafe.NewWriter(&nb), csvsafe.NewWriter(&lb)
	ff := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	nw.Write(gmnsNodeColumns)
	for _, nd := range net.Nodes {
		c := nodeCoord(net, nd)
		nw.Write([]string{nd.ID, ff(c[0]), ff(c[1])})
	}
	lw.Write(append(append([]string{}, gmnsLinkColumns...), "geometry", GMNSMean, GMNSSD, GMNSVar))
	for e, l := range net.Links {
		a, b := net.Nodes[l.From], net.Nodes[l.To]
		geom := ""
		if len(l.Shape) > 0 {
			geom = lineStringWKT(nodeCoord(net, a), l.Shape, nodeCoord(net, b))
		}
		lw.Write([]string{strconv.Itoa(e + 1), a.ID, b.ID, "1", geom, ff(l.Mean), ff(l.SD()), ff(l.Var)})
	}
	nw.Flush()
	lw.Flush()
	if err := errors.Join(nw.Error(), lw.Error()); err != nil {
		return nil, nil, fmt.Errorf("writing GMNS: %w", err)
	}
	return nb.Bytes(), lb.Bytes(), nil
}

// nodeCoord is a node's coordinates as given, or its drawing position when
// the network had none (an automatic layout).
func nodeCoord(net *engine.Network, nd engine.Node) [2]float64 {
	if net.Coords == engine.CoordNone || net.Coords == engine.CoordLayout {
		return [2]float64{nd.X, nd.Y}
	}
	return nd.Coord
}

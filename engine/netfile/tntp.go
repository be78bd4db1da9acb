// Package netfile reads and writes network files: the formats of the
// Formats table (its rows say how each is recognised, read and written)
// and the import settings of ImportSettings. Every reader reports bad
// input with the file, line and field.
package netfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// TNTPLink is one row of a TNTP _net file.
type TNTPLink struct {
	Line                     int
	Init, Term               string
	Capacity, Length, FFTime float64
	B, Power, Speed, Toll    float64
	Type                     int
}

// TNTPNet is a parsed TNTP _net file.
type TNTPNet struct {
	Metadata      map[string]string // "NUMBER OF NODES" → "24", …
	MetaLines     map[string]int    // the line each metadata key is on
	FirstThruNode int
	Zones         int // NUMBER OF ZONES: nodes 1..Zones are zone centroids
	Links         []TNTPLink
	// Standard is set when the header's column count disagreed with the
	// rows, which had TNTP's standard ten columns, and the rows were read
	// in the standard order; HeaderColumns is what the header named.
	Standard      bool
	HeaderColumns int
}

// StandardTNTPColumns is the column order of TNTP _net files.
var StandardTNTPColumns = []string{"init_node", "term_node", "capacity", "length", "free_flow_time", "b", "power", "speed", "toll", "link_type"}

// ZoneIDs are the ids of the zone centroids (TNTP numbers zones first).
func (tn *TNTPNet) ZoneIDs() []string {
	ids := make([]string, tn.Zones)
	for i := range ids {
		ids[i] = strconv.Itoa(i + 1)
	}
	return ids
}

// lineReader yields lines with their 1-based numbers, tolerating a final
// line without newline, CRLF endings and a UTF-8 byte-order mark.
type lineReader struct {
	sc   *bufio.Scanner
	line int
}

func newLineReader(r io.Reader) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	return &lineReader{sc: sc}
}

func (lr *lineReader) next() (string, bool) {
	if !lr.sc.Scan() {
		return "", false
	}
	lr.line++
	s := strings.TrimRight(lr.sc.Text(), "\r")
	if lr.line == 1 {
		s = strings.TrimPrefix(s, "\ufeff")
	}
	return s, true
}

// fields splits a TNTP row on whitespace and drops the trailing ";".
func fields(s string) []string {
	f := strings.Fields(s)
	if n := len(f); n > 0 && f[n-1] == ";" {
		f = f[:n-1]
	} else if n > 0 {
		f[n-1] = strings.TrimSuffix(f[n-1], ";")
	}
	return f
}

func parseFloat(file string, line int, field, s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, engine.InputError(file, line, field, "%q is not a number", s)
	}
	return v, nil
}

// ReadTNTPNet reads a TNTP _net file: the <KEY> value metadata block up to
// <END OF METADATA>, a "~" header naming the columns, then one link per row,
// tab-separated and ending in ";". Columns are found by header name.
func ReadTNTPNet(r io.Reader, file string) (*TNTPNet, error) {
	lr := newLineReader(r)
	net := &TNTPNet{Metadata: map[string]string{}, MetaLines: map[string]int{}}
	inMeta := true
	var cols map[string]int
	var probs problemList // row problems: every bad row is reported, up to the bound
	for {
		s, ok := lr.next()
		if !ok {
			break
		}
		t := strings.TrimSpace(s)
		if t == "" {
			continue
		}
		if inMeta {
			if strings.HasPrefix(t, "<END OF METADATA>") {
				inMeta = false
				continue
			}
			if strings.HasPrefix(t, "<") {
				if k := strings.Index(t, ">"); k > 0 {
					net.Metadata[t[1:k]] = strings.TrimSpace(t[k+1:])
					net.MetaLines[t[1:k]] = lr.line
					continue
				}
			}
			return nil, engine.InputError(file, lr.line, "metadata", "expected <KEY> value or <END OF METADATA>, got %q", trunc(t))
		}
		if strings.HasPrefix(t, "~") {
			cols = map[string]int{}
			for i, name := range fields(strings.TrimPrefix(t, "~")) {
				cols[strings.ToLower(name)] = i
			}
			for _, need := range []string{"init_node", "term_node", "free_flow_time"} {
				if _, ok := cols[need]; !ok {
					return nil, engine.InputError(file, lr.line, need, "header has no %s column", need)
				}
			}
			continue
		}
		if cols == nil {
			return nil, engine.InputError(file, lr.line, "header", "link row before the \"~\" header line")
		}
		f := fields(t)
		if len(net.Links) == 0 && len(probs.list) == 0 && !net.Standard && len(f) != len(cols) && len(f) == len(StandardTNTPColumns) {
			// A header comment that disagrees with rows of the standard
			// width: the rows are right (a fused "…\t1;" last field
			// is common), so read them in TNTP's order.
			net.Standard, net.HeaderColumns = true, len(cols)
			cols = map[string]int{}
			for i, name := range StandardTNTPColumns {
				cols[name] = i
			}
		}
		if len(f) != len(cols) {
			if probs.add(engine.InputError(file, lr.line, "row", "%d fields, header has %d", len(f), len(cols))) {
				return net, probs.list
			}
			continue
		}
		l := TNTPLink{Line: lr.line, Init: f[cols["init_node"]], Term: f[cols["term_node"]]}
		rowOK := true
		for _, c := range []struct {
			name string
			dst  *float64
		}{{"capacity", &l.Capacity}, {"length", &l.Length}, {"free_flow_time", &l.FFTime}, {"b", &l.B},
			{"power", &l.Power}, {"speed", &l.Speed}, {"toll", &l.Toll}} {
			i, has := cols[c.name]
			if !has {
				continue
			}
			v, err := parseFloat(file, lr.line, c.name, f[i])
			if err != nil {
				probs.addErr(err)
				rowOK = false
			}
			*c.dst = v
		}
		if i, has := cols["link_type"]; has {
			v, err := strconv.Atoi(f[i])
			if err != nil {
				probs.add(engine.InputError(file, lr.line, "link_type", "%q is not an integer", f[i]))
				rowOK = false
			}
			l.Type = v
		}
		if rowOK {
			net.Links = append(net.Links, l)
		}
		// Limits are checked while reading: a file of millions of rows is
		// refused at its first row over the limit, not after parsing it all.
		if len(net.Links) > MaxLinks {
			return nil, engine.InputError(file, lr.line, "row", "more than %d links: ontime takes at most %d", MaxLinks, MaxLinks)
		}
		if probs.full {
			return net, probs.list
		}
	}
	if err := lr.sc.Err(); err != nil {
		return nil, &engine.Error{Code: engine.EINVALID, File: file, Message: err.Error(), Err: err}
	}
	if inMeta {
		return nil, engine.InputError(file, lr.line, "metadata", "no <END OF METADATA> line")
	}
	if cols == nil {
		return nil, engine.InputError(file, lr.line, "header", "no \"~\" header line and no links")
	}
	if len(probs.list) > 0 {
		return net, probs.list // the rows that parsed, for validation to go on
	}
	if v, ok := net.Metadata["NUMBER OF LINKS"]; ok {
		if n, err := strconv.Atoi(v); err == nil && n != len(net.Links) {
			return nil, engine.InputError(file, lr.line, "NUMBER OF LINKS", "metadata says %d links, file has %d", n, len(net.Links))
		}
	}
	// Header counts are bounded by what the rows hold before anything is
	// made from them: a file cannot declare a hundred billion zones.
	nodes, maxID := map[string]bool{}, 0
	for _, l := range net.Links {
		nodes[l.Init], nodes[l.Term] = true, true
		for _, id := range []string{l.Init, l.Term} {
			if n, err := strconv.Atoi(id); err == nil && n > maxID {
				maxID = n
			}
		}
	}
	var err error
	if net.FirstThruNode, err = net.metaInt(file, "FIRST THRU NODE", maxID+1, "the largest node number"); err != nil {
		return nil, err
	}
	if net.Zones, err = net.metaInt(file, "NUMBER OF ZONES", len(nodes), "the number of nodes"); err != nil {
		return nil, err
	}
	for _, z := range net.ZoneIDs() {
		if !nodes[z] {
			return nil, engine.InputError(file, net.MetaLines["NUMBER OF ZONES"], "NUMBER OF ZONES",
				"%d zones (nodes 1 to %d), but node %s has no link", net.Zones, net.Zones, z)
		}
	}
	return net, nil
}

// metaInt reads an integer metadata value from 0 to hi (0 when absent);
// bound says what hi is.
func (tn *TNTPNet) metaInt(file, key string, hi int, bound string) (int, error) {
	v, ok := tn.Metadata[key]
	if !ok || v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil:
		return 0, engine.InputError(file, tn.MetaLines[key], key, "%q is not a whole number", trunc(v))
	case n < 0 || n > hi:
		return 0, engine.InputError(file, tn.MetaLines[key], key, "%d is out of range: give 0 to %d (%s in the file's links)", n, hi, bound)
	}
	return n, nil
}

// FlowRow is one row of a TNTP _flow file: the user-equilibrium volume and
// congested cost of a link.
type FlowRow struct {
	Line         int
	From, To     string
	Volume, Cost float64
}

// ReadTNTPFlow reads a TNTP _flow file ("From To Volume Cost" header; some
// files name the ends "Tail Head" and open with a metadata block).
func ReadTNTPFlow(r io.Reader, file string) ([]FlowRow, error) {
	var rows []FlowRow
	err := readTable(r, file, []string{"from", "to", "volume", "cost"}, false, func(line int, f map[string]string) error {
		row := FlowRow{Line: line, From: f["from"], To: f["to"]}
		var err error
		if row.Volume, err = parseFloat(file, line, "Volume", f["volume"]); err != nil {
			return err
		}
		if row.Cost, err = parseFloat(file, line, "Cost", f["cost"]); err != nil {
			return err
		}
		rows = append(rows, row)
		return nil
	})
	return rows, err
}

// NodeCoord is a node id with its coordinates as given.
type NodeCoord struct {
	Line  int
	ID    string
	Coord [2]float64
}

// ReadTNTPNodes reads a TNTP _node file ("Node X Y ;" header; a file
// without a header, whose rows are three numbers, is read as node, x, y).
func ReadTNTPNodes(r io.Reader, file string) ([]NodeCoord, error) {
	var nodes []NodeCoord
	err := readTable(r, file, []string{"node", "x", "y"}, true, func(line int, f map[string]string) error {
		x, err := parseFloat(file, line, "X", f["x"])
		if err != nil {
			return err
		}
		y, err := parseFloat(file, line, "Y", f["y"])
		if err != nil {
			return err
		}
		nodes = append(nodes, NodeCoord{Line: line, ID: f["node"], Coord: [2]float64{x, y}})
		return nil
	})
	return nodes, err
}

// columnAlias maps other names TNTP files give a column to the one readTable
// callers ask for (Chicago Regional's flow file says "Tail Head").
var columnAlias = map[string]string{"tail": "from", "head": "to"}

// readTable reads a whitespace-separated table whose first non-empty line is
// a header; columns are matched by lower-cased name. With headless, a first
// line of as many numbers as need names is a row, not a header: the table
// has need's columns in need's order (a headerless TNTP node file: rows
// "1 30208 74789").
func readTable(r io.Reader, file string, need []string, headless bool, row func(line int, f map[string]string) error) error {
	lr := newLineReader(r)
	var header []string
	var probs problemList // row problems: every bad row is reported, up to the bound
	for {
		s, ok := lr.next()
		if !ok {
			break
		}
		f := fields(s)
		if len(f) == 0 || (header == nil && strings.HasPrefix(f[0], "<")) {
			continue // blank, or a metadata line (<NUMBER OF ZONES> …) before the header
		}
		if header == nil && headless && len(f) == len(need) && allNumbers(f) {
			header = need
		}
		if header == nil {
			for _, h := range f {
				h = strings.ToLower(h)
				if a, ok := columnAlias[h]; ok {
					h = a
				}
				header = append(header, h)
			}
			for _, n := range need {
				if !slices.Contains(header, n) {
					return engine.InputError(file, lr.line, n, "header has no %s column (header: %s)", n, strings.Join(f, " "))
				}
			}
			continue
		}
		if len(f) != len(header) {
			if probs.add(engine.InputError(file, lr.line, "row", "%d fields, header has %d", len(f), len(header))) {
				break
			}
			continue
		}
		m := make(map[string]string, len(f))
		for i, h := range header {
			m[h] = f[i]
		}
		if err := row(lr.line, m); err != nil {
			var e *engine.Error
			if !errors.As(err, &e) {
				return err
			}
			if probs.add(e) {
				break
			}
		}
	}
	if err := lr.sc.Err(); err != nil {
		return &engine.Error{Code: engine.EINVALID, File: file, Message: err.Error(), Err: err}
	}
	if header == nil {
		return engine.InputError(file, 0, "", "file is empty")
	}
	return probs.err()
}

// allNumbers says whether every field reads as a number.
func allNumbers(f []string) bool {
	for _, s := range f {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return false
		}
	}
	return true
}

func trunc(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

func readTNTPNetwork(r roles, o ImportOptions, rep *ImportReport) (*engine.Network, *source, error) {
	var probs problemList
	tn, err := readTNTPRows(r, o, rep)
	if err = partial(err, &probs); err != nil {
		return nil, nil, err
	}
	coords, coordFile, err := optionalCoords(r.nodes, &probs)
	if err != nil {
		return nil, nil, err
	}
	flow, err := tntpMeans(r, o, rep, &probs)
	if err != nil {
		return nil, nil, err
	}
	t, ps := newTopology(baseName(r.net.Name), coords, coordFile)
	probs.add(ps...)
	src := &source{noVars: true}
	rows := tntpLinks(t, tn, r, flow, coordFile, unitMinutes(o.TimeUnit), src, rep, &probs)
	t.finish(o, rep, coordFile)
	net := t.net
	n, dups := splitParallel(net, src, rows, unitMinutes(o.TimeUnit))
	probs.add(dups...)
	if n > 0 {
		rep.note("%s", parallelNote(n))
	}
	net.Zones = tn.ZoneIDs()
	net.Sources = []engine.SourceFile{{Path: r.net.Name, SHA256: Digest(r.net.Data)}}
	for _, f := range []*File{r.nodes, r.flow} {
		if f != nil {
			net.Sources = append(net.Sources, engine.SourceFile{Path: f.Name, SHA256: Digest(f.Data)})
		}
	}
	if err := tntpZones(net, tn, o, rep); err != nil {
		return nil, nil, err
	}
	for i := range src.links {
		src.links[i].varField = src.links[i].meanField
	}
	return net, src, probs.err()
}

// readTNTPRows reads the _net file's rows; with skip bad rows, the rows
// that do not read are skipped and said in a note.
func readTNTPRows(r roles, o ImportOptions, rep *ImportReport) (*TNTPNet, error) {
	tn, err := ReadTNTPNet(bytes.NewReader(r.net.Data), r.net.Name)
	if tn != nil && tn.Standard {
		rep.note("%s: the header names %d columns but every row has TNTP's standard %d: rows read in the standard order (%s)",
			r.net.Name, tn.HeaderColumns, len(StandardTNTPColumns), strings.Join(StandardTNTPColumns, " "))
	}
	if ps, ok := err.(engine.Problems); ok && o.SkipBadRows && tn != nil {
		var lines []string
		for _, p := range ps {
			lines = append(lines, fmt.Sprintf("line %d (%s: %s)", p.Line, p.Field, p.Message))
		}
		rep.note("%d rows of %s skipped as asked (skip bad rows): %s", len(ps), r.net.Name, listSome(lines, 20))
		err = nil
	}
	return tn, err
}

// tntpMeans is where the links' means come from: the _net file's
// free_flow_time, or the _flow file's congested Cost (each pair's rows in
// file order: parallel links take them in turn; nil for free flow).
func tntpMeans(r roles, o ImportOptions, rep *ImportReport, probs *problemList) (map[[2]string][]FlowRow, error) {
	mean := o.Mean
	if mean == "" || mean == MeanAuto {
		mean = MeanFreeFlow
		if r.flow != nil {
			mean = MeanFlow
		}
	}
	switch mean {
	case MeanFlow:
		if r.flow == nil {
			return nil, engine.InputError(r.net.Name, 0, "mean", "mean from the flow file's cost needs the _flow.tntp file beside the _net file")
		}
		rows, err := ReadTNTPFlow(bytes.NewReader(r.flow.Data), r.flow.Name)
		if err = partial(err, probs); err != nil {
			return nil, err
		}
		flow := map[[2]string][]FlowRow{}
		for _, row := range rows {
			k := [2]string{row.From, row.To}
			flow[k] = append(flow[k], row)
		}
		rep.note("link means: the congested Cost of %s", r.flow.Name)
		return flow, nil
	case MeanFreeFlow:
		rep.note("link means: free_flow_time of %s", r.net.Name)
		return nil, nil
	}
	return nil, engine.Errorf(engine.EINVALID, "mean %q: choose auto, freeflow or flow", o.Mean)
}

// tntpLinks adds the rows' links to the topology (a closed link dropped, a
// zero time raised to ZeroTimeMean, each link's source kept in src) and
// returns each link's row less its line: parallel links that repeat one
// are duplicates.
func tntpLinks(t *topology, tn *TNTPNet, r roles, flow map[[2]string][]FlowRow, coordFile string, minutesPerUnit float64, src *source, rep *ImportReport, probs *problemList) []string {
	var rows []string
	zeros := 0
	var closed []string
	for _, l := range tn.Links {
		probs.add(t.known(coordFile, r.net.Name, l.Line, "init_node", l.Init, "term_node", l.Term)...)
		var link engine.Link // its nodes are added once it is known to be open
		ls := linkSource{file: r.net.Name, line: l.Line, meanField: "free_flow_time"}
		link.Mean = l.FFTime
		if flow != nil {
			k := [2]string{l.Init, l.Term}
			if len(flow[k]) == 0 {
				probs.add(engine.InputError(r.flow.Name, 0, "From/To", "no row for link %s→%s (%s line %d)", l.Init, l.Term, r.net.Name, l.Line))
				continue
			}
			row := flow[k][0]
			flow[k] = flow[k][1:]
			link.Mean = row.Cost
			ls = linkSource{file: r.flow.Name, line: row.Line, meanField: "Cost"}
		}
		if math.IsInf(link.Mean, 1) {
			closed = append(closed, fmt.Sprintf("%s→%s (line %d)", l.Init, l.Term, ls.line))
			continue
		}
		if link.Mean == 0 {
			zeros++
			link.Mean = ZeroTimeMean / minutesPerUnit
		}
		link.From, link.To = t.node(l.Init), t.node(l.Term)
		t.net.Links = append(t.net.Links, link)
		src.links = append(src.links, ls)
		row := l
		row.Line = 0
		rows = append(rows, fmt.Sprint(row, link.Mean))
	}
	for k, left := range flow {
		for _, row := range left {
			probs.add(engine.InputError(r.flow.Name, row.Line, "From/To", "link %s→%s: no such link in %s (or more rows for it than links)", k[0], k[1], r.net.Name))
		}
	}
	if zeros > 0 {
		rep.note("%d links have a zero time (zone connectors, typically): they take %.1f min", zeros, ZeroTimeMean)
	}
	if len(closed) > 0 {
		rep.note("%d links have an infinite time and can never be used (closed links): dropped: %s", len(closed), listSome(closed, 10))
	}
	return rows
}

// tntpZones applies the zones choice: zone centroids (below FIRST THRU
// NODE) as trip ends only, split into an origin and a destination, or
// nodes routes may pass through.
func tntpZones(net *engine.Network, tn *TNTPNet, o ImportOptions, rep *ImportReport) error {
	zones := o.Zones
	if zones == "" || zones == ZonesAuto {
		zones = ZonesThrough
		if tn.FirstThruNode > 1 {
			zones = ZonesBlock
		}
	}
	switch zones {
	case ZonesBlock:
		if tn.FirstThruNode > 1 {
			n := BlockZones(net, tn.FirstThruNode)
			rep.note("zone centroids (nodes below FIRST THRU NODE %d) are trip ends only: %d of them split into an origin (id:out) and a destination node, so no route passes through a zone", tn.FirstThruNode, n)
		}
	case ZonesThrough:
		if tn.FirstThruNode > 1 {
			rep.note("routes may pass through zone centroids (nodes below %d), as chosen", tn.FirstThruNode)
		}
	default:
		return engine.Errorf(engine.EINVALID, "zones %q: choose auto, block or through", o.Zones)
	}
	return nil
}

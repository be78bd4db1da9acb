// Package netfile reads and writes network files: the formats of the
// Formats table (its rows say how each is recognised, read and written)
// and the import settings of ImportSettings. Every reader reports bad
// input with the file, line and field.
package netfile

import (
	"bufio"
	"errors"
	"io"
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

package netfile

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// CSVLink is one row of the link CSV form From,To,Cost,Var[,Volume]: the
// SEGAC benchmark's files, where Cost is the mean link time and Var its
// variance.
type CSVLink struct {
	Line      int
	From, To  string
	Cost, Var float64
	Volume    float64
	HasVolume bool
}

// ReadLinkCSV reads the link CSV form. Columns are found by header name (case
// and surrounding spaces ignored, any order); a UTF-8 byte-order mark is
// tolerated; Volume is optional.
func ReadLinkCSV(r io.Reader, file string) ([]CSVLink, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, engine.InputError(file, 1, "header", "file is empty")
		}
		return nil, csvError(file, err)
	}
	col := map[string]int{}
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	for _, need := range []string{"from", "to", "cost", "var"} {
		if _, ok := col[need]; !ok {
			return nil, engine.InputError(file, 1, need, "header has no %s column (header: %s)", need, strings.Join(header, ","))
		}
	}
	vol, hasVol := col["volume"]
	var links []CSVLink
	var probs problemList // row problems: every bad row is reported, up to the bound
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				if probs.addErr(csvError(file, err)) {
					return links, probs.list
				}
				continue
			}
			return nil, csvError(file, err)
		}
		line, _ := cr.FieldPos(0)
		n := len(probs.list)
		bad := func(err error) { probs.addErr(err) }
		l := CSVLink{Line: line, From: strings.TrimSpace(rec[col["from"]]), To: strings.TrimSpace(rec[col["to"]]), HasVolume: hasVol}
		if l.From == "" || l.To == "" {
			bad(engine.InputError(file, line, "From/To", "empty node id"))
		}
		if l.Cost, err = parseFloat(file, line, "Cost", strings.TrimSpace(rec[col["cost"]])); err != nil {
			bad(err)
		}
		if l.Var, err = parseFloat(file, line, "Var", strings.TrimSpace(rec[col["var"]])); err != nil {
			bad(err)
		}
		if hasVol {
			if l.Volume, err = parseFloat(file, line, "Volume", strings.TrimSpace(rec[vol])); err != nil {
				bad(err)
			}
		}
		if len(probs.list) == n {
			links = append(links, l)
		}
		// Limits while reading, as for TNTP: refused at the first row over.
		if len(links) > MaxLinks {
			return nil, engine.InputError(file, line, "row", "more than %d links: ontime takes at most %d", MaxLinks, MaxLinks)
		}
		if probs.full {
			return links, probs.list
		}
	}
	if len(probs.list) > 0 {
		return links, probs.list // the rows that parsed, for validation to go on
	}
	if len(links) == 0 {
		return nil, engine.InputError(file, 2, "", "no link rows after the header")
	}
	return links, nil
}

func csvError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &engine.Error{Code: engine.EINVALID, File: file, Line: pe.Line, Field: "row", Message: pe.Err.Error(), Err: err}
	}
	return &engine.Error{Code: engine.EINVALID, File: file, Message: err.Error(), Err: err}
}

// LinkCSVNetwork builds a network from link CSV rows alone: nodes are the
// link endpoints, ordered by CompareIDs, without coordinates.
func LinkCSVNetwork(name string, rows []CSVLink) *engine.Network {
	net := &engine.Network{Name: name, Correlation: engine.Correlation{Model: "independent"}}
	seen := map[string]bool{}
	var ids []string
	for _, r := range rows {
		for _, id := range []string{r.From, r.To} {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	sortIDs(ids)
	for _, id := range ids {
		net.Nodes = append(net.Nodes, engine.Node{ID: id})
	}
	net.Index()
	for _, r := range rows {
		f, _ := net.NodeIndex(r.From)
		t, _ := net.NodeIndex(r.To)
		net.Links = append(net.Links, engine.Link{From: f, To: t, Mean: r.Cost, Var: r.Var})
	}
	net.Index()
	return net
}

func readCSVNetwork(r roles, o ImportOptions, rep *ImportReport) (*engine.Network, *source, error) {
	var probs problemList
	rows, err := ReadLinkCSV(bytes.NewReader(r.csv.Data), r.csv.Name)
	if err = partial(err, &probs); err != nil {
		return nil, nil, err
	}
	coords, coordFile, err := optionalCoords(r.nodes, &probs)
	if err != nil {
		return nil, nil, err
	}
	t, ps := newTopology(baseName(r.csv.Name), coords, coordFile)
	probs.add(ps...)
	src := &source{}
	for _, row := range rows {
		probs.add(t.known(coordFile, r.csv.Name, row.Line, "From", row.From, "To", row.To)...)
		t.net.Links = append(t.net.Links, engine.Link{From: t.node(row.From), To: t.node(row.To), Mean: row.Cost, Var: row.Var})
		src.links = append(src.links, linkSource{file: r.csv.Name, line: row.Line, meanField: "Cost", varField: "Var"})
	}
	t.finish(o, rep, coordFile)
	n, dups := splitParallel(t.net, src, nil, unitMinutes(o.TimeUnit))
	probs.add(dups...)
	if n > 0 {
		rep.note("%s", parallelNote(n))
	}
	t.net.Correlation = engine.Correlation{Model: linktime.Independent}
	t.net.Sources = []engine.SourceFile{{Path: r.csv.Name, SHA256: Digest(r.csv.Data)}}
	if o.CV == 0 {
		rep.note("link means and variances: Cost and Var of %s", r.csv.Name)
	}
	return t.net, src, probs.err()
}

package netfile

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// DemandSeed draws the default OD pairs by demand: fixed, so an import is
// the same network every time.
const DemandSeed = 46

// tripEntry is one "dest : trips;" of a TNTP trips table.
var tripEntry = regexp.MustCompile(`(\S+)\s*:\s*([^;\s]+)\s*;`)

// demandRow is a demand table's row before its zones are matched to nodes.
type demandRow struct {
	line     int
	from, to string
	trips    float64
}

// readTNTPTrips reads a TNTP _trips file: "Origin o" headers, each followed
// by "d : trips;" entries.
func readTNTPTrips(f *File) ([]demandRow, error) {
	var rows []demandRow
	var probs problemList
	origin := ""
	for i, line := range strings.Split(string(f.Data), "\n") {
		n := i + 1
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "<") || strings.HasPrefix(line, "~") {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Origin"); ok {
			origin = strings.TrimSpace(rest)
			if origin == "" {
				probs.add(engine.InputError(f.Name, n, "Origin", "an Origin line names no zone"))
			}
			continue
		}
		if origin == "" {
			probs.add(engine.InputError(f.Name, n, "Origin", "trips before the first Origin line"))
			continue
		}
		for _, m := range tripEntry.FindAllStringSubmatch(line, -1) {
			v, err := engine.ParseNumber(m[2])
			if err != nil || v < 0 {
				probs.add(engine.InputError(f.Name, n, "trips", "%q from %s to %s: give a number of trips ≥ 0", m[2], origin, m[1]))
				continue
			}
			rows = append(rows, demandRow{n, origin, m[1], v})
		}
		if probs.full {
			break
		}
	}
	return rows, probs.err()
}

// readGMNSDemand reads a GMNS demand.csv (o_zone_id, d_zone_id, volume).
func readGMNSDemand(f *File) ([]demandRow, error) {
	var rows []demandRow
	err := readCSVTable(f.Data, f.Name, []string{"o_zone_id", "d_zone_id", "volume"}, func(row csvRow) engine.Problems {
		v, err := parseFinite(f.Name, row.line, "volume", row.get("volume"))
		if err != nil {
			return engine.Problems{err.(*engine.Error)}
		}
		if v < 0 {
			return engine.Problems{engine.InputError(f.Name, row.line, "volume", "%v: give a number of trips ≥ 0", v)}
		}
		rows = append(rows, demandRow{row.line, row.get("o_zone_id"), row.get("d_zone_id"), v})
		return nil
	})
	return rows, err
}

// isGMNSDemand: a CSV whose header has GMNS's demand columns.
func isGMNSDemand(f *File) bool {
	if !ends(f, ".csv") {
		return false
	}
	line, _, _ := bytes.Cut(f.Data[:min(len(f.Data), 4096)], []byte("\n"))
	h := strings.ToLower(string(line))
	return strings.Contains(h, "o_zone_id") && strings.Contains(h, "d_zone_id")
}

// attachDemand reads the demand file given with a network and keeps its
// positive trips between distinct nodes of the network (zone ids are node
// ids, as in TNTP and in GMNS files whose zones are their centroid nodes).
func attachDemand(r roles, net *engine.Network, rep *ImportReport) error {
	f := r.trips
	read := readTNTPTrips
	if f == nil {
		f, read = r.demand, readGMNSDemand
	}
	if f == nil || net == nil {
		return nil
	}
	rows, err := read(f)
	if err != nil {
		return err
	}
	unknown := map[string]bool{}
	total := 0.0
	for _, d := range rows {
		o, ok1 := net.OriginIndex(d.from) // a split zone's origin half
		t, ok2 := net.NodeIndex(d.to)
		if !ok1 {
			unknown[d.from] = true
		}
		if !ok2 {
			unknown[d.to] = true
		}
		if ok1 && ok2 && d.from != d.to && o != t && d.trips > 0 {
			net.Demand = append(net.Demand, engine.Demand{OD: engine.OD{Origin: o, Destination: t}, Trips: d.trips})
			total += d.trips
		}
	}
	rep.note("demand: %d pairs with trips between distinct nodes, %s trips in all, from %s", len(net.Demand), strconv.FormatFloat(total, 'g', 6, 64), f.Name)
	if len(unknown) > 0 {
		var ids []string
		for id := range unknown {
			ids = append(ids, id)
		}
		sortIDs(ids)
		rep.note("%d zones of %s are not nodes of the network (%s): their trips are left out", len(ids), f.Name, listSome(ids, 5))
	}
	net.Sources = append(net.Sources, engine.SourceFile{Path: f.Name, SHA256: Digest(f.Data)})
	return nil
}

// demandNote says how the default pairs were drawn, with each pair's trips.
func demandNote(net *engine.Network, ods []engine.OD) string {
	trips := map[engine.OD]float64{}
	total := 0.0
	for _, d := range net.Demand {
		trips[d.OD] = d.Trips
		total += d.Trips
	}
	var parts []string
	for _, od := range ods {
		parts = append(parts, fmt.Sprintf("%s (%s trips)", net.ODString(od), strconv.FormatFloat(trips[od], 'g', 6, 64)))
	}
	return fmt.Sprintf("OD pairs: %s, drawn in proportion to the demand's trips (seed %d, of %d pairs)", strings.Join(parts, ", "), DemandSeed, len(net.Demand))
}

package netfile_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// A line network a→b→c→d with a bypass, written in TNTP with a given
// free-flow time column; rows are added by the cases.
const messyHeader = "<NUMBER OF ZONES> 1\n<NUMBER OF NODES> 4\n<FIRST THRU NODE> 1\n<END OF METADATA>\n" +
	"~\tinit_node\tterm_node\tcapacity\tlength\tfree_flow_time\tb\tpower\tspeed\ttoll\tlink_type\t;\n"

func row(from, to int, fft string) string {
	return "\t" + itoa(from) + "\t" + itoa(to) + "\t9\t1\t" + fft + "\t0.15\t4\t0\t0\t1\t;\n"
}

func itoa(i int) string { return string(rune('0' + i)) }

func messyRows() string {
	return row(1, 2, "0.1") + row(2, 3, "0.1") + row(3, 4, "0.1") + row(1, 3, "0.25") + row(2, 4, "0.25")
}

// A link with an infinite time (TNTP's links to dummy nodes) is a closed
// link: dropped with a note naming it, never the file refused.
func TestImportClosedLinks(t *testing.T) {
	data := messyHeader + messyRows() + row(4, 5, "inf") + row(3, 5, "Infinity")
	net, rep := mustImport(t, []netfile.File{{Name: "closed_net.tntp", Data: []byte(data)}}, netfile.ImportOptions{ODs: []string{"1-4"}})
	if len(net.Links) != 5 {
		t.Errorf("%d links kept, want 5", len(net.Links))
	}
	if _, ok := net.NodeIndex("5"); ok {
		t.Error("node 5, reached only by closed links, was kept")
	}
	if !hasNote(rep, "2 links have an infinite time", "4→5 (line 11)") {
		t.Errorf("notes %q", rep.Notes)
	}
}

// A row with an empty field is an error naming its line, unless bad rows
// are skipped by choice, which the report names.
func TestImportSkipBadRows(t *testing.T) {
	bad := "\t2\t4\t9\t\t0.25\t0.15\t4\t0\t0\t1\t;\n" // the length column empty: 9 fields
	files := []netfile.File{{Name: "gap_net.tntp", Data: []byte(messyHeader + messyRows() + bad)}}
	_, _, err := netfile.Import(files, netfile.ImportOptions{ODs: []string{"1-4"}})
	if err == nil || !strings.Contains(err.Error(), "gap_net.tntp:11") || !strings.Contains(err.Error(), "9 fields, header has 10") {
		t.Fatalf("err = %v", err)
	}
	net, rep := mustImport(t, files, netfile.ImportOptions{ODs: []string{"1-4"}, SkipBadRows: true})
	if len(net.Links) != 5 || !hasNote(rep, "1 rows of gap_net.tntp skipped as asked", "line 11") {
		t.Errorf("%d links; notes %q", len(net.Links), rep.Notes)
	}
}

// A header comment naming 9 columns over rows of the standard 10 (the last
// fused to its ";") is read in TNTP's standard order, with a note.
func TestImportStandardColumns(t *testing.T) {
	header := "<NUMBER OF NODES> 4\n<FIRST THRU NODE> 1\n<END OF METADATA>\n" +
		"~\tinit_node\tterm_node\tcapacity\tlength\tfree_flow_time\tb\tpower\tspeed\ttoll\t;\n"
	var rows string
	for _, r := range strings.Split(strings.TrimSpace(messyRows()), "\n") {
		rows += strings.Replace(r, "\t1\t;", "\t1;", 1) + "\n"
	}
	net, rep := mustImport(t, []netfile.File{{Name: "fused_net.tntp", Data: []byte(header + rows)}}, netfile.ImportOptions{ODs: []string{"1-4"}})
	if len(net.Links) != 5 || net.Links[0].Mean != 0.1 {
		t.Errorf("links %+v", net.Links)
	}
	if !hasNote(rep, "the header names 9 columns but every row has TNTP's standard 10") {
		t.Errorf("notes %q", rep.Notes)
	}
}

// A file in hours is imported with a note (never refused); asked for in
// hours, its times become minutes, and the unit is stored.
func TestImportTimeUnits(t *testing.T) {
	files := []netfile.File{{Name: "hours_net.tntp", Data: []byte(messyHeader + messyRows())}}
	net, rep := mustImport(t, files, netfile.ImportOptions{ODs: []string{"1-4"}})
	if !hasNote(rep, "look like hours") || net.TimeUnit != "" || rep.Scale == nil || rep.Scale.MedianLinkMean != 0.1 {
		t.Errorf("unit %q, scale %+v, notes %q", net.TimeUnit, rep.Scale, rep.Notes)
	}
	net, rep = mustImport(t, files, netfile.ImportOptions{ODs: []string{"1-4"}, TimeUnit: "h"})
	if net.TimeUnit != "h" || math.Abs(net.Links[0].Mean-6) > 1e-12 || math.Abs(net.Links[0].SD()-1.8) > 1e-12 || hasNote(rep, "look like hours") {
		t.Errorf("unit %q, link %+v, notes %q", net.TimeUnit, net.Links[0], rep.Notes)
	}
	if math.Abs(rep.Scale.LETTimes[0]-18) > 1e-9 {
		t.Errorf("LET time %v min, want 18", rep.Scale.LETTimes)
	}
	_, _, err := netfile.Import(files, netfile.ImportOptions{TimeUnit: "fortnights"})
	if err == nil || !strings.Contains(err.Error(), "time_unit") {
		t.Errorf("a bad unit: err = %v", err)
	}
	if _, err := netfile.ParseTimeUnit("--time-unit", "hrs"); err == nil || !strings.Contains(err.Error(), "--time-unit") {
		t.Errorf("ParseTimeUnit: err = %v", err)
	}
	// The law is the matched one, stated in the report, and kept through
	// ontime's JSON (a network exported and read back keeps its law).
	if net.Law != linktime.MatchedLaw || !hasNote(rep, "link-time law: matched-normal") {
		t.Errorf("law %q", net.Law)
	}
	var b strings.Builder
	if err := netfile.WriteJSON(&b, net); err != nil {
		t.Fatal(err)
	}
	back, err := netfile.ReadJSON(strings.NewReader(b.String()), "back.json")
	if err != nil || back.Law != net.Law || back.TimeUnit != "h" || engine.Fingerprint(back, back.Correlation) != engine.Fingerprint(net, net.Correlation) {
		t.Errorf("read back: law %q unit %q err %v", back.Law, back.TimeUnit, err)
	}
}

func hasNote(rep *netfile.ImportReport, parts ...string) bool {
	for _, n := range rep.Notes {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(n, p)
		}
		if ok {
			return true
		}
	}
	return false
}

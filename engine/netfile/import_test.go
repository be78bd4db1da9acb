package netfile_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// A small TNTP network with the quirks of real files: a zone (node 1,
// first thru node 2) with a zero-time connector, tabs, trailing blanks,
// CRLF line ends and an empty column in the node file.
const (
	tinyNet = "<NUMBER OF ZONES> 1\r\n<NUMBER OF NODES> 4\r\n<FIRST THRU NODE> 2\r\n<NUMBER OF LINKS> 6\r\n<END OF METADATA>\r\n\r\n" +
		"~\tinit_node\tterm_node\tcapacity\tlength\tfree_flow_time\tb\tpower\tspeed\ttoll\tlink_type\t;\r\n" +
		" \t1\t2\t9\t0\t0\t0.15\t4\t0\t0\t1\t; \r\n" +
		"\t2\t1\t9\t0\t0\t0.15\t4\t0\t0\t1\t;\r\n" +
		"\t2\t3\t9\t1\t4\t0.15\t4\t0\t0\t1\t;\r\n" +
		"\t3\t4\t9\t1\t5\t0.15\t4\t0\t0\t1\t;\r\n" +
		"\t2\t4\t9\t1\t10\t0.15\t4\t0\t0\t1\t;\r\n" +
		"\t4\t2\t9\t1\t10\t0.15\t4\t0\t0\t1\t;\r\n"
	tinyNodes = "Node \tX \tY \t;\n1\t0 \t \t0\t;\n2\t1000\t \t0\t;\n3\t2000\t \t500\t;\n4\t3000\t \t0\t;\n"
	tinyFlow  = "From \tTo \tVolume \tCost \n1\t2\t5\t0.5\n2\t1\t5\t0.5\n2\t3\t5\t4.5\n3\t4\t5\t5.5\n2\t4\t5\t10.5\n4\t2\t5\t10.5\n"
)

func tiny() []netfile.File {
	return []netfile.File{{Name: "tiny_net.tntp", Data: []byte(tinyNet)}, {Name: "tiny_node.tntp", Data: []byte(tinyNodes)},
		{Name: "tiny_flow.tntp", Data: []byte(tinyFlow)}}
}

func mustImport(t *testing.T, files []netfile.File, o netfile.ImportOptions) (*engine.Network, *netfile.ImportReport) {
	t.Helper()
	net, rep, err := netfile.Import(files, o)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return net, rep
}

func TestImportTNTPQuirks(t *testing.T) {
	net, rep := mustImport(t, tiny(), netfile.ImportOptions{Mean: netfile.MeanFreeFlow, ODs: []string{"1-4"}})
	// Node 1 is a zone: its outgoing link leaves from "1:out", so no route
	// passes through it; the OD 1-4 starts there.
	if len(net.Nodes) != 5 || net.Nodes[4].ID != "1"+engine.OriginSuffix {
		t.Fatalf("nodes %+v", net.Nodes)
	}
	if net.ODString(net.ODs[0]) != "1-4" || net.Nodes[net.ODs[0].Origin].ID != "1:out" {
		t.Errorf("OD %s from node %s", net.ODString(net.ODs[0]), net.Nodes[net.ODs[0].Origin].ID)
	}
	for _, l := range net.Links {
		if net.Nodes[l.From].ID == "1" {
			t.Errorf("a link leaves the zone's destination half: %+v", l)
		}
	}
	// Zero free-flow times take the floor; σ = 0.3 μ by default.
	if net.Links[0].Mean != netfile.ZeroTimeMean || net.Links[2].Mean != 4 || net.Links[2].Var != 0.3*4*0.3*4 {
		t.Errorf("links %+v", net.Links[:3])
	}
	if net.Coords != engine.CoordPlanar || net.Nodes[2].X != 2000 || net.StepCap != 12 || net.Correlation.Model != "random-psd" {
		t.Errorf("coords %s, node 3 at %v, cap %d, corr %s", net.Coords, net.Nodes[2].X, net.StepCap, net.Correlation.Model)
	}
	for _, want := range []string{"zero time", "zone centroids", "free_flow_time", "σ = 0.3", "random-psd", "step cap: 12"} {
		if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("no note on %q in %q", want, rep.Notes)
		}
	}
	// auto: the flow file's cost when it is there.
	net, _ = mustImport(t, tiny(), netfile.ImportOptions{})
	if net.Links[2].Mean != 4.5 {
		t.Errorf("mean from flow: %v", net.Links[2].Mean)
	}
	// through: no split.
	net, _ = mustImport(t, tiny(), netfile.ImportOptions{Zones: netfile.ZonesThrough, ODs: []string{"1-4"}})
	if len(net.Nodes) != 4 {
		t.Errorf("zones through: %d nodes", len(net.Nodes))
	}
}

func TestImportWithoutCoordinatesLaysOut(t *testing.T) {
	files := []netfile.File{{Name: "grid.csv", Data: []byte("From,To,Cost,Var\na,b,1,0.1\nb,c,1,0.1\nc,d,1,0.1\nd,a,1,0.1\na,c,3,0.2\n")}}
	net, rep := mustImport(t, files, netfile.ImportOptions{})
	if net.Coords != engine.CoordLayout || !strings.Contains(strings.Join(rep.Notes, " "), "automatic layout") {
		t.Fatalf("coords %q, notes %q", net.Coords, rep.Notes)
	}
	seen := map[[2]float64]bool{}
	for _, nd := range net.Nodes {
		if seen[[2]float64{nd.X, nd.Y}] {
			t.Errorf("two nodes at %v, %v", nd.X, nd.Y)
		}
		seen[[2]float64{nd.X, nd.Y}] = true
	}
	if net.Links[0].Var != 0.1 || len(net.ODs) == 0 {
		t.Errorf("CSV variances kept %v; default ODs %v", net.Links[0].Var, net.ODs)
	}
}

// Every format round-trips through ontime's JSON: what is stored is what
// was read.
func TestImportRoundTrips(t *testing.T) {
	cov := `[[1, 0.5], [0.5, 4]]`
	for _, tc := range []struct {
		name  string
		files []netfile.File
		o     netfile.ImportOptions
	}{
		{"tntp", tiny(), netfile.ImportOptions{ODs: []string{"1-4", "3-2"}}},
		{"csv", []netfile.File{{Name: "l.csv", Data: []byte("From,To,Cost,Var,Volume\n1,2,3,1,10\n2,3,4,2,10\n1,3,8,1,10\n")}}, netfile.ImportOptions{}},
		{"json", []netfile.File{{Name: "n.json", Data: []byte(`{"format": "ontime-network", "version": 1, "name": "n",
"coordinates": "planar", "nodes": [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 1, "y": 0}, {"id": "c", "x": 2, "y": 0}],
"links": [{"from": "a", "to": "b", "mean": 1, "variance": 1}, {"from": "b", "to": "c", "mean": 2, "variance": 4}],
"correlation": {"model": "explicit", "covariance": ` + cov + `}, "ods": ["a-c"], "step_cap": 5}`)}}, netfile.ImportOptions{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, _ := mustImport(t, tc.files, tc.o)
			var buf bytes.Buffer
			if err := netfile.WriteJSON(&buf, first); err != nil {
				t.Fatal(err)
			}
			again, _ := mustImport(t, []netfile.File{{Name: "again.json", Data: buf.Bytes()}}, netfile.ImportOptions{})
			if !reflect.DeepEqual(first.Links, again.Links) || !reflect.DeepEqual(first.ODs, again.ODs) || first.StepCap != again.StepCap ||
				!reflect.DeepEqual(first.Correlation, again.Correlation) || len(first.Nodes) != len(again.Nodes) || first.Coords != again.Coords {
				t.Errorf("round trip differs:\n%+v\n%+v", first, again)
			}
			for i := range first.Nodes {
				if first.Nodes[i].ID != again.Nodes[i].ID || first.Nodes[i].X != again.Nodes[i].X || first.Nodes[i].Y != again.Nodes[i].Y {
					t.Errorf("node %d: %+v vs %+v", i, first.Nodes[i], again.Nodes[i])
				}
			}
			if engine.Fingerprint(first, first.Correlation) != engine.Fingerprint(again, again.Correlation) {
				t.Error("fingerprint changed on a round trip")
			}
		})
	}
}

func csvFile(body string) []netfile.File {
	return []netfile.File{{Name: "bad.csv", Data: []byte("From,To,Cost,Var\n" + body)}}
}

func jsonFile(links, corr string) []netfile.File {
	return []netfile.File{{Name: "bad.json", Data: []byte(`{"format": "ontime-network", "version": 1, "name": "x",
"nodes": [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 1, "y": 0}, {"id": "c", "x": 2, "y": 0}],
"links": ` + links + `,
"correlation": ` + corr + `}`)}}
}

// Every kind of bad input is refused with a message naming the file, line
// and field; nothing comes back but the problems.
func TestImportBadFiles(t *testing.T) {
	twoLinks := `[{"from": "a", "to": "b", "mean": 1, "variance": 1}, {"from": "b", "to": "c", "mean": 1, "variance": 1}]`
	big := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%d,%d,1,0.1\n", i, i+1)
		}
		return b.String()
	}
	badNet := strings.Replace(tinyNet, "\t3\t4\t9\t1\t5\t", "\t3\t4\t9\t1\tfive\t", 1)
	unknownNode := strings.Replace(tinyNet, "\t3\t4\t9\t1\t5\t", "\t3\t9\t9\t1\t5\t", 1)
	for _, tc := range []struct {
		name  string
		files []netfile.File
		o     netfile.ImportOptions
		want  []string
	}{
		{"unparsable number", []netfile.File{{Name: "t_net.tntp", Data: []byte(badNet)}}, netfile.ImportOptions{},
			[]string{`t_net.tntp:11: field free_flow_time: "five" is not a number`}},
		{"nan", csvFile("1,2,NaN,1\n"), netfile.ImportOptions{}, []string{"bad.csv:2: field Cost: link 1→2: mean NaN is not a finite number"}},
		{"inf", csvFile("1,2,3,1\n2,3,Inf,1\n"), netfile.ImportOptions{ODs: []string{"1-2"}}, []string{"bad.csv:3: field Cost: link 2→3: mean +Inf is not a finite number"}},
		{"non-positive mean", csvFile("1,2,-3,1\n"), netfile.ImportOptions{}, []string{"bad.csv:2: field Cost: link 1→2: mean -3 must be positive"}},
		{"negative tntp time", []netfile.File{{Name: "t_net.tntp", Data: []byte(strings.Replace(tinyNet, "\t3\t4\t9\t1\t5\t", "\t3\t4\t9\t1\t-5\t", 1))}},
			netfile.ImportOptions{Mean: netfile.MeanFreeFlow}, []string{"t_net.tntp:11: field free_flow_time: link 3→4: mean -5 must be positive"}},
		{"negative variance", csvFile("1,2,3,-1\n"), netfile.ImportOptions{}, []string{"bad.csv:2: field Var: link 1→2: variance -1 must be ≥ 0"}},
		{"self-loop", csvFile("1,2,3,1\n1,1,3,1\n"), netfile.ImportOptions{}, []string{"bad.csv:3: field From/To: link 1→1 is a self-loop"}},
		{"duplicate link", csvFile("1,2,3,1\n1,2,3,1\n"), netfile.ImportOptions{}, []string{"bad.csv:3: field From/To: duplicate link 1→2: it repeats the link at bad.csv line 2"}},
		{"unknown node", []netfile.File{{Name: "t_net.tntp", Data: []byte(unknownNode)}, {Name: "t_node.tntp", Data: []byte(tinyNodes)}},
			netfile.ImportOptions{}, []string{"t_net.tntp:11: field term_node: node 9 is not in t_node.tntp"}},
		{"json unknown node", jsonFile(`[{"from": "a", "to": "z", "mean": 1, "variance": 1}]`, `{"model": "independent"}`), netfile.ImportOptions{},
			[]string{`bad.json:3: field links[0].to: unknown node "z"`}},
		{"not symmetric", jsonFile(twoLinks, `{"model": "explicit", "covariance": [[1, 0.5], [0.2, 1]]}`), netfile.ImportOptions{},
			[]string{"field correlation.covariance[0][1]: matrix is not symmetric"}},
		{"not psd", jsonFile(twoLinks, `{"model": "explicit", "covariance": [[1, 2], [2, 1]]}`), netfile.ImportOptions{},
			[]string{"field correlation.covariance: not positive semi-definite (smallest eigenvalue -1)", "--psd project"}},
		{"unreachable od", csvFile("1,2,3,1\n3,4,1,1\n"), netfile.ImportOptions{ODs: []string{"1-4", "1-2"}},
			[]string{"ods: field ods[0]: OD 1-4: the destination cannot be reached from the origin"}},
		{"od unknown node", csvFile("1,2,3,1\n"), netfile.ImportOptions{ODs: []string{"1-7"}}, []string{"OD \"1-7\": no such node pair"}},
		{"over the dense limit", csvFile(big(netfile.DenseLinkLimit + 1)), netfile.ImportOptions{Corr: engine.Correlation{Model: "random-psd"}, ODs: []string{"0-1"}},
			[]string{"random-psd correlation holds a dense 4001 × 4001 covariance; it is limited to 4000 links: choose spatial-factor (scales to any size) or independent links"}},
		// refused at the first row over, while reading (the nodes are never built)
		{"over the size limit", csvFile(big(netfile.MaxLinks + 1)), netfile.ImportOptions{ODs: []string{"0-1"}},
			[]string{fmt.Sprintf("bad.csv:%d: field row: more than %d links: ontime takes at most %[2]d", netfile.MaxLinks+2, netfile.MaxLinks)}},
		{"over the node limit", csvFile(big(netfile.MaxNodes + 1)), netfile.ImportOptions{ODs: []string{"0-1"}},
			[]string{fmt.Sprintf("%d nodes: ontime takes at most %d", netfile.MaxNodes+2, netfile.MaxNodes)}},
		{"unknown file", []netfile.File{{Name: "notes.txt", Data: []byte("x")}}, netfile.ImportOptions{}, []string{"notes.txt: unknown kind of file"}},
		{"every problem at once", csvFile("1,2,x,1\n1,1,3,1\n2,3,Inf,1\n2,3,4,-1\n2,3,4,-1\n"), netfile.ImportOptions{},
			[]string{`bad.csv:2: field Cost: "x" is not a number`, "bad.csv:3: field From/To: link 1→1 is a self-loop",
				"bad.csv:4: field Cost: link 2→3: mean +Inf", "bad.csv:5: field Var: link 2→3: variance -1", "bad.csv:6: field Var: link 2→3: variance -1", "bad.csv:6: field From/To: duplicate link 2→3: it repeats the link at bad.csv line 5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			net, rep, err := netfile.Import(tc.files, tc.o)
			if err == nil || net != nil {
				t.Fatalf("accepted: %v", net)
			}
			if engine.ErrorCode(err) != engine.EINVALID {
				t.Errorf("code %q", engine.ErrorCode(err))
			}
			if tc.name == "every problem at once" && len(rep.Problems) != len(tc.want) {
				t.Errorf("%d problems listed, want %d: %v", len(rep.Problems), len(tc.want), rep.Problems)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not say %q", err, w)
				}
			}
		})
	}
}

func TestImportProjectsACovarianceWhenAsked(t *testing.T) {
	links := `[{"from": "a", "to": "b", "mean": 1, "variance": 1}, {"from": "b", "to": "c", "mean": 1, "variance": 1}]`
	net, rep := mustImport(t, jsonFile(links, `{"model": "explicit", "covariance": [[1, 2], [2, 1]]}`), netfile.ImportOptions{PSDProject: true})
	c := net.Correlation.Covariance
	if c[0][0] != 1 || c[1][1] != 1 || c[0][1] != c[1][0] || c[0][1] < 0.999 || c[0][1] > 1+1e-9 {
		t.Errorf("projected covariance %v", c)
	}
	if !strings.Contains(strings.Join(rep.Notes, " "), "projected") {
		t.Errorf("notes %q", rep.Notes)
	}
}

// The real files of the issue load, with their quirks said in the notes.
func TestImportRealTNTPFiles(t *testing.T) {
	dir := filepath.Join(testenv.DataDir(t), "tntp")
	for _, tc := range []struct {
		file         string
		nodes, links int
		notes        []string
	}{
		// planar coordinates near (0°, 0°): never read as a road in the sea
		{"berlin-mitte-center_net.tntp", 398 + 35, 871, []string{"288 links have a zero time", "zone centroids (nodes below FIRST THRU NODE 37)",
			"coordinates read as planar: they are within ±180/±90, but all within 3° of (0°, 0°)"}},
		{"ChicagoSketch_net.tntp", 933, 2950, []string{"congested Cost of ChicagoSketch_flow.tntp", "coordinates read as planar"}},
		// a flow file with a metadata block and "Tail Head" columns; over
		// the dense models' limit, so the scalable model by default
		{"ChicagoRegional_net.tntp", 12982 + 1787, 39018, []string{"congested Cost of ChicagoRegional_flow.tntp",
			"correlation: spatial-factor, 64 factors, strength 0.5 (39018 links is over the dense models' limit of 4000; this model scales)"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, tc.file)); err != nil {
				testenv.Missing(t, tc.file+" in the data directory")
			}
			files, err := netfile.ReadFiles(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			net, rep := mustImport(t, files, netfile.ImportOptions{})
			if len(net.Nodes) != tc.nodes || len(net.Links) != tc.links || len(net.ODs) != netfile.DefaultODCount {
				t.Errorf("%d nodes, %d links, %d ODs", len(net.Nodes), len(net.Links), len(net.ODs))
			}
			for _, w := range tc.notes {
				if !strings.Contains(strings.Join(rep.Notes, "\n"), w) {
					t.Errorf("notes %q\nlack %q", rep.Notes, w)
				}
			}
		})
	}
}

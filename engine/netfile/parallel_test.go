package netfile_test

import (
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// parallelNet is tinyNet with a second road from 2 to 3 (a toll road:
// faster, other capacity) and, in the flow file, its own row.
var (
	parallelNet = strings.Replace(strings.Replace(tinyNet, "<NUMBER OF LINKS> 6", "<NUMBER OF LINKS> 7", 1),
		"\t3\t4\t9\t1\t5\t", "\t2\t3\t5\t1\t3\t0.15\t4\t0\t2\t1\t;\r\n\t3\t4\t9\t1\t5\t", 1)
	parallelFlow = strings.Replace(tinyFlow, "2\t3\t5\t4.5\n", "2\t3\t5\t4.5\n2\t3\t2\t3.25\n", 1)
)

// Real files have parallel links (a toll road beside a free one): each is
// imported as a road of its own, the second ending at a split node joined
// to its end by a connector, said in the report; its law is its row's, in
// the order the rows come (the flow file's costs taken in turn); the split
// node is never a default trip end; a row that repeats another is refused
// naming it.
func TestParallelLinksAreRoadsOfTheirOwn(t *testing.T) {
	for _, mean := range []string{netfile.MeanFreeFlow, netfile.MeanFlow} {
		files := []netfile.File{{Name: "par_net.tntp", Data: []byte(parallelNet)}, {Name: "par_node.tntp", Data: []byte(tinyNodes)}, {Name: "par_flow.tntp", Data: []byte(parallelFlow)}}
		net, rep := mustImport(t, files, netfile.ImportOptions{Mean: mean})
		if !strings.Contains(strings.Join(rep.Notes, "\n"), "1 parallel link (a second road") {
			t.Errorf("%s: the report does not say so: %q", mean, rep.Notes)
		}
		mid, ok := net.NodeIndex("2~3#2")
		if !ok || !engine.IsRoadPoint("2~3#2") {
			t.Fatalf("%s: no split node 2~3#2 among %v", mean, net.Nodes)
		}
		two, _ := net.NodeIndex("2")
		three, _ := net.NodeIndex("3")
		var direct, road, connector *engine.Link
		for i := range net.Links {
			l := &net.Links[i]
			switch {
			case l.From == two && l.To == three:
				direct = l
			case l.From == two && l.To == mid:
				road = l
			case l.From == mid && l.To == three:
				connector = l
			}
		}
		want := map[string][2]float64{netfile.MeanFreeFlow: {4, 3}, netfile.MeanFlow: {4.5, 3.25}}[mean]
		if direct == nil || road == nil || connector == nil || direct.Mean != want[0] || road.Mean != want[1] || connector.Mean != netfile.ParallelConnector {
			t.Fatalf("%s: links 2→3 %+v, 2→split %+v, split→3 %+v; want means %v and a %g connector", mean, direct, road, connector, want, netfile.ParallelConnector)
		}
		// The toll road is the LET path from 2 to 3 (3 + 0.001 < 4).
		if p := net.LET(three).Path(two, net); len(p) != 2 || net.Links[p[0]].To != mid {
			t.Errorf("%s: LET path from 2 to 3 is %v, want the second road", mean, net.PathNodes(p))
		}
		for _, od := range netfile.DefaultODs(net, 5) {
			if od.Origin == mid || od.Destination == mid {
				t.Errorf("%s: default OD pair %s uses the split node", mean, net.ODString(od))
			}
		}
	}
	dup := strings.Replace(parallelNet, "<NUMBER OF LINKS> 7", "<NUMBER OF LINKS> 8", 1)
	dup = strings.Replace(dup, "\t2\t3\t5\t1\t3\t0.15\t4\t0\t2\t1\t;\r\n", "\t2\t3\t5\t1\t3\t0.15\t4\t0\t2\t1\t;\r\n\t2\t3\t5\t1\t3\t0.15\t4\t0\t2\t1\t;\r\n", 1)
	_, _, err := netfile.Import([]netfile.File{{Name: "dup_net.tntp", Data: []byte(dup)}}, netfile.ImportOptions{Mean: netfile.MeanFreeFlow})
	if err == nil || !strings.Contains(err.Error(), "dup_net.tntp:12: field From/To: duplicate link 2→3: it repeats the link at dup_net.tntp line 11") {
		t.Errorf("a repeated row: %v", err)
	}
}

// A node file with no header line (rows "1 30208 74789") is read as node,
// x, y; files named with other capitals and a plural (_Net.tntp,
// _Nodes.tntp) are recognised.
func TestHeaderlessAndCapitalisedTNTPFiles(t *testing.T) {
	headless := "1 0 0\n2 1000 0 ;\n3\t2000\t500\n4 3000 0\n"
	net, _ := mustImport(t, []netfile.File{{Name: "Tiny_Net.tntp", Data: []byte(tinyNet)}, {Name: "Tiny_Nodes.tntp", Data: []byte(headless)}}, netfile.ImportOptions{})
	three, _ := net.NodeIndex("3")
	if net.Coords != engine.CoordPlanar || net.Nodes[three].Coord != [2]float64{2000, 500} {
		t.Errorf("coordinates %v %v", net.Coords, net.Nodes[three].Coord)
	}
	_, _, err := netfile.Import([]netfile.File{{Name: "Tiny_Net.tntp", Data: []byte(tinyNet)}, {Name: "Tiny_Nodes.tntp", Data: []byte("1 0 0\n2 1000\n3 2000 500\n4 3000 0\n")}}, netfile.ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "Tiny_Nodes.tntp:2: field row: 2 fields, header has 3") {
		t.Errorf("a short row in a headerless node file: %v", err)
	}
}

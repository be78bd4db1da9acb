package netfile_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// A GMNS pair drawn by hand (lon/lat, in Berlin: at (0°, 0°), which is sea,
// coordinates are taken as planar): 1–2 both ways from length and
// free_speed with a bend, 2→3 with ontime's own time, 3→1 one way. Node 9
// is on no link; the columns are in another order than the spec's.
const (
	gmnsNodes = "\ufeffnode_id,name,y_coord,x_coord\n1,a,52.5,13.4\n2,b,52.5,13.41\n3,c,52.51,13.41\n9,lonely,52.52,13.42\n"
	gmnsLinks = "link_id,from_node_id,to_node_id,directed,length,free_speed,ontime_mean,geometry\n" +
		`1,1,2,0,1200,36,,"LINESTRING (13.4 52.5, 13.405 52.502, 13.41 52.5)"` + "\n" +
		"2,2,3,true,,,2.5,\n" +
		"3,3,1,1,2000,60,,\n"
)

func gmnsFiles(node, link string) []netfile.File {
	return []netfile.File{{Name: "node.csv", Data: []byte(node)}, {Name: "link.csv", Data: []byte(link)}}
}

func TestImportGMNS(t *testing.T) {
	net, rep, err := netfile.Import(gmnsFiles(gmnsNodes, gmnsLinks), netfile.ImportOptions{Name: "tri"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != "GMNS" || net.Coords != engine.CoordLonLat || len(net.Nodes) != 3 || len(net.Links) != 4 {
		t.Fatalf("format %s, coords %s, %d nodes, %d links", rep.Format, net.Coords, len(net.Nodes), len(net.Links))
	}
	type want struct {
		mean  float64
		shape [][2]float64
	}
	wants := map[string]want{
		"1>2": {1.2 / 36 * 60, [][2]float64{{13.405, 52.502}}},
		"2>1": {1.2 / 36 * 60, [][2]float64{{13.405, 52.502}}}, // the undirected link's other way
		"2>3": {2.5, nil},
		"3>1": {2.0 / 60 * 60, nil},
	}
	for _, l := range net.Links {
		key := net.Nodes[l.From].ID + ">" + net.Nodes[l.To].ID
		w, ok := wants[key]
		if !ok {
			t.Fatalf("unexpected link %s", key)
		}
		if math.Abs(l.Mean-w.mean) > 1e-12 || !reflect.DeepEqual(l.Shape, w.shape) {
			t.Errorf("%s: mean %v shape %v, want %v %v", key, l.Mean, l.Shape, w.mean, w.shape)
		}
		if sd := l.SD(); math.Abs(sd-netfile.DefaultCV*l.Mean) > 1e-12 {
			t.Errorf("%s: σ %v, want the CV rule's %v (no spread column)", key, sd, netfile.DefaultCV*l.Mean)
		}
	}
	notes := strings.Join(rep.Notes, "\n")
	for _, s := range []string{"1 undirected links (directed = 0) became two", "1 nodes of node.csv are on no link", "length / free_speed with length in metres and free_speed in km/h", "σ = 0.3 × mean"} {
		if !strings.Contains(notes, s) {
			t.Errorf("report lacks %q:\n%s", s, notes)
		}
	}
}

func TestImportGMNSSpreadColumns(t *testing.T) {
	for _, tc := range []struct{ col, val string }{{"ontime_sd", "0.5"}, {"ontime_var", "0.25"}} {
		links := "link_id,from_node_id,to_node_id,directed,ontime_mean," + tc.col + "\n1,1,2,0,3," + tc.val + "\n"
		net, _, err := netfile.Import(gmnsFiles("node_id,x_coord,y_coord\n1,0,0\n2,200,0\n", links), netfile.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range net.Links {
			if l.Var != 0.25 || l.Mean != 3 {
				t.Errorf("%s: link %+v, want mean 3, variance 0.25", tc.col, l)
			}
		}
		if net.Coords != engine.CoordPlanar {
			// 200 is outside ±180: planar
			t.Errorf("coords %s", net.Coords)
		}
	}
}

func TestImportGMNSBadFiles(t *testing.T) {
	nodes := "node_id,x_coord,y_coord\n1,0,0\n2,1,0\n"
	head := "link_id,from_node_id,to_node_id,directed,ontime_mean"
	for _, tc := range []struct {
		name       string
		files      []netfile.File
		file, want string
		line       int
	}{
		{"no directed column", gmnsFiles(nodes, "link_id,from_node_id,to_node_id,ontime_mean\n1,1,2,3\n"), "link.csv", "header has no directed column", 1},
		{"bad directed", gmnsFiles(nodes, head+"\n1,1,2,maybe,3\n"), "link.csv", `"maybe": give 1`, 2},
		{"no time", gmnsFiles(nodes, "link_id,from_node_id,to_node_id,directed,length\n1,1,2,1,100\n"), "link.csv", "no link time", 2},
		{"zero speed", gmnsFiles(nodes, "link_id,from_node_id,to_node_id,directed,length,free_speed\n1,1,2,1,100,0\n"), "link.csv", "free_speed 0 must be positive", 2},
		{"negative time", gmnsFiles(nodes, head+"\n1,1,2,1,-3\n"), "link.csv", "must be positive", 2},
		{"bad geometry", gmnsFiles(nodes, head+",geometry\n1,1,2,1,3,POINT (0 0)\n"), "link.csv", "expected a WKT LINESTRING", 2},
		{"unknown node", gmnsFiles(nodes, head+"\n1,1,7,1,3\n"), "link.csv", "node 7 is not in node.csv", 2},
		{"bad coordinate", gmnsFiles("node_id,x_coord,y_coord\n1,0,east\n2,1,0\n", head+"\n1,1,2,1,3\n"), "node.csv", `"east" is not a number`, 2},
		{"sd on some rows", gmnsFiles(nodes, head+",ontime_sd\n1,1,2,1,3,1\n2,2,1,1,3,\n"), "link.csv", "every link needs one", 3},
		{"negative sd", gmnsFiles(nodes, head+",ontime_sd\n1,1,2,1,3,-1\n"), "link.csv", "≥ 0", 2},
		{"link.csv alone", []netfile.File{{Name: "link.csv", Data: []byte(head + "\n1,1,2,1,3\n")}}, "link.csv", "goes with its node.csv", 0},
		{"node.csv alone", []netfile.File{{Name: "node.csv", Data: []byte(nodes)}}, "node.csv", "needs its link.csv", 0},
		{"empty link.csv", gmnsFiles(nodes, head+"\n"), "link.csv", "no rows after the header", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hit := refusal(t, tc.files, tc.want)
			if hit.File != tc.file || hit.Line != tc.line {
				t.Errorf("problem at %s:%d, want %s:%d (%v)", hit.File, hit.Line, tc.file, tc.line, hit)
			}
		})
	}
}

// A GeoJSON network with a fault is refused with the file, the line of the
// feature and the property named.
func TestImportGeoJSONBadFiles(t *testing.T) {
	pt := func(id string, x float64) string {
		return fmt.Sprintf(`{"type":"Feature","properties":{"node_id":%s},"geometry":{"type":"Point","coordinates":[%v,0]}}`, id, x)
	}
	link := func(props string) string {
		return `{"type":"Feature","properties":{` + props + `},"geometry":{"type":"LineString","coordinates":[[0,0],[1,0]]}}`
	}
	doc := func(fs ...string) []netfile.File {
		return []netfile.File{{Name: "g.geojson", Data: []byte("{\"type\": \"FeatureCollection\", \"features\": [\n" + strings.Join(fs, ",\n") + "\n]}")}}
	}
	ok := `"from_node_id":1,"to_node_id":2,"ontime_mean":3`
	for _, tc := range []struct {
		name, want, field string
		files             []netfile.File
		line              int
	}{
		{"no mean", "mean time in minutes", "features[2].properties.ontime_mean", doc(pt("1", 0), pt("2", 1), link(`"from_node_id":1,"to_node_id":2`)), 4},
		{"no ends", "from_node_id and to_node_id", "features[2].properties.from_node_id", doc(pt("1", 0), pt("2", 1), link(`"ontime_mean":3`)), 4},
		{"unknown node", "node 7 is not in g.geojson", "to_node_id", doc(pt("1", 0), pt("2", 1), link(`"from_node_id":1,"to_node_id":7,"ontime_mean":3`)), 4},
		{"polygon", `"Polygon"`, "features[1].geometry.type", doc(pt("1", 0), `{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[]}}`, link(ok)), 3},
		{"sd on some", "same spread property", "features[3].properties", doc(pt("1", 0), pt("2", 1), link(ok+`,"ontime_sd":1`), link(`"from_node_id":2,"to_node_id":1,"ontime_mean":3`)), 5},
		{"negative variance", "≥ 0", "features[2].properties.ontime_var", doc(pt("1", 0), pt("2", 1), link(ok+`,"ontime_var":-1`)), 4},
		{"point without id", "missing node id", "features[0].properties.node_id", doc(`{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[0,0]}}`, pt("2", 1), link(ok)), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hit := refusal(t, tc.files, tc.want)
			if hit.File != "g.geojson" || hit.Line != tc.line || hit.Field != tc.field {
				t.Errorf("problem at %s:%d field %q, want g.geojson:%d %q (%v)", hit.File, hit.Line, hit.Field, tc.line, tc.field, hit)
			}
		})
	}
}

// refusal imports files that must be refused and returns the problem that
// says want.
func refusal(t *testing.T, files []netfile.File, want string) *engine.Error {
	t.Helper()
	net, _, err := netfile.Import(files, netfile.ImportOptions{})
	if err == nil || net != nil {
		t.Fatalf("accepted: %v", net)
	}
	for _, p := range err.(engine.Problems) {
		if strings.Contains(p.Message, want) {
			return p
		}
	}
	t.Fatalf("no problem says %q: %v", want, err)
	return nil
}

// sameNetwork compares what the GMNS round trip must keep.
func sameNetwork(t *testing.T, a, b *engine.Network) {
	t.Helper()
	if len(a.Nodes) != len(b.Nodes) || len(a.Links) != len(b.Links) || a.Coords != b.Coords {
		t.Fatalf("%d nodes %d links %s vs %d nodes %d links %s", len(a.Nodes), len(a.Links), a.Coords, len(b.Nodes), len(b.Links), b.Coords)
	}
	for i := range a.Nodes {
		if a.Nodes[i].ID != b.Nodes[i].ID || a.Nodes[i].Coord != b.Nodes[i].Coord {
			t.Fatalf("node %d: %+v vs %+v", i, a.Nodes[i], b.Nodes[i])
		}
	}
	for e := range a.Links {
		if !reflect.DeepEqual(a.Links[e], b.Links[e]) {
			t.Fatalf("link %d: %+v vs %+v", e, a.Links[e], b.Links[e])
		}
	}
	if !reflect.DeepEqual(a.Correlation, b.Correlation) || engine.Fingerprint(a, a.Correlation) != engine.Fingerprint(b, b.Correlation) ||
		!reflect.DeepEqual(a.ODs, b.ODs) || a.StepCap != b.StepCap || a.Law != b.Law {
		t.Fatalf("correlation, OD pairs, step cap or law differ: %+v %v %d %s vs %+v %v %d %s",
			a.Correlation, a.ODs, a.StepCap, a.Law, b.Correlation, b.ODs, b.StepCap, b.Law)
	}
}

// exportRoundTrip writes net in an export format and imports what was
// written under the same name.
func exportRoundTrip(t *testing.T, format string, net *engine.Network) *engine.Network {
	t.Helper()
	x, err := netfile.ExportByName(format)
	if err != nil {
		t.Fatal(err)
	}
	files, err := x.Write(net)
	if err != nil {
		t.Fatal(err)
	}
	again, rep, err := netfile.Import(files, netfile.ImportOptions{Name: net.Name})
	if err != nil {
		t.Fatalf("%s: %v\n%s", format, err, files[0].Data[:min(len(files[0].Data), 600)])
	}
	for _, f := range netfile.Formats {
		if f.Export == x.Name && f.Name != rep.Format {
			t.Errorf("%s export read back as %s, not %s", format, rep.Format, f.Name)
		}
	}
	return again
}

func gmnsRoundTrip(t *testing.T, net *engine.Network) *engine.Network {
	t.Helper()
	node, link, err := netfile.WriteGMNS(net)
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := netfile.Import(gmnsFiles(string(node), string(link)), netfile.ImportOptions{Name: net.Name})
	if err != nil {
		t.Fatalf("%v\nlink.csv:\n%s", err, link[:min(len(link), 600)])
	}
	return again
}

// GMNS → ontime → GMNS → ontime gives the same network: the hand-drawn
// pair, and many generated ones (random ids, both coordinate kinds,
// shapes, one-way and two-way links, with and without a spread column).
func TestGMNSRoundTrip(t *testing.T) {
	first, _, err := netfile.Import(gmnsFiles(gmnsNodes, gmnsLinks), netfile.ImportOptions{Name: "tri"})
	if err != nil {
		t.Fatal(err)
	}
	sameNetwork(t, first, gmnsRoundTrip(t, first))
	sameNetwork(t, first, exportRoundTrip(t, "geojson", first))

	rng := rand.New(rand.NewPCG(29, 1))
	for c := range 40 {
		lonlat, spread := c%2 == 0, c%3 != 0
		n := 3 + rng.IntN(30)
		var nodes, links strings.Builder
		nodes.WriteString("node_id,x_coord,y_coord\n")
		ids := make([]string, n)
		xy := make([][2]float64, n)
		for i := range n {
			ids[i] = fmt.Sprintf("n%d", rng.IntN(1_000_000))
			if i%2 == 0 {
				ids[i] = fmt.Sprint(rng.IntN(1_000_000))
			}
			ids[i] += fmt.Sprintf("_%d", i) // unique
			xy[i] = [2]float64{rng.Float64() * 1000, rng.Float64() * 1000}
			if lonlat {
				xy[i] = [2]float64{-75 + rng.Float64()*0.2, 39 + rng.Float64()*0.2}
			}
			fmt.Fprintf(&nodes, "%s,%v,%v\n", ids[i], xy[i][0], xy[i][1])
		}
		links.WriteString("link_id,from_node_id,to_node_id,directed,ontime_mean,geometry")
		if spread {
			links.WriteString(",ontime_sd")
		}
		links.WriteString("\n")
		// a ring, so every node is on a link, then random chords (no loop,
		// no pair twice in either direction)
		used := map[[2]int]bool{}
		for k := range n + rng.IntN(2*n) {
			a, b := k%n, (k+1)%n
			if k >= n {
				a, b = rng.IntN(n), rng.IntN(n)
			}
			if a == b || used[[2]int{a, b}] || used[[2]int{b, a}] {
				continue
			}
			used[[2]int{a, b}] = true
			geom := ""
			if rng.IntN(2) == 0 {
				geom = fmt.Sprintf(`"LINESTRING (%v %v, %v %v, %v %v)"`, xy[a][0], xy[a][1],
					(xy[a][0]+xy[b][0])/2+(rng.Float64()-0.5)*0.01*(xy[b][1]-xy[a][1]+1), (xy[a][1]+xy[b][1])/2+rng.Float64()*0.05, xy[b][0], xy[b][1])
			}
			fmt.Fprintf(&links, "%d,%s,%s,%d,%v,%s", k+1, ids[a], ids[b], rng.IntN(2), 0.1+rng.Float64()*5, geom)
			if spread {
				fmt.Fprintf(&links, ",%v", rng.Float64())
			}
			links.WriteString("\n")
		}
		net, _, err := netfile.Import(gmnsFiles(nodes.String(), links.String()), netfile.ImportOptions{Name: fmt.Sprint("g", c)})
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		sameNetwork(t, net, gmnsRoundTrip(t, net))
		sameNetwork(t, net, exportRoundTrip(t, "geojson", net))
	}
}

// A built-in network written as GMNS and read back keeps its links'
// means, σ and coordinates exactly.
func TestGMNSExportOfABuiltIn(t *testing.T) {
	net, err := builtin.Load("twobranch", "")
	if err != nil {
		t.Fatal(err)
	}
	again := gmnsRoundTrip(t, net)
	for e, l := range net.Links {
		m := again.Links[e]
		if m.Mean != l.Mean || m.Var != l.Var || again.Nodes[m.From].ID != net.Nodes[l.From].ID || again.Nodes[m.To].ID != net.Nodes[l.To].ID {
			t.Errorf("link %d: %+v vs %+v", e, m, l)
		}
	}
}

// TNTP export: means and coordinates come back; σ is TNTP's to lose.
func TestTNTPExportRoundTrip(t *testing.T) {
	first, _, err := netfile.Import(gmnsFiles(gmnsNodes, gmnsLinks), netfile.ImportOptions{Name: "tri"})
	if err != nil {
		t.Fatal(err)
	}
	x, err := netfile.ExportByName("tntp")
	if err != nil {
		t.Fatal(err)
	}
	files, err := x.Write(first)
	if err != nil {
		t.Fatal(err)
	}
	again, rep, err := netfile.Import(files, netfile.ImportOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, files[0].Data)
	}
	if again.Name != "tri" || rep.Format != "TNTP" {
		t.Errorf("name %q format %q", again.Name, rep.Format)
	}
	for e, l := range first.Links {
		m := again.Links[e]
		if m.Mean != l.Mean || m.Var != l.Var || again.Nodes[m.From].Coord != first.Nodes[l.From].Coord {
			t.Errorf("link %d: %+v vs %+v", e, m, l)
		}
	}
	if _, err := netfile.ExportByName("shapefile"); err == nil || !strings.Contains(err.Error(), "json, gmns, geojson, tntp") {
		t.Errorf("unknown format: %v", err)
	}
	bad := &engine.Network{Name: "x", Nodes: []engine.Node{{ID: "a b"}, {ID: "c"}}, Links: []engine.Link{{From: 0, To: 1, Mean: 1}}}
	if _, _, err := netfile.WriteTNTP(bad); err == nil || !strings.Contains(err.Error(), `"a b"`) {
		t.Errorf("id with a space: %v", err)
	}
}

// OD pairs picked before saving replace the checked ones; a pair that does
// not parse, joins a node to itself or cannot be driven is refused.
func TestReplaceODs(t *testing.T) {
	net, rep, err := netfile.Import(gmnsFiles(gmnsNodes, gmnsLinks), netfile.ImportOptions{ODs: []string{"1-3"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{{"1-7"}, {"2-2"}, {}, {"3-2", "x"}} {
		if err := netfile.ReplaceODs(net, bad, false, rep); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if len(net.ODs) != 1 {
		t.Fatalf("a refused pick changed the pairs: %v", net.ODs)
	}
	if err := netfile.ReplaceODs(net, []string{"3-2", "2-1"}, false, rep); err != nil {
		t.Fatal(err)
	}
	if got := []string{net.ODString(net.ODs[0]), net.ODString(net.ODs[1])}; !reflect.DeepEqual(got, []string{"3-2", "2-1"}) {
		t.Errorf("ODs %v", got)
	}
	if n := rep.Notes[len(rep.Notes)-1]; !strings.Contains(n, "picked before saving: 3-2, 2-1") {
		t.Errorf("report: %s", n)
	}
}

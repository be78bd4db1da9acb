package netfile_test

import (
	"bytes"
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

func open(t *testing.T, rel string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join(testenv.DataDir(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestReadTNTPNetRealFiles(t *testing.T) {
	for _, tc := range []struct {
		file              string
		links, firstThru  int
		first, last       [2]string
		firstFFT, lastCap float64
	}{
		{"tntp/SiouxFalls_net.tntp", 76, 1, [2]string{"1", "2"}, [2]string{"24", "23"}, 6, 5078.508436},
		{"tntp/Anaheim_net.tntp", 914, 39, [2]string{"1", "117"}, [2]string{"416", "407"}, 1.090458488, 5400},
	} {
		t.Run(tc.file, func(t *testing.T) {
			net, err := netfile.ReadTNTPNet(open(t, tc.file), tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(net.Links) != tc.links || net.FirstThruNode != tc.firstThru {
				t.Fatalf("%d links, first thru node %d", len(net.Links), net.FirstThruNode)
			}
			f, l := net.Links[0], net.Links[len(net.Links)-1]
			if f.Init != tc.first[0] || f.Term != tc.first[1] || f.FFTime != tc.firstFFT {
				t.Errorf("first link %+v", f)
			}
			if l.Init != tc.last[0] || l.Term != tc.last[1] || l.Capacity != tc.lastCap {
				t.Errorf("last link %+v", l)
			}
		})
	}
}

func TestReadOtherRealFiles(t *testing.T) {
	flow, err := netfile.ReadTNTPFlow(open(t, "tntp/Anaheim_flow.tntp"), "Anaheim_flow.tntp")
	if err != nil || len(flow) != 914 || flow[0].From != "1" || flow[0].To != "117" || flow[0].Cost != 1.1529198689124767 {
		t.Fatalf("flow: %d rows, first %+v, %v", len(flow), flow[0], err)
	}
	nodes, err := netfile.ReadTNTPNodes(open(t, "tntp/SiouxFalls_node.tntp"), "SiouxFalls_node.tntp")
	if err != nil || len(nodes) != 24 || nodes[0].Coord != [2]float64{-96.77041974, 43.61282792} {
		t.Fatalf("nodes: %d, first %+v, %v", len(nodes), nodes[0], err)
	}
	geo, err := netfile.ReadGeoJSONNodes(open(t, "tntp/anaheim_nodes.geojson"), "anaheim_nodes.geojson")
	if err != nil || len(geo) != 416 || geo[0].ID != "1" || geo[415].ID != "416" {
		t.Fatalf("geojson: %d, %v", len(geo), err)
	}
	coords := make([][2]float64, len(geo))
	for i, g := range geo {
		coords[i] = g.Coord
	}
	if !engine.LooksLonLat(coords) {
		t.Error("Anaheim coordinates not detected as lon/lat")
	}
	// sioux_network.csv starts with a UTF-8 byte-order mark.
	for _, f := range []string{"segac/SiouxFalls_network.csv", "segac/sioux_network.csv"} {
		rows, err := netfile.ReadLinkCSV(open(t, f), f)
		if err != nil || len(rows) != 76 || rows[0].From != "1" || !rows[0].HasVolume {
			t.Fatalf("%s: %d rows, %v", f, len(rows), err)
		}
	}
}

func TestLinkCSVColumnsByHeader(t *testing.T) {
	in := "\ufeffVar, cost ,TO,from\n0.5,3,2,1\n0,1.5,3,2\n"
	rows, err := netfile.ReadLinkCSV(strings.NewReader(in), "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []netfile.CSVLink{{Line: 2, From: "1", To: "2", Cost: 3, Var: 0.5}, {Line: 3, From: "2", To: "3", Cost: 1.5, Var: 0}}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
	net := netfile.LinkCSVNetwork("x", rows)
	if len(net.Nodes) != 3 || len(net.Links) != 2 || net.Links[1].Mean != 1.5 {
		t.Errorf("network: %d nodes, %d links", len(net.Nodes), len(net.Links))
	}
}

// Bad input names the file, line and field.
func TestBadInput(t *testing.T) {
	net := "<NUMBER OF LINKS> 2\n<END OF METADATA>\n\n~ init_node term_node capacity free_flow_time ;\n 1 2 100 6 ;\n"
	for _, tc := range []struct {
		name string
		read func() error
		want string
	}{
		{"tntp number", func() error {
			_, err := netfile.ReadTNTPNet(strings.NewReader(net+" 2 1 abc 6 ;\n"), "x_net.tntp")
			return err
		}, `x_net.tntp:6: field capacity: "abc" is not a number`},
		{"tntp link count", func() error {
			_, err := netfile.ReadTNTPNet(strings.NewReader(net), "x_net.tntp")
			return err
		}, "field NUMBER OF LINKS: metadata says 2 links, file has 1"},
		{"tntp fields", func() error {
			_, err := netfile.ReadTNTPNet(strings.NewReader(net+" 2 1 6 ;\n"), "x_net.tntp")
			return err
		}, "x_net.tntp:6: field row: 3 fields, header has 4"},
		{"tntp header", func() error {
			_, err := netfile.ReadTNTPNet(strings.NewReader("<END OF METADATA>\n~ a b ;\n"), "x_net.tntp")
			return err
		}, "x_net.tntp:2: field init_node: header has no init_node column"},
		{"tntp metadata", func() error {
			_, err := netfile.ReadTNTPNet(strings.NewReader("<NUMBER OF NODES> 3\nhello\n"), "x_net.tntp")
			return err
		}, "x_net.tntp:2: field metadata"},
		{"flow cost", func() error {
			_, err := netfile.ReadTNTPFlow(strings.NewReader("From To Volume Cost\n1 2 3 4\n1 3 5 x\n"), "f.tntp")
			return err
		}, `f.tntp:3: field Cost: "x" is not a number`},
		{"node y", func() error {
			_, err := netfile.ReadTNTPNodes(strings.NewReader("Node X Y ;\n1 2 ;\n"), "n.tntp")
			return err
		}, "n.tntp:2: field row: 2 fields, header has 3"},
		{"csv var", func() error {
			_, _, err := netfile.Import([]netfile.File{{Name: "l.csv", Data: []byte("From,To,Cost,Var\n1,2,3,4\n2,3,1,-1\n")}}, netfile.ImportOptions{})
			return err
		}, "l.csv:3: field Var: link 2→3: variance -1 must be ≥ 0"},
		{"csv header", func() error {
			_, err := netfile.ReadLinkCSV(strings.NewReader("From,To,Mean\n1,2,3\n"), "l.csv")
			return err
		}, "l.csv:1: field cost: header has no cost column"},
		{"geojson id", func() error {
			_, err := netfile.ReadGeoJSONNodes(strings.NewReader("{\"type\": \"FeatureCollection\", \"features\": [\n"+
				"{\"properties\": {\"id\": 1}, \"geometry\": {\"type\": \"Point\", \"coordinates\": [1, 2]}},\n"+
				"{\"properties\": {}, \"geometry\": {\"type\": \"Point\", \"coordinates\": [1, 2]}}\n]}"), "n.geojson")
			return err
		}, "n.geojson:3: field features[1].properties.id: missing node id"},
		{"json syntax", func() error {
			_, err := netfile.ReadJSON(strings.NewReader("{\n\"format\": \"ontime-network\",\n\"version\": 1,,\n}"), "n.json")
			return err
		}, "n.json:3: invalid JSON"},
		{"json link node", func() error {
			_, err := netfile.ReadJSON(strings.NewReader(`{"format": "ontime-network", "version": 1, "name": "x",
"nodes": [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 1, "y": 0}],
"links": [
 {"from": "a", "to": "b", "mean": 1, "variance": 0},
 {"from": "b", "to": "z", "mean": 1, "variance": 0}],
"correlation": {"model": "independent"}}`), "n.json")
			return err
		}, `n.json:5: field links[1].to: unknown node "z"`},
		{"json link mean", func() error {
			_, err := netfile.ReadJSON(strings.NewReader(`{"format": "ontime-network", "version": 1, "name": "x",
"nodes": [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 1, "y": 0}],
"links": [
 {"from": "a", "to": "b", "mean": 1, "variance": 0},
 {"from": "b", "to": "a", "mean": -2, "variance": 0}],
"correlation": {"model": "independent"}}`), "n.json")
			return err
		}, `n.json:5: field links[1].mean: mean -2 must be positive`},
		{"json version", func() error {
			_, err := netfile.ReadJSON(strings.NewReader(`{"format": "ontime-network", "version": 9}`), "n.json")
			return err
		}, "n.json:1: field version: version 9 is not supported"},
		{"json covariance", func() error {
			_, err := netfile.ReadJSON(strings.NewReader(`{"format": "ontime-network", "version": 1, "name": "x",
"nodes": [{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 1, "y": 0}],
"links": [{"from": "a", "to": "b", "mean": 1, "variance": 2}],
"correlation": {"model": "explicit",
  "covariance": [[3]]}}`), "n.json")
			return err
		}, "n.json:5: field correlation.covariance[0][0]: diagonal 3 differs from links[0].variance 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.read()
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\n does not contain %q", err, tc.want)
			}
			if engine.ErrorCode(err) != engine.EINVALID {
				t.Errorf("code %q, want invalid", engine.ErrorCode(err))
			}
		})
	}
}

// ontime's JSON format round-trips exactly: read → write → read → write
// gives the same bytes and the same network.
func TestJSONRoundTrip(t *testing.T) {
	in := `{"format": "ontime-network", "version": 1, "name": "tri", "coordinates": "lonlat",
"nodes": [{"id": "1", "x": -96.77041974, "y": 43.61282792}, {"id": "2", "x": -96.71125063, "y": 43.60581298}, {"id": "3", "x": -96.7, "y": 43.5}],
"links": [{"from": "1", "to": "2", "mean": 6.000816237, "variance": 5.163956438}, {"from": "2", "to": "3", "mean": 0.1, "variance": 0.000348776},
 {"from": "1", "to": "3", "mean": 3.3333333333333335, "variance": 1e-300}],
"correlation": {"model": "explicit", "covariance": [[5.163956438, 0.01, 0], [0.01, 0.000348776, 0], [0, 0, 1e-300]]},
"ods": ["1-3"], "step_cap": 7, "zones": ["1", "3"]}`
	net, err := netfile.ReadJSON(strings.NewReader(in), "tri.json")
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := netfile.WriteJSON(&a, net); err != nil {
		t.Fatal(err)
	}
	again, err := netfile.ReadJSON(bytes.NewReader(a.Bytes()), "again.json")
	if err != nil {
		t.Fatal(err)
	}
	netfile.WriteJSON(&b, again)
	if a.String() != b.String() {
		t.Fatalf("second write differs:\n%s\n%s", a.String(), b.String())
	}
	for e := range net.Links {
		if !reflect.DeepEqual(net.Links[e], again.Links[e]) {
			t.Errorf("link %d: %+v vs %+v", e, net.Links[e], again.Links[e])
		}
	}
	if again.Correlation.Covariance[0][1] != 0.01 || again.StepCap != 7 || again.Nodes[0].Coord[0] != -96.77041974 || len(again.ODs) != 1 ||
		!slices.Equal(again.Zones, []string{"1", "3"}) {
		t.Error("fields lost in the round trip")
	}
	// A zone must be a node, named by its field.
	_, err = netfile.ReadJSON(strings.NewReader(strings.Replace(in, `"zones": ["1", "3"]`, `"zones": ["1", "9"]`, 1)), "tri.json")
	if err == nil || !strings.Contains(err.Error(), "zones[1]") {
		t.Errorf("unknown zone: %v", err)
	}
	// lon/lat are projected to metres about the centroid.
	if again.Nodes[0].X == again.Nodes[0].Coord[0] || again.Nodes[1].X-again.Nodes[0].X < 4000 {
		t.Errorf("projection: %+v %+v", again.Nodes[0], again.Nodes[1])
	}
}

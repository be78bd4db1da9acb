package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
)

var update = flag.Bool("update", false, "rewrite the map layouts' golden files (web/test/testdata), which web/test/mapdata.test.js reads back")

// shapedTown is a lon/lat network with a two-way shaped road, a one-way
// shaped road and straight links: every case of the columns layout.
func shapedTown() *engine.Network {
	net := &engine.Network{Name: "shaped", Coords: engine.CoordLonLat}
	for i, c := range [][2]float64{{1.52, 42.5}, {1.53, 42.5}, {1.53, 42.51}, {1.52, 42.51}} {
		net.Nodes = append(net.Nodes, engine.Node{ID: string(rune('a' + i)), Coord: c})
	}
	bend := [][2]float64{{1.525, 42.501}, {1.528, 42.4995}}
	rev := [][2]float64{bend[1], bend[0]}
	net.Links = []engine.Link{
		{From: 0, To: 1, Mean: 1.23456, Var: 0.1, Shape: bend},
		{From: 1, To: 0, Mean: 1.23456, Var: 0.1, Shape: rev},
		{From: 1, To: 2, Mean: 2, Var: 0.3},
		{From: 2, To: 3, Mean: 1.5, Var: 0.2, Shape: [][2]float64{{1.525, 42.512}}},
		{From: 3, To: 0, Mean: 0.9, Var: 0.05},
	}
	net.Project()
	net.Index()
	return net
}

// objectsOf reads the columns layout back (web/src/mapdata.js's fromColumns).
func objectsOf(c columnsJSON) networkJSON {
	out := networkJSON{Name: c.Name, Coords: c.Coords, ODs: c.ODs, Frame: c.Frame}
	for i, id := range c.Nodes.ID {
		out.Nodes = append(out.Nodes, nodeJSON{ID: id, X: c.Nodes.X[i], Y: c.Nodes.Y[i]})
	}
	for i := range c.Links.From {
		l := linkJSON{ID: i, From: c.Links.From[i], To: c.Links.To[i], Mean: c.Links.Mean[i], SD: c.Links.SD[i]}
		if c.Links.ShapeAt != nil {
			for k := c.Links.ShapeAt[i]; k < c.Links.ShapeAt[i+1]; k++ {
				l.Shape = append(l.Shape, [2]float64{c.Links.Shape[2*k], c.Links.Shape[2*k+1]})
			}
		}
		out.Links = append(out.Links, l)
	}
	return out
}

// Both layouts carry the same numbers: the columns read back give the
// objects, with and without road shapes, through JSON as a browser gets
// them. The shaped town's two forms are golden files that the front end's
// test reads back with fromColumns.
func TestMapLayoutsCarryTheSameNumbers(t *testing.T) {
	straight := shapedTown()
	straight.Name = "straight"
	for i := range straight.Links {
		straight.Links[i].Shape = nil
	}
	for _, net := range []*engine.Network{shapedTown(), straight} {
		var objects networkJSON
		var columns columnsJSON
		ob, cb := roundTrip(t, mapJSON(net), &objects), roundTrip(t, columnsOf(mapJSON(net)), &columns)
		if columns.Layout != "columns" || len(columns.Links.From) != len(net.Links) {
			t.Fatalf("%s: columns layout %+v", net.Name, columns)
		}
		if back := objectsOf(columns); !reflect.DeepEqual(back, objects) {
			t.Errorf("%s: the columns read back differ from the objects:\n%+v\n%+v", net.Name, back, objects)
		}
		hasShapes := strings.Contains(string(cb), `"shape_at"`)
		if want := net.Name == "shaped"; hasShapes != want {
			t.Errorf("%s: shape_at present %v, want %v: %s", net.Name, hasShapes, want, cb)
		}
		if net.Name == "shaped" {
			golden(t, "map.objects.json", ob)
			golden(t, "map.columns.json", cb)
		}
	}
}

func roundTrip(t *testing.T, v, into any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "web", "test", "testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./server -run MapLayouts -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the server sends (go test ./server -run MapLayouts -update rewrites it):\n%s", path, got)
	}
}

// The map API takes ?layout=columns, and names the layouts when asked
// for another.
func TestMapLayoutQuery(t *testing.T) {
	ts := newTestServer(t)
	_, body := get(t, ts, "/api/networks/twobranch?layout=columns")
	var c columnsJSON
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatal(err)
	}
	if c.Layout != "columns" || len(c.Nodes.ID) != 5 || len(c.Links.From) != 5 || len(c.ODs) != 1 {
		t.Errorf("columns: %.300s", body)
	}
	res, err := http.Get(ts.URL + "/api/networks/twobranch?layout=rows")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var e struct{ Error string }
	json.NewDecoder(res.Body).Decode(&e)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(e.Error, "objects or columns") {
		t.Errorf("layout=rows: %d %q", res.StatusCode, e.Error)
	}
}

package netfile_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// randomLonLatNetwork is a ring of n nodes near Philadelphia with random
// chords (no pair twice either way), some links bent through shape points.
func randomLonLatNetwork(rng *rand.Rand) *engine.Network {
	n := 3 + rng.IntN(20)
	net := &engine.Network{Name: "r", Coords: engine.CoordLonLat}
	for i := range n {
		net.Nodes = append(net.Nodes, engine.Node{ID: string(rune('a'+i%26)) + strings.Repeat("x", i/26), Coord: [2]float64{-75 + rng.Float64()*0.2, 39 + rng.Float64()*0.2}})
	}
	used := map[[2]int]bool{}
	for k := range n + rng.IntN(2*n) {
		a, b := k%n, (k+1)%n
		if k >= n {
			a, b = rng.IntN(n), rng.IntN(n)
		}
		if a == b || used[[2]int{a, b}] || used[[2]int{b, a}] {
			continue
		}
		used[[2]int{a, b}], used[[2]int{b, a}] = true, true
		l := engine.Link{From: a, To: b, Mean: 0.1 + rng.Float64()*5, Var: rng.Float64()}
		for range rng.IntN(3) {
			l.Shape = append(l.Shape, [2]float64{-75 + rng.Float64()*0.2, 39 + rng.Float64()*0.2})
		}
		net.Links = append(net.Links, l)
		back := l
		back.From, back.To = b, a
		back.Shape = nil
		for i := len(l.Shape) - 1; i >= 0; i-- {
			back.Shape = append(back.Shape, l.Shape[i])
		}
		net.Links = append(net.Links, back)
	}
	net.Project()
	net.Index()
	return net
}

// Routes written as GeoJSON and as GPX read back to the same links, by
// their geometry alone, on many random networks and random walks; a
// drive's minutes at its last node are its time.
func TestRoutesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(46, 3))
	for c := range 60 {
		net := randomLonLatNetwork(rng)
		var routes []netfile.Route
		for k := range 1 + rng.IntN(4) {
			u := rng.IntN(len(net.Nodes))
			r := netfile.Route{Name: "walk <" + string(rune('0'+k)) + "> & co", Props: map[string]any{"budget": 12.5}}
			for range 1 + rng.IntN(10) {
				out := net.Out(u)
				e := out[rng.IntN(len(out))]
				r.Links = append(r.Links, e)
				tm := rng.Float64() * 4
				r.Times = append(r.Times, tm)
				u = net.Links[e].To
			}
			if k%2 == 1 {
				r.Times = nil
			}
			routes = append(routes, r)
		}
		for _, f := range netfile.RouteFormats {
			if !f.Geometry {
				continue
			}
			data, err := f.Write(net, routes)
			if err != nil {
				t.Fatalf("case %d %s: %v", c, f.Name, err)
			}
			courses, err := netfile.ReadRouteCourses(bytes.NewReader(data), "routes"+f.Ending)
			if err != nil {
				t.Fatalf("case %d %s: %v", c, f.Name, err)
			}
			if len(courses) != len(routes) {
				t.Fatalf("case %d %s: %d courses for %d routes", c, f.Name, len(courses), len(routes))
			}
			for k, pts := range courses {
				links, err := netfile.MatchCourse(net, pts)
				if err != nil || !reflect.DeepEqual(links, routes[k].Links) {
					t.Fatalf("case %d %s route %d: read back %v (%v), wrote %v", c, f.Name, k, links, err, routes[k].Links)
				}
			}
		}
		data, _ := netfile.WriteRoutesGeoJSON(net, routes)
		var fc struct {
			Features []struct {
				Properties struct {
					Name    string    `json:"name"`
					Minutes []float64 `json:"minutes_at_nodes"`
					Budget  float64   `json:"budget"`
				} `json:"properties"`
			} `json:"features"`
		}
		if err := json.Unmarshal(data, &fc); err != nil {
			t.Fatal(err)
		}
		for k, f := range fc.Features {
			want := 0.0
			for _, tm := range routes[k].Times {
				want += tm
			}
			m := f.Properties.Minutes
			if routes[k].Times == nil && m != nil || routes[k].Times != nil && (len(m) != len(routes[k].Links)+1 || abs(m[len(m)-1]-want) > 1e-9) {
				t.Fatalf("case %d route %d: minutes %v, time %v", c, k, m, want)
			}
			if f.Properties.Name != routes[k].Name || f.Properties.Budget != 12.5 {
				t.Fatalf("case %d route %d: properties %+v", c, k, f.Properties)
			}
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// GPX is refused for a network off the globe, with the way out named; an
// unknown format names the choices.
func TestRouteFormatByName(t *testing.T) {
	planar := &engine.Network{Name: "grid", Coords: engine.CoordPlanar}
	if _, err := netfile.RouteFormatByName("gpx", planar); err == nil || !strings.Contains(err.Error(), "choose geojson") {
		t.Errorf("gpx on a planar network: %v", err)
	}
	if _, err := netfile.RouteFormatByName("kml", planar); err == nil || !strings.Contains(err.Error(), "geojson, gpx or csv") {
		t.Errorf("unknown: %v", err)
	}
	if f, err := netfile.RouteFormatByName("geojson", planar); err != nil || f.MediaType != "application/geo+json" {
		t.Errorf("geojson: %v %v", f, err)
	}
}

// The CSV has a row per route: its nodes and links as written, and every
// property in a column of its own (empty where a route lacks it).
func TestRoutesCSV(t *testing.T) {
	net := randomLonLatNetwork(rand.New(rand.NewPCG(7, 7)))
	e := net.Out(0)[0]
	routes := []netfile.Route{{Name: "a", Links: []int{e}, Times: []float64{1.5}, Props: map[string]any{"on_time": true, "budget_min": 3.25}},
		{Name: "b", Links: []int{e}, Props: map[string]any{"buffer_index": 0.125}}}
	data, err := netfile.WriteRoutesCSV(net, routes)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"name", "nodes", "links", "minutes_on_links", "budget_min", "buffer_index", "on_time"},
		{"a", strings.Join(net.PathNodes([]int{e}), " "), fmt.Sprint(e + 1), "1.5", "3.25", "", "true"}, // link numbers count from 1
		{"b", strings.Join(net.PathNodes([]int{e}), " "), fmt.Sprint(e + 1), "", "", "0.125", ""}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("got %q, want %q", rows, want)
	}
}

// Node ids from an upload reach the first character of a route CSV's
// cells; a spreadsheet would run "=cmd|…" as a formula. Written through
// csvsafe, such a cell is text (issue 71: 7).
func TestRoutesCSVNeutralisesFormulas(t *testing.T) {
	net := randomLonLatNetwork(rand.New(rand.NewPCG(7, 7)))
	e := net.Out(0)[0]
	net.Nodes[net.Links[e].From].ID = "=cmd|' /C calc'!A0"
	net.Nodes[net.Links[e].To].ID = "@SUM(1)"
	data, err := netfile.WriteRoutesCSV(net, []netfile.Route{{Name: "+SUM(1+1)", Links: []int{e}}})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("%q %v", rows, err)
	}
	for _, cell := range rows[1] {
		if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
			t.Errorf("a cell a spreadsheet reads as a formula: %q (row %q)", cell, rows[1])
		}
	}
}

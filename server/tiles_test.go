package server

import (
	"math"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
)

func TestTileURLs(t *testing.T) {
	for _, tc := range []struct{ url, origin, err string }{
		{"", "", ""},
		{"https://tile.openstreetmap.org/{z}/{x}/{y}.png", "https://tile.openstreetmap.org", ""},
		{"https://{s}.tile.example.org/{z}/{x}/{y}.png", "https://*.tile.example.org", ""},
		{"http://localhost:8088/tiles/{z}/{x}/{y}.png", "http://localhost:8088", ""},
		{"https://tile.example.org/{z}/{x}.png", "", "no {y}"},
		{"ftp://tile.example.org/{z}/{x}/{y}.png", "", "http:// or https://"},
		{"tile.example.org/{z}/{x}/{y}.png", "", "http:// or https://"},
		{"https:///{z}/{x}/{y}.png", "", "name a host"},
		{"https://tiles-{s}.example.org/{z}/{x}/{y}.png", "", "first label"},
		{"https://user:pw@tile.example.org/{z}/{x}/{y}.png", "", "does not parse"},
	} {
		got, err := Tiles{URL: tc.url}.Origin()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "tile URL") {
				t.Errorf("%q: error %v, want one saying %q", tc.url, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.origin {
			t.Errorf("%q: origin %q, %v; want %q", tc.url, got, err, tc.origin)
		}
	}
}

// With a tile server set, pages carry it for the maps and their Content
// Security Policy lets images come from it, and from nowhere else.
func TestTilesReachThePages(t *testing.T) {
	for _, tiles := range []Tiles{{}, {URL: "https://{s}.tile.example.org/{z}/{x}/{y}.png", Attribution: "© <b>them</b>"}} {
		l := lab.New(lab.Options{StateDir: t.TempDir()})
		ts := httptest.NewServer(NewServer(Deps{Lab: l, Version: "test", Assets: assets.FS, Tiles: tiles}))
		res, body := get(t, ts, "/networks/twobranch")
		csp := res.Header.Get("Content-Security-Policy")
		ts.Close()
		l.Close()
		if tiles.URL == "" {
			if strings.Contains(body, "data-tiles") || !strings.Contains(csp, "img-src 'self' data: blob:;") {
				t.Errorf("no tiles: the page says data-tiles or the CSP allows more: %q", csp)
			}
			continue
		}
		if !strings.Contains(body, `data-tiles="https://{s}.tile.example.org/{z}/{x}/{y}.png"`) || !strings.Contains(body, `data-tiles-attribution="© &lt;b&gt;them&lt;/b&gt;"`) {
			t.Errorf("the page does not carry the tile setting (escaped)")
		}
		if !strings.Contains(csp, "img-src 'self' data: blob: https://*.tile.example.org;") || !strings.Contains(csp, "default-src 'self';") {
			t.Errorf("CSP %q does not allow the tiles' images (only)", csp)
		}
	}
}

// The map JSON's frame takes every node's drawn position back to its
// longitude/latitude, as the map on tiles does (web/src/frame.js).
func TestMapFrameInvertsTheProjection(t *testing.T) {
	net := &engine.Network{Name: "lonlat", Coords: engine.CoordLonLat}
	for i, c := range [][2]float64{{1.52, 42.5}, {1.60, 42.55}, {1.45, 42.46}} {
		net.Nodes = append(net.Nodes, engine.Node{ID: string(rune('a' + i)), Coord: c})
	}
	net.Links = []engine.Link{{From: 0, To: 1, Mean: 1, Var: 0.1}, {From: 1, To: 2, Mean: 1, Var: 0.1}}
	net.Project()
	net.Index()
	js := mapJSON(net)
	if js.Frame == nil {
		t.Fatal("a lon/lat network's map has no frame")
	}
	f := engine.LocalFrame{Lon0: js.Frame.Lon0, Lat0: js.Frame.Lat0, MetresPerDegree: js.Frame.MetresPerDegree, CosLat0: js.Frame.CosLat0}
	for i, n := range js.Nodes {
		back := f.Inverse([2]float64{n.X, n.Y})
		if math.Abs(back[0]-net.Nodes[i].Coord[0]) > 1e-9 || math.Abs(back[1]-net.Nodes[i].Coord[1]) > 1e-9 {
			t.Errorf("node %s drawn at (%g, %g) goes back to %v, not %v", n.ID, n.X, n.Y, back, net.Nodes[i].Coord)
		}
	}
	planar := *net
	planar.Coords = engine.CoordPlanar
	if mapJSON(&planar).Frame != nil {
		t.Error("a planar network's map has a frame")
	}
}

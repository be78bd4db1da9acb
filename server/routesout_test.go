package server

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// /api/routes writes a comparison's drives: one LineString per method that
// drove, whose geometry reads back to the links it lists, from the origin
// to the destination, the minutes at its last node its arrival; GPX is
// refused for a network off the globe; /api/plan/routes writes the plan's
// routes with their indices.
func TestRoutesOut(t *testing.T) {
	ts := newTestServer(t)
	net, err := builtin.Load("ringtown", "")
	if err != nil {
		t.Fatal(err)
	}
	res, body := get(t, ts, "/api/routes?net=ringtown&m=let&m=fma&f=1.0&r=3") // dot solves its tables for 30 s under -race
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/geo+json" || !strings.Contains(res.Header.Get("Content-Disposition"), ".geojson") {
		t.Fatalf("%d %v %.300s", res.StatusCode, res.Header, body)
	}
	var fc struct {
		Features []struct {
			Properties struct {
				Name    string    `json:"name"`
				Links   []int     `json:"links"`
				Minutes []float64 `json:"minutes_at_nodes"`
				Arrival float64   `json:"arrival_min"`
				OnTime  bool      `json:"on_time"`
				Budget  float64   `json:"budget_min"`
			} `json:"properties"`
			Geometry struct {
				Coordinates [][2]float64 `json:"coordinates"`
			} `json:"geometry"`
		} `json:"features"`
	}
	if err := json.Unmarshal([]byte(body), &fc); err != nil || len(fc.Features) != 2 {
		t.Fatalf("%v %.300s", err, body)
	}
	for _, f := range fc.Features {
		p := f.Properties
		links, err := netfile.MatchCourse(net, f.Geometry.Coordinates)
		if err != nil || !reflect.DeepEqual(engine.LinkNumbers(links), p.Links) { // numbers count from 1
			t.Errorf("%s: geometry reads back as %v (%v), listed %v", p.Name, links, err, p.Links)
		}
		if m := p.Minutes; len(m) != len(p.Links)+1 || math.Abs(m[len(m)-1]-p.Arrival) > 1e-9 || p.OnTime != (p.Arrival <= p.Budget) {
			t.Errorf("%s: minutes %v arrival %v on time %v budget %v", p.Name, m, p.Arrival, p.OnTime, p.Budget)
		}
	}
	if res, body := get(t, ts, "/api/routes?net=ringtown&format=gpx"); res.StatusCode != 400 || !strings.Contains(body, "choose geojson") {
		t.Errorf("gpx off the globe: %d %s", res.StatusCode, body)
	}
	if testing.Short() {
		return // the plan's routes: one request, long under -race
	}
	res, body = get(t, ts, "/api/plan/routes?net=ringtown&routes=2&n=200")
	if err := json.Unmarshal([]byte(body), &fc); err != nil || res.StatusCode != 200 || len(fc.Features) != 2 {
		t.Fatalf("%d %v %.300s", res.StatusCode, err, body)
	}
	if !strings.Contains(body, `"planning_time_index"`) {
		t.Errorf("no indices: %.300s", body)
	}
}

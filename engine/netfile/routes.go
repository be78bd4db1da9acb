package netfile

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/internal/csvsafe"
)

// Route is a route or one drive along it, to write for a map or a GPS.
type Route struct {
	Name  string // the feature's or track's name (a method, "route 1")
	Links []int  // in driving order
	// Times are the minutes spent on each link (a drive on one
	// realization); nil for a route without a drive.
	Times []float64
	// Props are further properties (budget, arrival, on time, indices),
	// written as GeoJSON properties and as the GPX track's description.
	Props map[string]any
}

// RouteFormat is one way routes are written.
type RouteFormat struct {
	Name, Label, MediaType, Ending string
	LonLatOnly                     bool // a GPS format: meaningless off the globe
	Geometry                       bool // it carries each route's course (ReadRouteCourses reads it back)
	Write                          func(net *engine.Network, routes []Route) ([]byte, error)
}

// RouteFormats are the formats routes are written in.
var RouteFormats = []RouteFormat{
	{Name: "geojson", Label: "GeoJSON", MediaType: "application/geo+json", Ending: ".geojson", Geometry: true, Write: WriteRoutesGeoJSON},
	{Name: "gpx", Label: "GPX", MediaType: "application/gpx+xml", Ending: ".gpx", LonLatOnly: true, Geometry: true, Write: WriteRoutesGPX},
	{Name: "csv", Label: "CSV", MediaType: "text/csv", Ending: ".csv", Write: WriteRoutesCSV},
}

// RouteFormatByName finds a route format, naming the choices when there
// is none, and refuses a GPS format for a network without longitude and
// latitude.
func RouteFormatByName(name string, net *engine.Network) (RouteFormat, error) {
	var names []string
	for _, f := range RouteFormats {
		if f.Name == name {
			if f.LonLatOnly && net.Coords != engine.CoordLonLat {
				return f, engine.InputError("", 0, "format", "%s needs longitude and latitude, and %s's coordinates are %s: choose geojson", f.Label, net.Name, coordKindText(string(net.Coords)))
			}
			return f, nil
		}
		names = append(names, f.Name)
	}
	return RouteFormat{}, engine.InputError("", 0, "format", "unknown route format %q: choose %s", name, engine.JoinOr(names))
}

func coordKindText(s string) string {
	if s == "" || s == string(engine.CoordNone) {
		return "none (an automatic layout)"
	}
	return s
}

// course is a route's points: the origin, then each link's shape and head.
// at[k] is the index in the points of the node reached after link k.
func course(net *engine.Network, links []int) (pts [][2]float64, at []int) {
	if len(links) == 0 {
		return nil, nil
	}
	pts = append(pts, nodeCoord(net, net.Nodes[net.Links[links[0]].From]))
	for _, e := range links {
		l := net.Links[e]
		pts = append(pts, l.Shape...)
		pts = append(pts, nodeCoord(net, net.Nodes[l.To]))
		at = append(at, len(pts)-1)
	}
	return pts, at
}

// atNodes are a drive's minutes at each node it reaches, the origin's 0
// first: the running sum of the minutes on its links.
func atNodes(minutes []float64) []float64 {
	out := make([]float64, 0, len(minutes)+1)
	clock := 0.0
	out = append(out, clock)
	for _, t := range minutes {
		clock += t
		out = append(out, clock)
	}
	return out
}

// WriteRoutesGeoJSON writes routes as a FeatureCollection of LineStrings,
// each with its name, link numbers (1-based, in order: engine.LinkNumbers), node ids, the minutes
// at each node reached when the route is a drive, and its Props.
func WriteRoutesGeoJSON(net *engine.Network, routes []Route) ([]byte, error) {
	type feature struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Geometry   struct {
			Type        string       `json:"type"`
			Coordinates [][2]float64 `json:"coordinates"`
		} `json:"geometry"`
	}
	fc := struct {
		Type     string    `json:"type"`
		Network  string    `json:"network"`
		Coords   string    `json:"ontime_coordinates,omitempty"`
		Features []feature `json:"features"`
	}{Type: "FeatureCollection", Network: net.Name, Features: []feature{}}
	if net.Coords != engine.CoordLonLat {
		fc.Coords = "planar drawing units, not longitude/latitude"
	}
	for _, r := range routes {
		if len(r.Links) == 0 {
			continue // no course to draw (a drive that could not start)
		}
		f := feature{Type: "Feature", Properties: map[string]any{}}
		for k, v := range r.Props {
			f.Properties[k] = v
		}
		f.Properties["name"] = r.Name
		f.Properties["links"] = engine.LinkNumbers(r.Links)
		f.Properties["nodes"] = net.PathNodes(r.Links)
		if r.Times != nil {
			f.Properties["minutes_at_nodes"] = atNodes(r.Times)
		}
		f.Geometry.Type = "LineString"
		f.Geometry.Coordinates, _ = course(net, r.Links)
		fc.Features = append(fc.Features, f)
	}
	return json.MarshalIndent(fc, "", " ")
}

// WriteRoutesGPX writes routes as GPX 1.1 tracks (one per route, one
// segment, a point per node and shape point), for a network on the globe.
// A drive's minutes at each node are its points' <time> from midnight UTC
// of 2000-01-01 (GPX times are absolute; the day means nothing).
func WriteRoutesGPX(net *engine.Network, routes []Route) ([]byte, error) {
	if net.Coords != engine.CoordLonLat {
		return nil, engine.InputError("", 0, "format", "GPX needs longitude and latitude, and %s's coordinates are not: choose geojson", net.Name)
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<gpx version="1.1" creator="ontime" xmlns="http://www.topografix.com/GPX/1/1">` + "\n")
	fmt.Fprintf(&b, "<metadata><name>%s</name></metadata>\n", xmlText(net.Name))
	ff := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, r := range routes {
		if len(r.Links) == 0 {
			continue
		}
		pts, at := course(net, r.Links)
		fmt.Fprintf(&b, "<trk><name>%s</name>", xmlText(r.Name))
		if len(r.Props) > 0 {
			desc, _ := json.Marshal(r.Props)
			fmt.Fprintf(&b, "<desc>%s</desc>", xmlText(string(desc)))
		}
		b.WriteString("<trkseg>\n")
		times := map[int]float64{} // by point: the nodes' minutes
		if r.Times != nil {
			nodes := append([]int{0}, at...) // the points that are nodes, the origin first
			for k, t := range atNodes(r.Times) {
				times[nodes[k]] = t
			}
		}
		for i, p := range pts {
			fmt.Fprintf(&b, `<trkpt lat="%s" lon="%s">`, ff(p[1]), ff(p[0]))
			if t, ok := times[i]; ok {
				fmt.Fprintf(&b, "<time>%s</time>", gpxTime(t))
			}
			b.WriteString("</trkpt>\n")
		}
		b.WriteString("</trkseg></trk>\n")
	}
	b.WriteString("</gpx>\n")
	return b.Bytes(), nil
}

// WriteRoutesCSV writes routes as a table: a row per route with its name,
// node ids and link numbers (1-based, space-separated), minutes (when a drive) and every
// property, one column each (the union of the routes' properties, sorted).
func WriteRoutesCSV(net *engine.Network, routes []Route) ([]byte, error) {
	keys := map[string]bool{}
	for _, r := range routes {
		for k := range r.Props {
			keys[k] = true
		}
	}
	var cols []string
	for k := range keys {
		cols = append(cols, k)
	}
	sort.Strings(cols)
	var b bytes.Buffer
	w := csvsafe.NewWriter(&b)
	w.Write(append([]string{"name", "nodes", "links", "minutes_on_links"}, cols...))
	for _, r := range routes {
		if len(r.Links) == 0 {
			continue
		}
		links, mins := make([]string, len(r.Links)), make([]string, len(r.Times))
		for i, e := range r.Links {
			links[i] = strconv.Itoa(e + 1)
		}
		for i, t := range r.Times {
			mins[i] = strconv.FormatFloat(t, 'g', 8, 64)
		}
		row := []string{r.Name, strings.Join(net.PathNodes(r.Links), " "), strings.Join(links, " "), strings.Join(mins, " ")}
		for _, c := range cols {
			cell := ""
			switch x := r.Props[c].(type) {
			case float64:
				cell = strconv.FormatFloat(x, 'g', 8, 64)
			case nil: // a property this route lacks
			default:
				cell = fmt.Sprint(x)
			}
			row = append(row, cell)
		}
		w.Write(row)
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

func xmlText(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// gpxEpoch is when every drive of a GPX file starts (GPX times are
// absolute; the day means nothing).
var gpxEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// gpxTime is minutes after gpxEpoch, to the millisecond, as a calendar
// time: a drive of more than a month ran on into February (the day was
// written as 1 + days: "2000-01-279T11:07:09Z", which no reader takes).
func gpxTime(minutes float64) string {
	return gpxEpoch.Add(time.Duration(math.Round(minutes*60000)) * time.Millisecond).Format("2006-01-02T15:04:05.000Z")
}

// ReadRouteCourses reads back the courses of routes written as GeoJSON or
// GPX (by its first byte), each as its list of points, for a round trip.
func ReadRouteCourses(r io.Reader, file string) ([][][2]float64, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if i := bytes.IndexAny(data, "{<"); i >= 0 && data[i] == '<' {
		var g struct {
			Tracks []struct {
				Points []struct {
					Lat float64 `xml:"lat,attr"`
					Lon float64 `xml:"lon,attr"`
				} `xml:"trkseg>trkpt"`
			} `xml:"trk"`
		}
		if err := xml.Unmarshal(data, &g); err != nil {
			return nil, engine.InputError(file, 0, "gpx", "%v", err)
		}
		var out [][][2]float64
		for _, t := range g.Tracks {
			var pts [][2]float64
			for _, p := range t.Points {
				pts = append(pts, [2]float64{p.Lon, p.Lat})
			}
			out = append(out, pts)
		}
		return out, nil
	}
	var fc struct {
		Features []struct {
			Geometry struct {
				Type        string       `json:"type"`
				Coordinates [][2]float64 `json:"coordinates"`
			} `json:"geometry"`
		} `json:"features"`
	}
	if err := json.Unmarshal(data, &fc); err != nil {
		return nil, jsonSyntaxError(file, data, err)
	}
	var out [][][2]float64
	for i, f := range fc.Features {
		if f.Geometry.Type != "LineString" {
			return nil, engine.InputError(file, jsonLine(data, "features", i), fmt.Sprintf("features[%d].geometry.type", i), "expected a LineString, got %q", f.Geometry.Type)
		}
		out = append(out, f.Geometry.Coordinates)
	}
	return out, nil
}

// MatchCourse finds the links a course drives: from the node at its first
// point, at each node the out-link whose shape and head are the next
// points. Parallel links of the same course are told apart by nothing in
// the geometry; the first is taken.
func MatchCourse(net *engine.Network, pts [][2]float64) ([]int, error) {
	if len(pts) < 2 {
		return nil, fmt.Errorf("a course needs two points, got %d", len(pts))
	}
	u := -1
	for i, nd := range net.Nodes {
		if nodeCoord(net, nd) == pts[0] {
			u = i
			break
		}
	}
	if u < 0 {
		return nil, fmt.Errorf("no node at the course's start %v", pts[0])
	}
	var links []int
	for i := 0; i < len(pts)-1; {
		next := -1
		for _, e := range net.Out(u) {
			c, _ := course(net, []int{e})
			if i+len(c) <= len(pts) && sameCourse(c, pts[i:i+len(c)]) {
				next = e
				break
			}
		}
		if next < 0 {
			return links, fmt.Errorf("no link from node %s follows the course at point %d %v", net.Nodes[u].ID, i, pts[i])
		}
		links = append(links, next)
		i += len(net.Links[next].Shape) + 1
		u = net.Links[next].To
	}
	return links, nil
}

func sameCourse(a, b [][2]float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

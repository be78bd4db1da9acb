package netfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/ontime-routing/ontime/engine"
)

// A GeoJSON network is one FeatureCollection: a Point per node (property
// node_id) and a LineString per directed link (from_node_id, to_node_id and
// GMNS's ontime_mean, ontime_sd, ontime_var in minutes), the course of the
// road as its coordinates. The field names are GMNS's, so a person who
// knows one knows the other, and the round trip through either is exact.

// geoFeature is one feature as read: properties kept raw (numbers or
// strings), coordinates decoded by geometry type.
type geoFeature struct {
	Properties map[string]any `json:"properties"`
	Geometry   *struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	} `json:"geometry"`
}

// isGeoJSONNetwork: a FeatureCollection with LineString features is a
// network; one of Points alone is a node file (TNTP's coordinates).
func isGeoJSONNetwork(f *File) bool {
	if !ends(f, ".geojson", ".json") {
		return false
	}
	head := f.Data[:min(len(f.Data), 1<<16)]
	return bytes.Contains(head, []byte(`"FeatureCollection"`)) && bytes.Contains(f.Data, []byte(`"LineString"`))
}

// readGeoJSONNetwork reads a GeoJSON network file (see above).
func readGeoJSONNetwork(r roles, o ImportOptions, rep *ImportReport) (*engine.Network, *source, error) {
	f := r.geojson
	var fc struct {
		Type     string       `json:"type"`
		Features []geoFeature `json:"features"`
	}
	if err := json.Unmarshal(f.Data, &fc); err != nil {
		return nil, nil, jsonSyntaxError(f.Name, f.Data, err)
	}
	if fc.Type != "FeatureCollection" {
		return nil, nil, engine.InputError(f.Name, jsonLine(f.Data, "type"), "type", "expected \"FeatureCollection\", got %q", fc.Type)
	}
	var probs problemList
	var coords []NodeCoord
	var links []gmnsLink
	spread := ""
	for i, ft := range fc.Features {
		line := jsonLine(f.Data, "features", i)
		bad := func(field, format string, args ...any) {
			probs.add(engine.InputError(f.Name, line, fmt.Sprintf("features[%d].%s", i, field), format, args...))
		}
		if ft.Geometry == nil {
			bad("geometry", "missing: give a Point (a node) or a LineString (a link)")
			continue
		}
		switch ft.Geometry.Type {
		case "Point":
			var c []float64
			if json.Unmarshal(ft.Geometry.Coordinates, &c) != nil || len(c) < 2 || !finite(c[0]) || !finite(c[1]) {
				bad("geometry.coordinates", "a Point needs [x, y] numbers")
				continue
			}
			id := geoString(ft.Properties, "node_id", "id")
			if id == "" {
				bad("properties.node_id", "missing node id (number or string)")
				continue
			}
			coords = append(coords, NodeCoord{Line: line, ID: id, Coord: [2]float64{c[0], c[1]}})
		case "LineString":
			var pts [][]float64
			if json.Unmarshal(ft.Geometry.Coordinates, &pts) != nil || len(pts) < 2 {
				bad("geometry.coordinates", "a LineString needs two or more [x, y] points")
				continue
			}
			l := gmnsLink{line: line, from: geoString(ft.Properties, "from_node_id"), to: geoString(ft.Properties, "to_node_id"), timeFrom: GMNSMean}
			if l.from == "" || l.to == "" {
				bad("properties.from_node_id", "a link needs from_node_id and to_node_id")
				continue
			}
			mean, ok := geoNumber(ft.Properties, GMNSMean)
			if !ok || !(mean >= 0) {
				bad("properties."+GMNSMean, "a link needs its mean time in minutes, a number ≥ 0")
				continue
			}
			l.mean = mean
			col := ""
			for _, c := range []string{GMNSVar, GMNSSD} {
				if _, has := ft.Properties[c]; has {
					col = c
					break
				}
			}
			if len(links) > 0 && col != spread {
				bad("properties", "%s: give the same spread property (%s or %s) on every link or on none", orNone(col), GMNSVar, GMNSSD)
				continue
			}
			spread = col
			if col != "" {
				v, ok := geoNumber(ft.Properties, col)
				if !ok || !(v >= 0) {
					bad("properties."+col, "a number ≥ 0")
					continue
				}
				if col == GMNSSD {
					v *= v
				}
				l.variance = v
			}
			for k, p := range pts {
				if len(p) < 2 || !finite(p[0]) || !finite(p[1]) {
					bad(fmt.Sprintf("geometry.coordinates[%d]", k), "a point needs [x, y] numbers")
					break
				}
				if k > 0 && k < len(pts)-1 {
					l.shape = append(l.shape, [2]float64{p[0], p[1]})
				}
			}
			links = append(links, l)
			if len(links) > MaxLinks {
				bad("geometry", "more than %d links: ontime takes at most %d", MaxLinks, MaxLinks)
				return nil, nil, probs.err()
			}
		default:
			bad("geometry.type", "%q: give a Point (a node) or a LineString (a link)", ft.Geometry.Type)
		}
	}
	if len(links) == 0 {
		probs.add(engine.InputError(f.Name, jsonLine(f.Data, "features"), "features", "no LineString links"))
	}
	if len(probs.list) > 0 {
		return nil, nil, probs.err()
	}
	name := baseName(f.Name)
	if name == "" {
		name = "geojson"
	}
	net, src := nodesAndLinks(name, coords, f, links, f, spread, o, rep, &probs)
	rep.note("GeoJSON: nodes from the Point features, links from the LineString features of %s", f.Name)
	if spread != "" {
		rep.note("link spread: the %s property", spread)
	}
	return net, src, probs.err()
}

func orNone(s string) string {
	if s == "" {
		return "no spread"
	}
	return s
}

// geoString reads an id property given as a number or a string.
func geoString(props map[string]any, keys ...string) string {
	for _, k := range keys {
		switch v := props[k].(type) {
		case string:
			return v
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	return ""
}

// geoNumber reads a number property given as a number or a numeric string.
func geoNumber(props map[string]any, key string) (float64, bool) {
	switch v := props[key].(type) {
	case float64:
		return v, true
	case string:
		x, err := strconv.ParseFloat(v, 64)
		return x, err == nil && finite(x)
	}
	return 0, false
}

// WriteGeoJSON writes net as a GeoJSON network (see above): nodes first,
// then links in their order (link_id = index + 1), each link's course from
// its tail through its shape to its head. A network without longitude and
// latitude says so in the collection's ontime_coordinates member.
func WriteGeoJSON(net *engine.Network) ([]byte, error) {
	type geometry struct {
		Type        string `json:"type"`
		Coordinates any    `json:"coordinates"`
	}
	type feature struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Geometry   geometry       `json:"geometry"`
	}
	fc := struct {
		Type     string    `json:"type"`
		Name     string    `json:"name"`
		Coords   string    `json:"ontime_coordinates,omitempty"`
		Features []feature `json:"features"`
	}{Type: "FeatureCollection", Name: net.Name}
	if net.Coords != engine.CoordLonLat {
		fc.Coords = "planar drawing units, not longitude/latitude (" + string(net.Coords) + ")"
		if net.Coords == "" {
			fc.Coords = "planar drawing units, not longitude/latitude"
		}
	}
	for _, nd := range net.Nodes {
		c := nodeCoord(net, nd)
		fc.Features = append(fc.Features, feature{Type: "Feature", Properties: map[string]any{"node_id": nd.ID}, Geometry: geometry{"Point", c}})
	}
	for e, l := range net.Links {
		course := append(append([][2]float64{nodeCoord(net, net.Nodes[l.From])}, l.Shape...), nodeCoord(net, net.Nodes[l.To]))
		props := map[string]any{"link_id": e + 1, "from_node_id": net.Nodes[l.From].ID, "to_node_id": net.Nodes[l.To].ID,
			GMNSMean: l.Mean, GMNSSD: l.SD(), GMNSVar: l.Var}
		fc.Features = append(fc.Features, feature{Type: "Feature", Properties: props, Geometry: geometry{"LineString", course}})
	}
	return json.MarshalIndent(fc, "", " ")
}

package netfile

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/ontime-routing/ontime/engine"
)

type geoFeatureCollection struct {
	Type     string `json:"type"`
	Features []struct {
		Properties map[string]any `json:"properties"`
		Geometry   *struct {
			Type        string    `json:"type"`
			Coordinates []float64 `json:"coordinates"`
		} `json:"geometry"`
	} `json:"features"`
}

// ReadGeoJSONNodes reads node points from a GeoJSON FeatureCollection: each
// feature a Point whose properties.id (number or string) is the node id.
// Coordinates are [lon, lat] in WGS84, the RFC 7946 default.
func ReadGeoJSONNodes(r io.Reader, file string) ([]NodeCoord, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &engine.Error{Code: engine.EINVALID, File: file, Message: err.Error(), Err: err}
	}
	var fc geoFeatureCollection
	if err := json.Unmarshal(data, &fc); err != nil {
		return nil, jsonSyntaxError(file, data, err)
	}
	if fc.Type != "FeatureCollection" {
		return nil, engine.InputError(file, jsonLine(data, "type"), "type", "expected \"FeatureCollection\", got %q", fc.Type)
	}
	nodes := make([]NodeCoord, 0, len(fc.Features))
	for i, f := range fc.Features {
		field := fmt.Sprintf("features[%d]", i)
		if f.Geometry == nil || f.Geometry.Type != "Point" || len(f.Geometry.Coordinates) < 2 {
			return nil, engine.InputError(file, jsonLine(data, "features", i), field+".geometry", "expected a Point with [lon, lat] coordinates")
		}
		var id string
		switch v := f.Properties["id"].(type) {
		case float64:
			id = strconv.FormatFloat(v, 'f', -1, 64)
		case string:
			id = v
		default:
			return nil, engine.InputError(file, jsonLine(data, "features", i), field+".properties.id", "missing node id (number or string)")
		}
		nodes = append(nodes, NodeCoord{ID: id, Coord: [2]float64{f.Geometry.Coordinates[0], f.Geometry.Coordinates[1]}})
	}
	if len(nodes) == 0 {
		return nil, engine.InputError(file, 0, "features", "no node points")
	}
	return nodes, nil
}

package netfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	gojson "github.com/goccy/go-json"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/fit"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// FormatName and FormatVersion identify ontime's own network format.
const (
	FormatName    = "ontime-network"
	FormatVersion = 1
)

// jsonNetwork is version 1 of ontime's network format. Numbers are written in
// Go's shortest round-trip form, so read → write → read is exact.
type jsonNetwork struct {
	Format      string          `json:"format"`
	Version     int             `json:"version"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Coordinates string          `json:"coordinates,omitempty"` // "planar", "lonlat" or absent
	Nodes       []jsonNode      `json:"nodes"`
	Links       []jsonLink      `json:"links"`
	Correlation jsonCorrelation `json:"correlation"`
	// Law is the link-time law (absent: the paper's Gaussian floored at
	// 0.1 min); TimeUnit the source's unit (times here are in minutes).
	Law      string   `json:"law,omitempty"`
	TimeUnit string   `json:"time_unit,omitempty"`
	ODs      []string `json:"ods,omitempty"`
	StepCap  int      `json:"step_cap,omitempty"`
	Zones    []string `json:"zones,omitempty"` // ids of zone centroids (trip ends)
	// Demand is the trips between node pairs, when a demand table came
	// with the network.
	Demand []jsonDemand `json:"demand,omitempty"`
	// Clock is the law over the day (absent: the same law at every hour).
	Clock *engine.Clock `json:"clock,omitempty"`
}

type jsonDemand struct {
	OD    string  `json:"od"` // ORIGIN-DEST by node ids
	Trips float64 `json:"trips"`
}

type jsonNode struct {
	ID string  `json:"id"`
	X  float64 `json:"x"` // planar x or longitude
	Y  float64 `json:"y"` // planar y or latitude
}

type jsonLink struct {
	From     string  `json:"from"`
	To       string  `json:"to"`
	Mean     float64 `json:"mean"`     // minutes
	Variance float64 `json:"variance"` // minutes²
	// Shape is the drawn course between the ends, in the nodes' coordinates.
	Shape [][2]float64 `json:"shape,omitempty"`
	// Fit is the marginal fitted from observed times (the fitted law).
	Fit *engine.LinkFit `json:"fit,omitempty"`
}

type jsonCorrelation struct {
	Model      string      `json:"model"` // independent | random-psd | spatial | spatial-factor | explicit
	Seed       uint64      `json:"seed,omitempty"`
	Strength   float64     `json:"strength,omitempty"`
	Length     float64     `json:"length,omitempty"`
	Factors    int         `json:"factors,omitempty"`
	Covariance [][]float64 `json:"covariance,omitempty"`
	Loadings   [][]float64 `json:"loadings,omitempty"` // fitted-factor: links × K
}

// WriteJSON writes net in ontime's network format.
func WriteJSON(w io.Writer, net *engine.Network) error {
	jn := jsonNetwork{Format: FormatName, Version: FormatVersion, Name: net.Name, Description: net.Description,
		Coordinates: string(net.Coords), StepCap: net.StepCap, Zones: net.Zones, Law: writtenLaw(net.Law), TimeUnit: net.TimeUnit,
		Correlation: jsonCorrelation{Model: net.Correlation.Model, Seed: net.Correlation.Seed,
			Strength: net.Correlation.Strength, Length: net.Correlation.Length, Factors: net.Correlation.Factors, Covariance: net.Correlation.Covariance,
			Loadings: net.Correlation.Loadings}, Clock: net.Clock}
	for _, n := range net.Nodes {
		jn.Nodes = append(jn.Nodes, jsonNode{n.ID, n.Coord[0], n.Coord[1]})
	}
	for _, l := range net.Links {
		jn.Links = append(jn.Links, jsonLink{net.Nodes[l.From].ID, net.Nodes[l.To].ID, l.Mean, l.Var, l.Shape, l.Fit})
	}
	for _, od := range net.ODs {
		jn.ODs = append(jn.ODs, net.ODString(od))
	}
	for _, d := range net.Demand {
		jn.Demand = append(jn.Demand, jsonDemand{net.ODString(d.OD), d.Trips})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(jn)
}

// writtenLaw is the law a file states: always named, so that a network read
// back (or imported elsewhere) keeps it ("" is the paper's law).
func writtenLaw(name string) string {
	if name == "" {
		return linktime.PaperLaw
	}
	return name
}

// ReadJSON reads a network in ontime's format and validates it; errors name
// the file, line and field.
func ReadJSON(r io.Reader, file string) (*engine.Network, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &engine.Error{Code: engine.EINVALID, File: file, Message: err.Error(), Err: err}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var jn jsonNetwork
	if err := dec.Decode(&jn); err != nil {
		return nil, jsonSyntaxError(file, data, err)
	}
	return fromJSON(&jn, data, file)
}

// ReadStored reads a network ontime wrote itself (the state directory's
// copy of a saved network) and validates it as ReadJSON does. Its decoder
// is goccy/go-json's, three times faster: a 249,000-link network took 0.7
// to 1 s to decode with encoding/json, most of its map's first paint after
// a restart. Files from users go through ReadJSON alone; a stored copy that
// this decoder refuses is read again by ReadJSON, whose errors name the
// line.
func ReadStored(data []byte, file string) (*engine.Network, error) {
	var jn jsonNetwork
	dec := gojson.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if dec.Decode(&jn) != nil {
		return ReadJSON(bytes.NewReader(data), file)
	}
	return fromJSON(&jn, data, file)
}

// fromJSON checks a decoded network and builds it; data is the file's text,
// for the line an error names.
func fromJSON(jn *jsonNetwork, data []byte, file string) (*engine.Network, error) {
	bad := func(field string, path []any, format string, args ...any) error {
		return engine.InputError(file, jsonLine(data, path...), field, format, args...)
	}
	if jn.Format != FormatName {
		return nil, bad("format", []any{"format"}, "expected %q, got %q", FormatName, jn.Format)
	}
	if jn.Version != FormatVersion {
		return nil, bad("version", []any{"version"}, "version %d is not supported (this ontime reads version %d)", jn.Version, FormatVersion)
	}
	net := &engine.Network{Name: jn.Name, Description: jn.Description, StepCap: jn.StepCap, Zones: jn.Zones, Law: jn.Law, TimeUnit: jn.TimeUnit}
	if _, err := linktime.LawByName(jn.Law); err != nil {
		return nil, bad("law", []any{"law"}, "%s", engine.ErrorMessage(err))
	}
	switch engine.CoordKind(jn.Coordinates) {
	case engine.CoordNone, engine.CoordPlanar, engine.CoordLonLat, engine.CoordLayout:
		net.Coords = engine.CoordKind(jn.Coordinates)
	default:
		return nil, bad("coordinates", []any{"coordinates"}, "expected \"planar\" or \"lonlat\", got %q", jn.Coordinates)
	}
	if len(jn.Nodes) == 0 {
		return nil, bad("nodes", []any{"nodes"}, "no nodes")
	}
	seen := make(map[string]bool, len(jn.Nodes))
	// Sized up front: a stored city's 250,000 links grew their slice a
	// dozen times, a tenth of the time its page waited for it.
	net.Nodes = make([]engine.Node, 0, len(jn.Nodes))
	net.Links = make([]engine.Link, 0, len(jn.Links))
	for i, n := range jn.Nodes {
		if n.ID == "" {
			return nil, bad(fmt.Sprintf("nodes[%d].id", i), []any{"nodes", i}, "empty node id")
		}
		if seen[n.ID] {
			return nil, bad(fmt.Sprintf("nodes[%d].id", i), []any{"nodes", i}, "duplicate node id %q", n.ID)
		}
		seen[n.ID] = true
		net.Nodes = append(net.Nodes, engine.Node{ID: n.ID, Coord: [2]float64{n.X, n.Y}})
	}
	net.Index()
	// badLink names a link's field only when there is an error to report.
	badLink := func(i int, field, format string, args ...any) error {
		return bad(fmt.Sprintf("links[%d]%s", i, field), []any{"links", i}, format, args...)
	}
	for i, l := range jn.Links {
		from, ok := net.NodeIndex(l.From)
		if !ok {
			return nil, badLink(i, ".from", "unknown node %q", l.From)
		}
		to, ok := net.NodeIndex(l.To)
		if !ok {
			return nil, badLink(i, ".to", "unknown node %q", l.To)
		}
		if !(l.Mean > 0) {
			return nil, badLink(i, ".mean", "mean %v must be positive", l.Mean)
		}
		if !(l.Variance >= 0) {
			return nil, badLink(i, ".variance", "variance %v must be ≥ 0", l.Variance)
		}
		for k, p := range l.Shape {
			if !finite(p[0]) || !finite(p[1]) {
				return nil, badLink(i, fmt.Sprintf(".shape[%d]", k), "point %v is not a pair of finite numbers", p)
			}
		}
		if err := checkFit(l.Fit); err != "" {
			return nil, badLink(i, ".fit", "%s", err)
		}
		net.Links = append(net.Links, engine.Link{From: from, To: to, Mean: l.Mean, Var: l.Variance, Shape: l.Shape, Fit: l.Fit})
	}
	net.Index()
	c := jn.Correlation
	net.Correlation = engine.Correlation{Model: c.Model, Seed: c.Seed, Strength: c.Strength, Length: c.Length, Factors: c.Factors, Covariance: c.Covariance,
		Loadings: c.Loadings}
	if err := checkCorrelation(net, func(field string, path []any, format string, args ...any) error {
		return bad("correlation"+field, append([]any{"correlation"}, path...), format, args...)
	}); err != nil {
		return nil, err
	}
	if len(jn.ODs) > MaxODPairs {
		return nil, bad("ods", []any{"ods"}, "%d OD pairs: a network takes at most %d", len(jn.ODs), MaxODPairs)
	}
	for i, s := range jn.ODs {
		od, err := net.ParseOD(s)
		if err != nil {
			return nil, bad(fmt.Sprintf("ods[%d]", i), []any{"ods", i}, "%s", engine.ErrorMessage(err))
		}
		net.ODs = append(net.ODs, od)
	}
	for i, d := range jn.Demand {
		od, err := net.ParseOD(d.OD)
		if err == nil && (!(d.Trips > 0) || math.IsInf(d.Trips, 0)) {
			err = fmt.Errorf("trips %v: give a positive number", d.Trips)
		}
		if err != nil {
			return nil, bad(fmt.Sprintf("demand[%d]", i), []any{"demand", i}, "%s", engine.ErrorMessage(err))
		}
		net.Demand = append(net.Demand, engine.Demand{OD: od, Trips: d.Trips})
	}
	for i, z := range jn.Zones {
		if _, ok := net.NodeIndex(z); !ok {
			return nil, bad(fmt.Sprintf("zones[%d]", i), []any{"zones", i}, "zone %q is not a node", z)
		}
	}
	if jn.StepCap < 0 {
		return nil, bad("step_cap", []any{"step_cap"}, "must be ≥ 0")
	}
	if jn.Clock != nil {
		if err := jn.Clock.Validate(len(net.Links)); err != nil {
			return nil, bad("clock", []any{"clock"}, "%s", strings.TrimPrefix(engine.ErrorMessage(err), "clock: "))
		}
		net.Clock = jn.Clock
	}
	net.Project()
	return net, nil
}

func checkCorrelation(net *engine.Network, bad func(field string, path []any, format string, args ...any) error) error {
	c := net.Correlation
	cm, known := linktime.LookupCorrModel(c.Model)
	switch {
	case !known || c.Model == "":
		return bad(".model", []any{"model"}, "unknown model %q (%s)", c.Model, linktime.CorrModelNames(linktime.CorrModels()))
	case cm.Spatial:
		if c.Strength < 0 || c.Strength > 1 {
			return bad(".strength", []any{"strength"}, "must be in [0, 1], got %v", c.Strength)
		}
		if !(c.Length > 0) {
			return bad(".length", []any{"length"}, "must be positive, got %v", c.Length)
		}
		if c.Factors < 0 || c.Factors > linktime.MaxFactors {
			return bad(".factors", []any{"factors"}, "must be 1 to %d (0 or absent: %d), got %d", linktime.MaxFactors, linktime.DefaultFactors, c.Factors)
		}
	case c.Model == linktime.FittedFactor:
		if len(c.Loadings) != len(net.Links) {
			return bad(".loadings", []any{"loadings"}, "need %d rows (one per link), got %d", len(net.Links), len(c.Loadings))
		}
		for i, row := range c.Loadings {
			if msg := linktime.CheckLoadings(row, len(c.Loadings[0])); msg != "" {
				return bad(fmt.Sprintf(".loadings[%d]", i), []any{"loadings", i}, "%s", msg)
			}
		}
	case c.Model == linktime.Explicit:
		n := len(net.Links)
		if len(c.Covariance) != n {
			return bad(".covariance", []any{"covariance"}, "need %d rows (one per link), got %d", n, len(c.Covariance))
		}
		for i, row := range c.Covariance {
			if len(row) != n {
				return bad(fmt.Sprintf(".covariance[%d]", i), []any{"covariance", i}, "need %d entries, got %d", n, len(row))
			}
			for j, v := range row {
				if math.Abs(v-c.Covariance[j][i]) > 1e-12*(1+math.Abs(v)) {
					return bad(fmt.Sprintf(".covariance[%d][%d]", i, j), []any{"covariance", i}, "matrix is not symmetric: %v vs [%d][%d] = %v", v, j, i, c.Covariance[j][i])
				}
			}
			if v := net.Links[i].Var; math.Abs(row[i]-v) > 1e-9*(1+v) {
				return bad(fmt.Sprintf(".covariance[%d][%d]", i, i), []any{"covariance", i}, "diagonal %v differs from links[%d].variance %v", row[i], i, v)
			}
		}
	}
	return nil
}

// checkFit says what is wrong with a link's fitted marginal ("" if nothing).
func checkFit(f *engine.LinkFit) string {
	if f == nil {
		return ""
	}
	if !slices.Contains(fit.FamilyNames(), f.Family) {
		return fmt.Sprintf("unknown family %q (%s)", f.Family, strings.Join(fit.FamilyNames(), ", "))
	}
	if len(f.LogTime) == 0 {
		return ""
	}
	if len(f.LogTime) != len(linktime.ZGrid) {
		return fmt.Sprintf("log_time needs %d values (one per grid point), got %d", len(linktime.ZGrid), len(f.LogTime))
	}
	for k, v := range f.LogTime {
		if !finite(v) || k > 0 && !(v > f.LogTime[k-1]) {
			return fmt.Sprintf("log_time[%d] = %v: the values must be finite and increasing", k, v)
		}
	}
	return ""
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

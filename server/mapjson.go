package server

import (
	"math"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
)

// mapLayout is one form of a network's map JSON (/api/networks/NAME
// ?layout=NAME): every form carries the same numbers.
type mapLayout struct {
	Name    string
	Summary string
	build   func(*engine.Network) any
}

// mapLayouts: objects is the API's documented form; columns is what the
// dashboard's maps ask for: at 249,000 links its JSON is a third of the
// size and the browser parses it several times faster (no object per
// link), which is most of a city map's first paint.
var mapLayouts = []mapLayout{
	{Name: "objects", Summary: "an object per node and per link", build: func(net *engine.Network) any { return mapJSON(net) }},
	{Name: "columns", Summary: "an array per field of the nodes and of the links", build: func(net *engine.Network) any { return columnsOf(mapJSON(net)) }},
}

// pagesLayout is the layout the pages' maps preload (web.MapURL).
var pagesLayout = func() mapLayout {
	l, err := mapLayoutByName("columns")
	if err != nil {
		panic(err)
	}
	return l
}()

// mapLayoutByName finds a layout; "" is the first.
func mapLayoutByName(name string) (mapLayout, error) {
	if name == "" {
		return mapLayouts[0], nil
	}
	var names []string
	for _, l := range mapLayouts {
		if l.Name == name {
			return l, nil
		}
		names = append(names, l.Name)
	}
	return mapLayout{}, engine.Errorf(engine.EINVALID, "layout %q: the map JSON comes as %s", name, strings.Join(names, " or "))
}

// networkJSON is what the map draws.
type networkJSON struct {
	Name   string     `json:"name"`
	Coords string     `json:"coords"`
	Nodes  []nodeJSON `json:"nodes"`
	Links  []linkJSON `json:"links"`
	ODs    []odJSON   `json:"ods"`
	// Frame, for a lon/lat network, maps the drawing frame back to
	// longitude/latitude (engine.LocalFrame): maps on a tile server's tiles
	// draw in those.
	Frame *frameJSON `json:"frame,omitempty"`
}

type frameJSON struct {
	Lon0            float64 `json:"lon0"`
	Lat0            float64 `json:"lat0"`
	MetresPerDegree float64 `json:"metres_per_degree"`
	CosLat0         float64 `json:"cos_lat0"`
}

type nodeJSON struct {
	ID string  `json:"id"`
	X  float64 `json:"x"`
	Y  float64 `json:"y"`
}

type linkJSON struct {
	ID   int     `json:"id"` // the link's index (ONNX models' link id)
	From int     `json:"from"`
	To   int     `json:"to"`
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	// Shape is the road's course between its ends in the drawing frame
	// (OpenStreetMap, GMNS geometry); absent: a straight line.
	Shape [][2]float64 `json:"shape,omitempty"`
}

type odJSON struct {
	Name        string  `json:"name"`
	Origin      string  `json:"origin"`
	Destination string  `json:"destination"`
	LETTime     float64 `json:"let_time"`
	LETPath     []int   `json:"let_path"`
}

// columnsJSON is networkJSON with one array per field: node i is
// (nodes.id[i], nodes.x[i], nodes.y[i]), link i (its id) runs from
// links.from[i] to links.to[i], and its course's bends are the points
// shape[2k], shape[2k+1] for k in [shape_at[i], shape_at[i+1]) (no
// shape_at: every link straight).
type columnsJSON struct {
	Name   string      `json:"name"`
	Coords string      `json:"coords"`
	Layout string      `json:"layout"`
	Nodes  nodeColumns `json:"nodes"`
	Links  linkColumns `json:"links"`
	ODs    []odJSON    `json:"ods"`
	Frame  *frameJSON  `json:"frame,omitempty"`
}

type nodeColumns struct {
	ID []string  `json:"id"`
	X  []float64 `json:"x"`
	Y  []float64 `json:"y"`
}

type linkColumns struct {
	From    []int     `json:"from"`
	To      []int     `json:"to"`
	Mean    []float64 `json:"mean"`
	SD      []float64 `json:"sd"`
	ShapeAt []int     `json:"shape_at,omitempty"`
	Shape   []float64 `json:"shape,omitempty"`
}

// columnsOf is the objects form laid out by columns (web/src/map.js's
// fromColumns reads it back).
func columnsOf(m networkJSON) columnsJSON {
	n, l := len(m.Nodes), len(m.Links)
	out := columnsJSON{Name: m.Name, Coords: m.Coords, Layout: "columns", ODs: m.ODs, Frame: m.Frame,
		Nodes: nodeColumns{ID: make([]string, n), X: make([]float64, n), Y: make([]float64, n)},
		Links: linkColumns{From: make([]int, l), To: make([]int, l), Mean: make([]float64, l), SD: make([]float64, l),
			ShapeAt: make([]int, l+1)}}
	for i, nd := range m.Nodes {
		out.Nodes.ID[i], out.Nodes.X[i], out.Nodes.Y[i] = nd.ID, nd.X, nd.Y
	}
	for i, lj := range m.Links {
		c := &out.Links
		c.From[i], c.To[i], c.Mean[i], c.SD[i] = lj.From, lj.To, lj.Mean, lj.SD
		for _, p := range lj.Shape {
			c.Shape = append(c.Shape, p[0], p[1])
		}
		c.ShapeAt[i+1] = len(c.Shape) / 2
	}
	if len(out.Links.Shape) == 0 {
		out.Links.ShapeAt = nil
	}
	return out
}

// mapJSON is what the map draws of a network.
func mapJSON(net *engine.Network) networkJSON {
	out := networkJSON{Name: net.Name, Coords: string(net.Coords)}
	if f, ok := net.LocalFrame(); ok {
		out.Frame = &frameJSON{Lon0: f.Lon0, Lat0: f.Lat0, MetresPerDegree: f.MetresPerDegree, CosLat0: f.CosLat0}
	}
	to, snap := net.Projection(), drawingSnap(net)
	for _, nd := range net.Nodes {
		out.Nodes = append(out.Nodes, nodeJSON{ID: nd.ID, X: nd.X, Y: nd.Y}) // exact: the frame maps them back (TestMapFrameInvertsTheProjection)
	}
	for i, l := range net.Links {
		lj := linkJSON{ID: i, From: l.From, To: l.To, Mean: sig4(l.Mean), SD: sig4(l.SD())}
		for _, p := range l.Shape {
			q := to(p)
			lj.Shape = append(lj.Shape, [2]float64{snap(q[0]), snap(q[1])})
		}
		out.Links = append(out.Links, lj)
	}
	for _, od := range lab.ODRoutes(net) {
		out.ODs = append(out.ODs, odJSON{Name: od.Name, Origin: od.Origin, Destination: od.Destination, LETTime: od.LETTime, LETPath: od.LETPath})
	}
	return out
}

// drawingSnap rounds a drawing-frame coordinate to the drawing unit, and
// writes a fractional unit's multiples as k / 10ⁿ (k · 0.1 is
// 3700.7000000000003 where k / 10 is 3700.7).
func drawingSnap(net *engine.Network) func(float64) float64 {
	unit := drawingUnit(net)
	if unit >= 1 {
		return func(v float64) float64 { return math.Round(v/unit) * unit }
	}
	per := math.Round(1 / unit)
	return func(v float64) float64 { return math.Round(v*per) / per }
}

// drawingUnit is what shape points are rounded to: a millionth of the
// network's extent (a decimetre across a state), so that a city's shapes
// do not double its map JSON with digits no screen shows.
func drawingUnit(net *engine.Network) float64 {
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, nd := range net.Nodes {
		lo = [2]float64{math.Min(lo[0], nd.X), math.Min(lo[1], nd.Y)}
		hi = [2]float64{math.Max(hi[0], nd.X), math.Max(hi[1], nd.Y)}
	}
	if ext := math.Max(hi[0]-lo[0], hi[1]-lo[1]); ext > 0 && !math.IsInf(ext, 0) {
		return math.Pow(10, math.Floor(math.Log10(ext*1e-6)))
	}
	return 1e-6
}

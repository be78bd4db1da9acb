package netfile

import (
	"bytes"
	"compress/bzip2"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/paulmach/osm"
	"github.com/paulmach/osm/osmpbf"
	"github.com/paulmach/osm/osmxml"

	"github.com/ontime-routing/ontime/engine"
)

// OpenStreetMap extracts (.osm.pbf, .osm, .osm.bz2) are read with
// paulmach/osm: the drivable ways become a directed road graph (see
// roads.go), link time = length / speed.

// DefaultHighways are the highway classes kept by default: the roads a car
// drives through a city. Service roads (parking aisles, driveways) and
// tracks are left out; OSMOptions.Highways changes the set.
var DefaultHighways = []string{
	"motorway", "motorway_link", "trunk", "trunk_link", "primary", "primary_link",
	"secondary", "secondary_link", "tertiary", "tertiary_link", "unclassified", "residential", "living_street",
}

// DefaultSpeeds are the speeds (km/h) assumed per highway class where a
// way's maxspeed is missing or does not parse: typical urban and rural
// limits, stated in the import report.
var DefaultSpeeds = map[string]float64{
	"motorway": 100, "motorway_link": 60, "trunk": 80, "trunk_link": 50, "primary": 60, "primary_link": 45,
	"secondary": 50, "secondary_link": 40, "tertiary": 40, "tertiary_link": 35, "unclassified": 35,
	"residential": 30, "living_street": 10, "service": 20, "road": 40, "track": 15,
}

// osmSpeedDefault is the speed of a kept class with no stated default.
const osmSpeedDefault = 30

// MaxOSMBytes bounds an extract after decompression (a .bz2 expands about
// 15×): a file that would grow past it is refused rather than read.
const MaxOSMBytes = 1 << 30

// maxOSMNodes bounds the OSM nodes an extract may hold (each is kept in
// memory with its coordinates while the ways are read).
const maxOSMNodes = 30_000_000

// isOSM says whether a file name is an OpenStreetMap extract.
func isOSM(name string) bool {
	l := strings.ToLower(name)
	return strings.HasSuffix(l, ".pbf") || strings.HasSuffix(l, ".osm") || strings.HasSuffix(l, ".osm.bz2")
}

// osmWay is a drivable way as read: its nodes, class, speed and direction.
type osmWay struct {
	id       osm.WayID
	nodes    []osm.NodeID
	class    string
	kmh      float64
	speedSet bool // from maxspeed (else the class default)
	forward  bool // drivable from first node to last
	backward bool // and from last to first
}

// osmExtract is what an extract holds for routing.
type osmExtract struct {
	coords map[osm.NodeID][2]float64 // lon, lat of every node read
	ways   []osmWay
	seen   map[string]int // ways per highway class read (kept or not)
	// dropped counts ways left out by reason (access, reversible, area).
	dropped map[string]int
}

// readOSM reads the drivable ways of an extract and every node's
// coordinates. keep is the set of highway classes kept.
func readOSM(f *File, keep map[string]bool) (*osmExtract, error) {
	lower := strings.ToLower(f.Name)
	var r io.Reader = bytes.NewReader(f.Data)
	type scanner interface {
		Scan() bool
		Object() osm.Object
		Err() error
		Close() error
	}
	var sc scanner
	ctx := context.Background()
	switch {
	case strings.HasSuffix(lower, ".pbf"):
		s := osmpbf.New(ctx, r, max(1, runtime.GOMAXPROCS(0)))
		s.SkipRelations = true
		sc = s
	case strings.HasSuffix(lower, ".bz2"):
		sc = osmxml.New(ctx, &boundedReader{r: bzip2.NewReader(r), left: MaxOSMBytes, file: f.Name})
	default:
		sc = osmxml.New(ctx, r)
	}
	defer sc.Close()
	x := &osmExtract{coords: map[osm.NodeID][2]float64{}, seen: map[string]int{}, dropped: map[string]int{}}
	for sc.Scan() {
		switch o := sc.Object().(type) {
		case *osm.Node:
			if len(x.coords) >= maxOSMNodes {
				return nil, engine.InputError(f.Name, 0, "node", "more than %d nodes: cut a smaller extract (osmium extract)", maxOSMNodes)
			}
			x.coords[o.ID] = [2]float64{o.Lon, o.Lat}
		case *osm.Way:
			if w, ok := x.way(o, keep); ok {
				x.ways = append(x.ways, w)
			}
		}
	}
	if err := sc.Err(); err != nil {
		var be *boundError
		if errors.As(err, &be) {
			return nil, be.err
		}
		return nil, engine.InputError(f.Name, 0, "", "not a readable OpenStreetMap extract (%v): a truncated or damaged file?", err)
	}
	if len(x.coords) == 0 && len(x.ways) == 0 {
		return nil, engine.InputError(f.Name, 0, "", "no OpenStreetMap nodes or ways: is it an OSM extract (.osm.pbf, .osm, .osm.bz2)?")
	}
	return x, nil
}

// way keeps o when it is a drivable road of a kept class, with its speed
// and direction.
func (x *osmExtract) way(o *osm.Way, keep map[string]bool) (osmWay, bool) {
	class := o.Tags.Find("highway")
	if class == "" {
		return osmWay{}, false
	}
	x.seen[class]++
	if !keep[class] || len(o.Nodes) < 2 {
		return osmWay{}, false
	}
	if o.Tags.Find("area") == "yes" {
		x.dropped["area=yes"]++
		return osmWay{}, false
	}
	access := o.Tags.Find("motor_vehicle")
	if access == "" {
		access = o.Tags.Find("motorcar")
	}
	if access == "" {
		access = o.Tags.Find("access")
	}
	if access == "no" || access == "private" {
		x.dropped["no access for cars (access, motor_vehicle or motorcar no/private)"]++
		return osmWay{}, false
	}
	w := osmWay{id: o.ID, class: class, forward: true, backward: true}
	switch ow := o.Tags.Find("oneway"); ow {
	case "yes", "true", "1":
		w.backward = false
	case "-1", "reverse":
		w.forward = false
	case "reversible", "alternating":
		x.dropped["oneway=reversible or alternating (direction changes by time of day)"]++
		return osmWay{}, false
	case "no", "false", "0":
	default:
		j := o.Tags.Find("junction")
		if j == "roundabout" || j == "circular" || class == "motorway" {
			w.backward = false // implied one-way (OSM's convention)
		}
	}
	w.kmh, w.speedSet = parseMaxSpeed(o.Tags.Find("maxspeed"))
	if !w.speedSet {
		w.kmh = DefaultSpeeds[class]
		if w.kmh == 0 {
			w.kmh = osmSpeedDefault
		}
	}
	w.nodes = make([]osm.NodeID, len(o.Nodes))
	for i, n := range o.Nodes {
		w.nodes[i] = n.ID
	}
	return w, true
}

// parseMaxSpeed reads an OSM maxspeed: a number of km/h, or with " mph";
// the first of several ("50;30"). Anything else (none, signals, walk, a
// country code) does not parse and the class default is used.
func parseMaxSpeed(s string) (kmh float64, ok bool) {
	s, _, _ = strings.Cut(strings.TrimSpace(s), ";")
	unit := 1.0
	switch {
	case strings.HasSuffix(s, "mph"):
		unit, s = 1.609344, strings.TrimSuffix(s, "mph")
	case strings.HasSuffix(s, "km/h"):
		s = strings.TrimSuffix(s, "km/h")
	case strings.HasSuffix(s, "kmh"):
		s = strings.TrimSuffix(s, "kmh")
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v > 0 && v < 400) {
		return 0, false
	}
	return v * unit, true
}

// boundedReader stops a decompression past its byte budget.
type boundedReader struct {
	r    io.Reader
	left int64
	file string
}

type boundError struct{ err error }

func (e *boundError) Error() string { return e.err.Error() }

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, &boundError{engine.InputError(b.file, 0, "", "expands to more than %d MB: cut a smaller extract", MaxOSMBytes>>20)}
	}
	p = p[:min(int64(len(p)), b.left)]
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err // a damaged stream: readOSM names the file
}

// highwaySet reads a list of highway classes ("" or none: the default).
func highwaySet(list []string) (map[string]bool, []string) {
	if len(list) == 0 {
		list = DefaultHighways
	}
	keep := map[string]bool{}
	var names []string
	for _, h := range list {
		if h = strings.TrimSpace(h); h != "" && !keep[h] {
			keep[h] = true
			names = append(names, h)
		}
	}
	return keep, names
}

// speedNote states the default speeds of the classes kept.
func speedNote(classes []string) string {
	var parts []string
	for _, c := range classes {
		v := DefaultSpeeds[c]
		if v == 0 {
			v = osmSpeedDefault
		}
		parts = append(parts, fmt.Sprintf("%s %g", c, v))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

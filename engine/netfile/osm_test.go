package netfile_test

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// A small town drawn by hand: 1–2–3 a two-way street through 2 (a node
// that only passes traffic: merged), 3→4 one way, 5→4 drawn but
// oneway=-1 (driven 4→5), 5–1 two-way at 20 mph, a footway 3–6 (not a
// road) and a one-way spur 3→6 (a dead end: outside the strong component).
const townOSM = `<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6">
 <node id="1" lat="0" lon="0"/><node id="2" lat="0" lon="0.001"/><node id="3" lat="0" lon="0.002"/>
 <node id="4" lat="0.001" lon="0.002"/><node id="5" lat="0.001" lon="0.001"/><node id="6" lat="0" lon="0.003"/>
 <way id="11"><nd ref="1"/><nd ref="2"/><nd ref="3"/><tag k="highway" v="residential"/></way>
 <way id="12"><nd ref="3"/><nd ref="4"/><tag k="highway" v="residential"/><tag k="oneway" v="yes"/></way>
 <way id="13"><nd ref="5"/><nd ref="4"/><tag k="highway" v="residential"/><tag k="oneway" v="-1"/></way>
 <way id="14"><nd ref="5"/><nd ref="1"/><tag k="highway" v="residential"/><tag k="maxspeed" v="20 mph"/></way>
 <way id="15"><nd ref="3"/><nd ref="6"/><tag k="highway" v="footway"/></way>
 <way id="16"><nd ref="3"/><nd ref="6"/><tag k="highway" v="residential"/><tag k="oneway" v="yes"/></way>
</osm>`

func TestOSMTownOneWaysComponentAndChains(t *testing.T) {
	net, rep, err := netfile.Import([]netfile.File{{Name: "town.osm", Data: []byte(townOSM)}}, netfile.ImportOptions{ODs: []string{"1-5"}})
	if err != nil {
		t.Fatal(err)
	}
	deg := 2 * math.Pi * 6_371_008.8 / 360 // metres in a degree on the equator
	perMin := func(kmh float64) float64 { return kmh * 1000 / 60 }
	want := map[string]float64{ // minutes
		"1-3": 2 * 0.001 * deg / perMin(30), "3-1": 2 * 0.001 * deg / perMin(30),
		"3-5": 2 * 0.001 * deg / perMin(30), // 3→4→5, merged through 4
		"5-1": math.Sqrt2 * 0.001 * deg / perMin(20*1.609344), "1-5": math.Sqrt2 * 0.001 * deg / perMin(20*1.609344),
	}
	got := map[string]float64{}
	for _, l := range net.Links {
		got[net.Nodes[l.From].ID+"-"+net.Nodes[l.To].ID] = l.Mean
	}
	if len(got) != len(want) || len(net.Nodes) != 3 {
		t.Fatalf("links %v (%d nodes), want %v", got, len(net.Nodes), want)
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || math.Abs(g-w) > 1e-6*w {
			t.Errorf("link %s: %.6f min, want %.6f", k, g, w)
		}
	}
	if net.Coords != engine.CoordLonLat {
		t.Errorf("coordinates %v", net.Coords)
	}
	notes := strings.Join(rep.Notes, "\n")
	for _, s := range []string{"highway classes left out", "footway 1", "largest of", "merged 1 nodes", "σ = 0.3 × mean", "1 of 5 ways have a maxspeed"} {
		if !strings.Contains(notes, s) {
			t.Errorf("the report does not say %q:\n%s", s, notes)
		}
	}
}

// Bad extracts are refused with the file named, and nothing is returned.
func TestOSMBadExtracts(t *testing.T) {
	pbf := testenv.OSMExtract(t, "delaware-latest.osm.pbf")
	b, err := os.ReadFile(pbf)
	if err != nil {
		t.Fatal(err)
	}
	noRoad := strings.Replace(townOSM, `v="residential"`, `v="footway"`, -1)
	for _, c := range []struct {
		name string
		data []byte
		says string
	}{
		{"cut.osm.pbf", b[:len(b)/3], "truncated or damaged"},
		{"paths.osm", []byte(noRoad), "no drivable road"},
		{"empty.osm", []byte(`<osm version="0.6"></osm>`), "no OpenStreetMap nodes or ways"},
		{"cut.osm.bz2", bz2Head(t), "truncated or damaged"},
	} {
		net, _, err := netfile.Import([]netfile.File{{Name: c.name, Data: c.data}}, netfile.ImportOptions{})
		if net != nil || err == nil || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// bz2Head is the first half of the Andorra extract: a bzip2 stream that
// ends early.
func bz2Head(t *testing.T) []byte {
	b, err := os.ReadFile(testenv.OSMExtract(t, "andorra-latest.osm.bz2"))
	if err != nil {
		t.Fatal(err)
	}
	return b[:len(b)/2]
}

// Real extracts: every node of the network reaches every other and is
// reached from it (the strong component), links take positive time,
// nodes lie in the extract's area, and the report says what was dropped.
func TestOSMRealExtracts(t *testing.T) {
	for _, c := range []struct {
		file      string
		lon, lat  [2]float64
		coarsened bool
	}{
		{"andorra-latest.osm.bz2", [2]float64{1.3, 1.9}, [2]float64{42.3, 42.8}, false},
		{"delaware-latest.osm.pbf", [2]float64{-76, -74.9}, [2]float64{38.3, 39.9}, false},
	} {
		if c.file == "delaware-latest.osm.pbf" && !testenv.IsLarge() {
			continue // 10 s: with the large cases; Andorra holds the same checks
		}
		b, err := os.ReadFile(testenv.OSMExtract(t, c.file))
		if err != nil {
			t.Fatal(err)
		}
		net, rep, err := netfile.Import([]netfile.File{{Name: c.file, Data: b}}, netfile.ImportOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		for _, nd := range net.Nodes {
			if nd.Coord[0] < c.lon[0] || nd.Coord[0] > c.lon[1] || nd.Coord[1] < c.lat[0] || nd.Coord[1] > c.lat[1] {
				t.Fatalf("%s: node %s at %v, outside the extract", c.file, nd.ID, nd.Coord)
			}
		}
		for _, l := range net.Links {
			if !(l.Mean > 0) || l.From == l.To {
				t.Fatalf("%s: link %v", c.file, l)
			}
		}
		if r := reach(net, false); r != len(net.Nodes) {
			t.Errorf("%s: node 0 reaches %d of %d nodes", c.file, r, len(net.Nodes))
		}
		if r := reach(net, true); r != len(net.Nodes) {
			t.Errorf("%s: %d of %d nodes reach node 0", c.file, r, len(net.Nodes))
		}
		notes := strings.Join(rep.Notes, "\n")
		if got := strings.Contains(notes, "over ontime's limits"); got != c.coarsened {
			t.Errorf("%s: coarsened %v:\n%s", c.file, got, notes)
		}
		if len(net.ODs) != netfile.DefaultODCount || len(net.Nodes) > netfile.MaxNodes || len(net.Links) > netfile.MaxLinks {
			t.Errorf("%s: %d ODs, %d nodes, %d links", c.file, len(net.ODs), len(net.Nodes), len(net.Links))
		}
		// Delaware whole, every default class kept (issue 47: it was cut
		// to 16,302 links under the old limits)
		if c.file == "delaware-latest.osm.pbf" && (len(net.Nodes) != 46933 || len(net.Links) != 112702) {
			t.Errorf("%s: %d nodes, %d links; whole it is 46,933 and 112,702", c.file, len(net.Nodes), len(net.Links))
		}
		// Its GMNS export reads back as the same network: nodes, links,
		// shapes, correlation, OD pairs and step cap.
		shaped := 0
		for _, l := range net.Links {
			if len(l.Shape) > 0 {
				shaped++
			}
		}
		if shaped < len(net.Links)/4 {
			t.Errorf("%s: only %d of %d links keep a shape", c.file, shaped, len(net.Links))
		}
		sameNetwork(t, net, gmnsRoundTrip(t, net))
		t.Logf("%s: %d nodes, %d links, %d shaped", c.file, len(net.Nodes), len(net.Links), shaped)
	}
}

// reach counts the nodes reached from node 0 along links (back: against them).
func reach(net *engine.Network, back bool) int {
	adj := make([][]int, len(net.Nodes))
	for _, l := range net.Links {
		if back {
			adj[l.To] = append(adj[l.To], l.From)
		} else {
			adj[l.From] = append(adj[l.From], l.To)
		}
	}
	seen := make([]bool, len(net.Nodes))
	stack, n := []int{0}, 0
	seen[0] = true
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		for _, w := range adj[v] {
			if !seen[w] {
				seen[w] = true
				stack = append(stack, w)
			}
		}
	}
	return n
}

// BenchmarkImportOSM reads, filters, contracts, validates and models each
// extract (the targets: under 60 s and 4 GB on a 2-core machine).
func BenchmarkImportOSM(b *testing.B) {
	for _, file := range []string{"andorra-latest.osm.bz2", "delaware-latest.osm.pbf"} {
		data, err := os.ReadFile(testenv.OSMExtract(b, file))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(file, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := netfile.Import([]netfile.File{{Name: file, Data: data}}, netfile.ImportOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Beyond the limits the lowest classes are left out, a tier at a time,
// and the report says so: Delaware under the old limits (20,000 nodes,
// 50,000 links) loses its residential streets and living streets.
func TestOSMCoarsensOnlyBeyondTheLimits(t *testing.T) {
	b, err := os.ReadFile(testenv.OSMExtract(t, "delaware-latest.osm.pbf"))
	if err != nil {
		t.Fatal(err)
	}
	defer netfile.SetOSMLimit(20000, 50000)()
	net, rep, err := netfile.Import([]netfile.File{{Name: "delaware-latest.osm.pbf", Data: b}}, netfile.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(rep.Notes, "\n")
	if len(net.Nodes) > 20000 || len(net.Links) > 50000 || !strings.Contains(notes, "over ontime's limits (20000 nodes, 50000 links): left out living_street, residential") {
		t.Errorf("%d nodes, %d links:\n%s", len(net.Nodes), len(net.Links), notes)
	}
}

package netfile_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// A GMNS demand.csv beside the pair: its trips between nodes are kept
// (zero trips, a node to itself and unknown zones left out, said), the
// default OD pairs are drawn from them, and ontime JSON keeps the demand.
func TestImportGMNSDemand(t *testing.T) {
	demand := "o_zone_id,d_zone_id,volume\n1,3,50\n2,1,10\n3,2,0\n7,1,5\n2,2,9\n"
	files := append(gmnsFiles(gmnsNodes, gmnsLinks), netfile.File{Name: "demand.csv", Data: []byte(demand)})
	net, rep, err := netfile.Import(files, netfile.ImportOptions{Name: "tri"})
	if err != nil {
		t.Fatal(err)
	}
	if len(net.Demand) != 2 {
		t.Fatalf("demand %+v", net.Demand)
	}
	notes := strings.Join(rep.Notes, "\n")
	for _, want := range []string{"demand: 2 pairs with trips", "1 zones of demand.csv are not nodes of the network (7)", "drawn in proportion to the demand's trips"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if len(net.ODs) != 2 {
		t.Errorf("OD pairs %v: both pairs with trips", net.ODs)
	}
	again := exportRoundTrip(t, "json", net)
	if len(again.Demand) != 2 || again.Demand[0] != net.Demand[0] {
		t.Errorf("JSON kept %+v of %+v", again.Demand, net.Demand)
	}
	bad := append(gmnsFiles(gmnsNodes, gmnsLinks), netfile.File{Name: "demand.csv", Data: []byte("o_zone_id,d_zone_id,volume\n1,3,-5\n")})
	if p := refusal(t, bad, "trips ≥ 0"); p.File != "demand.csv" || p.Line != 2 || p.Field != "volume" {
		t.Errorf("negative volume: %v", p)
	}
}

// A TNTP _trips table: "Origin o" then "d : trips;" entries; a bad number
// names its line.
func TestImportTNTPTrips(t *testing.T) {
	nf := "<NUMBER OF ZONES> 3\n<NUMBER OF NODES> 3\n<FIRST THRU NODE> 1\n<NUMBER OF LINKS> 4\n<END OF METADATA>\n\n~\tinit_node\tterm_node\tcapacity\tlength\tfree_flow_time\tb\tpower\tspeed\ttoll\tlink_type\t;\n" +
		"\t1\t2\t1\t1\t5\t0.15\t4\t0\t0\t1\t;\n\t2\t3\t1\t1\t5\t0.15\t4\t0\t0\t1\t;\n\t3\t1\t1\t1\t5\t0.15\t4\t0\t0\t1\t;\n\t2\t1\t1\t1\t5\t0.15\t4\t0\t0\t1\t;\n"
	trips := "<NUMBER OF ZONES> 3\n<TOTAL OD FLOW> 60\n<END OF METADATA>\n\n\nOrigin \t1\n    1 :      0.0;     2 :    40.0;     3 :    10.0;\n\nOrigin \t3\n    1 :   10.0;\n"
	files := []netfile.File{{Name: "t_net.tntp", Data: []byte(nf)}, {Name: "t_trips.tntp", Data: []byte(trips)}}
	net, rep, err := netfile.Import(files, netfile.ImportOptions{})
	if err != nil {
		t.Fatalf("%v %v", err, rep.Notes)
	}
	if len(net.Demand) != 3 || len(net.ODs) != 3 {
		t.Fatalf("demand %+v, pairs %v", net.Demand, net.ODs)
	}
	badTrips := strings.Replace(trips, "40.0", "forty", 1)
	files[1].Data = []byte(badTrips)
	if p := refusal(t, files, "number of trips"); p.File != "t_trips.tntp" || p.Line != 7 {
		t.Errorf("bad trips: %v", p)
	}
}

// Drawn by demand: over many seeds, a pair is drawn first as often as its
// share of the trips (within 3 standard errors), and never one without a
// route.
func TestDemandODsFollowTrips(t *testing.T) {
	net := &engine.Network{Nodes: []engine.Node{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}},
		Links: []engine.Link{{From: 0, To: 1, Mean: 1}, {From: 1, To: 2, Mean: 1}, {From: 2, To: 0, Mean: 1}}}
	net.Index()
	trips := []float64{1, 2, 7}
	for i, w := range trips {
		net.Demand = append(net.Demand, engine.Demand{OD: engine.OD{Origin: i, Destination: (i + 1) % 3}, Trips: w})
	}
	net.Demand = append(net.Demand, engine.Demand{OD: engine.OD{Origin: 0, Destination: 3}, Trips: 1000}) // no route to d
	const n = 4000
	first := make([]int, 3)
	for seed := range uint64(n) {
		ods := engine.DemandODs(net, 2, seed, nil)
		if len(ods) != 2 {
			t.Fatalf("seed %d: %v", seed, ods)
		}
		for _, od := range ods {
			if od.Destination == 3 {
				t.Fatalf("seed %d drew a pair without a route", seed)
			}
		}
		first[ods[0].Origin]++
	}
	for i, w := range trips {
		p := w / 10
		if got := float64(first[i]) / n; math.Abs(got-p) > 3*math.Sqrt(p*(1-p)/n) {
			t.Errorf("pair %d: drawn first %.3f of the time, its share of the trips %.2f", i, got, p)
		}
	}
}

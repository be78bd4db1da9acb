package builtin_test

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/testenv"
)

func TestLETTimes(t *testing.T) {
	dir := testenv.DataDir(t)
	for _, tc := range []struct {
		network string
		nodes   int
		links   int
		zones   int
		cap     int
		tol     float64
		let     map[string]float64
	}{
		{"sfn", 24, 76, 24, 12, 1e-4, map[string]float64{"2-15": 45.6505, "4-7": 32.5060, "10-13": 29.0187, "13-19": 47.0105, "17-24": 36.9854}},
		{"anaheim", 416, 914, 38, 32, 1e-3, map[string]float64{"96-161": 19.3017, "43-161": 16.9832, "376-52": 12.0290, "34-32": 9.9393, "402-47": 12.8594}},
	} {
		t.Run(tc.network, func(t *testing.T) {
			net, err := builtin.Load(tc.network, dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(net.Nodes) != tc.nodes || len(net.Links) != tc.links || net.StepCap != tc.cap || len(net.Zones) != tc.zones {
				t.Fatalf("got %d nodes, %d links, cap %d, %d zones", len(net.Nodes), len(net.Links), net.StepCap, len(net.Zones))
			}
			if len(net.ODs) != len(tc.let) {
				t.Fatalf("got %d OD pairs, want %d", len(net.ODs), len(tc.let))
			}
			for _, od := range net.ODs {
				name := net.ODString(od)
				want, ok := tc.let[name]
				if !ok {
					t.Fatalf("unexpected OD %s", name)
				}
				tree := net.LET(od.Destination)
				got := tree.Time[od.Origin]
				if !scalar.EqualWithinAbs(got, want, tc.tol) {
					t.Errorf("%s: LET time %.6f, want %.4f", name, got, want)
				}
				// The chosen path is a real path whose mean sums to the LET time.
				sum := 0.0
				path := tree.Path(od.Origin, net)
				for _, e := range path {
					sum += net.Links[e].Mean
				}
				if !scalar.EqualWithinAbsOrRel(sum, got, 1e-9, 1e-8) || len(path) != tree.Hops[od.Origin] {
					t.Errorf("%s: path sums to %v over %d links, tree says %v over %d", name, sum, len(path), got, tree.Hops[od.Origin])
				}
				if len(path) > net.StepCap {
					t.Errorf("%s: LET path has %d links, over the cap %d", name, len(path), net.StepCap)
				}
			}
			if len(net.Sources) == 0 {
				t.Error("no source files recorded")
			}
		})
	}
}

// The LET tie rule: among paths tied within 1e-9, fewest links, then the
// smallest node-id sequence. 13-19 on Sioux Falls has seven tied paths.
func TestLETTieBreak(t *testing.T) {
	net, err := builtin.Load("twobranch", "")
	if err != nil {
		t.Fatal(err)
	}
	tree := net.LET(4)
	if got := net.PathNodes(tree.Path(0, net)); len(got) != 4 || got[2] != "C" {
		t.Fatalf("twobranch LET path %v, want A B C E (C before D)", got)
	}
	if tree.Time[0] != 106 {
		t.Fatalf("twobranch LET time %v, want 106", tree.Time[0])
	}
	dir := testenv.DataDir(t)
	sfn, err := builtin.Load("sfn", dir)
	if err != nil {
		t.Fatal(err)
	}
	od, _ := sfn.ParseOD("13-19")
	path := sfn.PathNodes(sfn.LET(od.Destination).Path(od.Origin, sfn))
	// Tied paths have 4, 5 and 8 links; the rule picks the 4-link one with
	// the smallest id sequence.
	if len(path) != 5 {
		t.Errorf("13-19 LET path %v: want the fewest links (4)", path)
	}
	t.Logf("13-19 LET path %v", path)
}

func TestAnaheimSigma(t *testing.T) {
	net, err := builtin.Load("anaheim", testenv.DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	var maxRatio, mean float64
	for _, l := range net.Links {
		r := l.SD() / l.Mean
		maxRatio = math.Max(maxRatio, r)
		mean += r / float64(len(net.Links))
	}
	if maxRatio > builtin.AnaheimSigmaScale || math.Abs(mean-builtin.AnaheimSigmaScale/2) > 0.02 {
		t.Errorf("σ/μ: max %.3f (want ≤ 0.4), mean %.3f (want ≈ 0.2)", maxRatio, mean)
	}
	if net.Coords != engine.CoordLonLat {
		t.Errorf("coords %q, want lonlat", net.Coords)
	}
}

func TestMissingDataNamesFileAndFetch(t *testing.T) {
	_, err := builtin.Load("sfn", t.TempDir())
	if err == nil || engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Fatalf("err = %v, want not found", err)
	}
	for _, want := range []string{"tntp/SiouxFalls_net.tntp", "ontime networks fetch"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

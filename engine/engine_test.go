package engine_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
)

func TestCompareIDs(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"2", "10", -1}, {"10", "2", 1}, {"7", "7", 0}, {"A", "B", -1}, {"9", "A", -1}, {"B", "10", 1},
	} {
		if got := engine.CompareIDs(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareIDs(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// diamond: two tied routes s→a→t and s→b→t (a sorts first), and a third
// s→c→d→t that ties in time but has more links.
func diamond(ab, bt float64) *engine.Network {
	net := &engine.Network{Name: "diamond"}
	for _, id := range []string{"s", "b", "a", "t", "c", "d"} {
		net.Nodes = append(net.Nodes, engine.Node{ID: id})
	}
	add := func(f, to int, m float64) { net.Links = append(net.Links, engine.Link{From: f, To: to, Mean: m}) }
	add(0, 1, 1)   // s→b
	add(1, 3, bt)  // b→t
	add(0, 2, ab)  // s→a
	add(2, 3, 1)   // a→t
	add(0, 4, 0.5) // s→c
	add(4, 5, 0.5) // c→d
	add(5, 3, 1)   // d→t
	net.Index()
	return net
}

func TestLETTieRule(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ab, bt float64
		want   string
	}{
		{"exact tie: fewest links, then smallest id sequence", 1, 1, "s-a-t"},
		{"within 1e-9: still tied", 1 + 1e-10, 1, "s-a-t"},
		{"beyond the tolerance: the faster path", 1 + 1e-6, 1, "s-b-t"},
		{"the longer path only when faster", 1, 1.5, "s-a-t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			net := diamond(tc.ab, tc.bt)
			tree := net.LET(3)
			got := strings.Join(net.PathNodes(tree.Path(0, net)), "-")
			if got != tc.want {
				t.Errorf("path %s, want %s", got, tc.want)
			}
		})
	}
	// Unreachable nodes.
	net := diamond(1, 1)
	tree := net.LET(0)
	if tree.Path(3, net) != nil || !math.IsInf(tree.Time[3], 1) || tree.Next[3] != -1 {
		t.Error("t cannot reach s")
	}
}

func TestParseOD(t *testing.T) {
	net := &engine.Network{Name: "n", Nodes: []engine.Node{{ID: "a-1"}, {ID: "b"}, {ID: "a"}}}
	od, err := net.ParseOD("a-1-b")
	if err != nil || od != (engine.OD{Origin: 0, Destination: 1}) {
		t.Errorf("a-1-b: %v %v", od, err)
	}
	if _, err := net.ParseOD("a-a"); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("same node: %v", err)
	}
	if _, err := net.ParseOD("x-b"); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Errorf("unknown node: %v", err)
	}
}

func TestProjectLonLat(t *testing.T) {
	net := &engine.Network{Coords: engine.CoordLonLat, Nodes: []engine.Node{
		{ID: "1", Coord: [2]float64{-96.0, 43.0}}, {ID: "2", Coord: [2]float64{-95.99, 43.0}}, {ID: "3", Coord: [2]float64{-96.0, 43.01}}}}
	net.Project()
	dx := net.Nodes[1].X - net.Nodes[0].X
	dy := net.Nodes[2].Y - net.Nodes[0].Y
	// 0.01° of longitude at 43°N ≈ 813 m; 0.01° of latitude ≈ 1113 m.
	if math.Abs(dx-813.2) > 2 || math.Abs(dy-1113.2) > 2 {
		t.Errorf("dx %.1f m, dy %.1f m", dx, dy)
	}
	cx := (net.Nodes[0].X + net.Nodes[1].X + net.Nodes[2].X) / 3
	if math.Abs(cx) > 1e-6 {
		t.Errorf("not centred: %v", cx)
	}
}

// The LET path of the paper's five-node example: both branches take 106
// minutes on average, so the tie rule picks the smaller id sequence.
func ExampleNetwork_LET() {
	net, _ := builtin.Load("twobranch", "")
	od := net.ODs[0]
	tree := net.LET(od.Destination)
	fmt.Println(tree.Time[od.Origin], net.PathNodes(tree.Path(od.Origin, net)))
	// Output: 106 [A B C E]
}

// The hop cap binds: the fastest way from s to t takes three links (s-c-d-t,
// 2 minutes); within two links the best is 2.5 minutes (s-a-t).
func TestCappedSearch(t *testing.T) {
	net := diamond(1.5, 2)
	w := make([]float64, len(net.Links))
	for e, l := range net.Links {
		w[e] = l.Mean
	}
	s := engine.NewCappedSearch(net)
	for _, tc := range []struct {
		cap  int
		want float64
		path string
	}{{0, 2, "s-c-d-t"}, {3, 2, "s-c-d-t"}, {2, 2.5, "s-a-t"}, {1, math.Inf(1), ""}} {
		if got := s.Time(0, 3, tc.cap, w); got != tc.want {
			t.Errorf("cap %d: time %v, want %v", tc.cap, got, tc.want)
		}
		p, _ := s.Path(0, 3, tc.cap, w)
		if got := strings.Join(net.PathNodes(p), "-"); got != tc.path {
			t.Errorf("cap %d: path %q, want %q", tc.cap, got, tc.path)
		}
	}
}

// The law over the day is FIFO in expectation where its means never fall
// faster than the clock runs: the built-in rush hour holds on links of any
// length up to a day's worth; a mean that halves within a step on a long
// link breaks it, and the break names the link and the step.
func TestFIFOBreaks(t *testing.T) {
	rush := engine.RushHourProfile(15, 0.9, 0.6)
	c := &engine.Clock{Step: 15, Profiles: []engine.DayProfile{rush}}
	if br := c.FIFOBreaks([]float64{1, 10, 60}); len(br) != 0 {
		t.Errorf("a rush hour on links of 1 to 60 min breaks FIFO: %+v", br)
	}
	steep := engine.DayProfile{Mean: make([]float64, 96), Spread: make([]float64, 96)}
	for i := range steep.Mean {
		steep.Mean[i], steep.Spread[i] = 1, 1
	}
	steep.Mean[40] = 3 // 10:00: three times the mean, back to 1 at 10:15
	c = &engine.Clock{Step: 15, Profiles: []engine.DayProfile{steep}}
	br := c.FIFOBreaks([]float64{5, 10})
	// Link 0 falls by 10 min over 15: FIFO. Link 1 falls by 20: 5 min gained.
	if len(br) != 1 || br[0].Link != 1 || br[0].From != 600 || br[0].To != 615 || math.Abs(br[0].Gain-5) > 1e-9 {
		t.Fatalf("breaks %+v, want link 1 at 10:00–10:15 gaining 5 min", br)
	}
}

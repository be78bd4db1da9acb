// The rules that pick what a file does not give: OD pairs, the step cap,
// zone centroids.

package netfile

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// BlockZones keeps routes from passing through zone centroids (TNTP nodes
// with ids below firstThru): each centroid with links both in and out is
// split into a destination node (its id, the links in) and an origin node
// (id + OriginSuffix, the links out), drawn at the same place. OD pairs
// written with the centroid's id map to the right half. It returns how many
// were split.
func BlockZones(net *engine.Network, firstThru int) int {
	in := make([]bool, len(net.Nodes))
	for _, l := range net.Links {
		in[l.To] = true
	}
	split := 0
	n := len(net.Nodes)
	for i := range n {
		id := net.Nodes[i].ID
		z, err := parseInt(id)
		if err != nil || z >= firstThru || !in[i] || len(net.Out(i)) == 0 {
			continue
		}
		origin := net.Nodes[i]
		origin.ID = id + OriginSuffix
		net.Nodes = append(net.Nodes, origin)
		for _, e := range net.Out(i) {
			net.Links[e].From = len(net.Nodes) - 1
		}
		split++
	}
	net.Index()
	return split
}

// DefaultODs picks k OD pairs by a fixed rule: among 500 random pairs of
// nodes (seeded by the network's size) whose destination can be reached,
// the ones at the 50th, 60th, 70th, 80th and 90th percentile of LET time:
// trips long enough for routes to differ, never the extreme outliers.
func DefaultODs(net *engine.Network, k int) []engine.OD {
	type cand struct {
		od engine.OD
		t  float64
	}
	var origins, dests []int
	for i, nd := range net.Nodes {
		if engine.IsRoadPoint(nd.ID) {
			continue // the middle of a parallel road, not a place
		}
		if len(net.Out(i)) > 0 {
			origins = append(origins, i)
		}
		if _, isOrigin := strings.CutSuffix(nd.ID, OriginSuffix); !isOrigin {
			dests = append(dests, i)
		}
	}
	if len(origins) == 0 || len(dests) == 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(uint64(len(net.Nodes)), uint64(len(net.Links))))
	trees := map[int][]float64{}
	var cands []cand
	seen := map[engine.OD]bool{}
	for range 500 {
		od := engine.OD{Origin: origins[rng.IntN(len(origins))], Destination: dests[rng.IntN(len(dests))]}
		if od.Origin == od.Destination || seen[od] || sameZone(net, od) {
			continue
		}
		seen[od] = true
		if len(trees) < 64 || trees[od.Destination] != nil {
			if trees[od.Destination] == nil {
				trees[od.Destination] = net.LET(od.Destination).Time
			}
			if t := trees[od.Destination][od.Origin]; !math.IsInf(t, 1) && t > 0 {
				cands = append(cands, cand{od, t})
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.t, b.t), engine.CompareIDs(net.ODString(a.od), net.ODString(b.od)))
	})
	var out []engine.OD
	for i := range k {
		if len(cands) == 0 {
			break
		}
		q := 0.5 + 0.4*float64(i)/float64(max(k-1, 1))
		c := cands[min(len(cands)-1, int(q*float64(len(cands))))]
		if !slices.Contains(out, c.od) {
			out = append(out, c.od)
		}
	}
	return out
}

func sameZone(net *engine.Network, od engine.OD) bool {
	a, _ := strings.CutSuffix(net.Nodes[od.Origin].ID, OriginSuffix)
	return a == net.Nodes[od.Destination].ID
}

// DefaultStepCap is 1.5 times the longest LET path (in links) of the
// network's OD pairs, rounded up, and at least 12 (Sioux Falls' cap): room
// for detours, while DOT's tables (one level per link left) stay small.
func DefaultStepCap(net *engine.Network) int {
	longest := 0
	for _, od := range net.ODs {
		longest = max(longest, len(net.LET(od.Destination).Path(od.Origin, net)))
	}
	return max(12, (3*longest+1)/2)
}

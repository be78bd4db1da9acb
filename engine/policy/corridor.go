package policy

import (
	"math"

	"github.com/ontime-routing/ontime/engine"
)

// corridor finds the k shortest paths by mean from o to d on a network
// too large for Yen's search on the whole graph (over BestPathLinkLimit
// links: one pair of a 249,000-link grid ran for 38 minutes). A path of
// mean time at most L + s, L the least expected time, only crosses nodes v
// with from(v) + to(v) ≤ L + s (the least times from o and to d), so Yen's
// search on the links among those nodes finds every path up to L + s, and
// those are the shortest of the whole network. The corridor starts at a
// thousandth of L and doubles until it holds k paths (then they are exactly
// Yen's k on the whole network, up to the order of equal means), holds
// every node that can lie on a trip (then it has all there are), or would
// carry more than limit links (BestPathLinkLimit): then fitted fills a
// region up to the limit and says whether its paths are all k (each is
// among the network's shortest either way, at least the LET path).
// maxLinks drops longer paths afterwards, as kShortest does.
func corridor(net *engine.Network, o, d, k, maxLinks, limit int) (paths [][]int, complete bool) {
	n := len(net.Nodes)
	means := make([]float64, len(net.Links))
	for e, l := range net.Links {
		means[e] = l.Mean
	}
	from := make([]float64, n)
	net.CostsFrom(o, means, from)
	tree := net.LET(d)
	to := tree.Time
	least := to[o]
	switch {
	case math.IsInf(least, 1):
		return nil, true
	case least == 0: // o is d (every mean is positive): the empty path, as Yen's
		return [][]int{{}}, true
	}
	reachable := 0 // nodes on some path from o to d
	for v := range n {
		if !math.IsInf(from[v]+to[v], 1) {
			reachable++
		}
	}
	region := make([]bool, n)
	inside, prevLinks := 0, -1
	var found [][]int
	for slack := least / 1000; ; slack *= 2 {
		bound := least + slack
		// A tolerance for the sums' rounding: a path's own mean adds its
		// links in another order than from and to do.
		tol := bound * (1 + corridorTol)
		for v := range n {
			if !region[v] && from[v]+to[v] <= tol {
				region[v] = true
				inside++
			}
		}
		links := 0
		for _, l := range net.Links {
			if region[l.From] && region[l.To] {
				links++
			}
		}
		if links > limit {
			return fitted(net, o, d, k, maxLinks, limit, from, to, tree.Path(o, net))
		}
		if links != prevLinks { // the same links give the same paths
			found = yenPaths(net, o, d, k, 0, region)
			prevLinks = links
		}
		if inside == reachable { // every path there is
			return keepWithin(found, maxLinks), true
		}
		// Yen lists the corridor's paths by mean: those up to the bound are
		// the network's shortest.
		paths = paths[:0:0]
		for _, p := range found {
			if pathMean(net, p) <= tol {
				paths = append(paths, p)
			}
		}
		if len(paths) == k {
			return keepWithin(paths, maxLinks), true
		}
	}
}

func pathMean(net *engine.Network, links []int) float64 {
	s := 0.0
	for _, e := range links {
		s += net.Links[e].Mean
	}
	return s
}

// keepWithin drops the paths of more than maxLinks links (0: none).
func keepWithin(paths [][]int, maxLinks int) [][]int {
	if maxLinks <= 0 {
		return paths
	}
	out := paths[:0]
	for _, p := range paths {
		if len(p) <= maxLinks {
			out = append(out, p)
		}
	}
	return out
}

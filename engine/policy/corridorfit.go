package policy

import (
	"cmp"
	"math"
	"slices"

	"github.com/ontime-routing/ontime/engine"
)

// corridorTol is the relative rounding the corridor allows between a
// path's mean and the least times from and to its nodes (a path adds its
// links in another order than the two searches do): means that close are
// equal.
const corridorTol = 1e-12

// fitted answers for the corridor when even its narrowest bound holds more
// than limit links: on a grid whose means repeat, thousands of paths share
// the least mean, and the corridor used to give up with the LET path
// alone. The region is filled node by node up to limit links, by from +
// to (the least times from o and to d), nodes of equal sums nearest the
// LET path first (by hops); Yen's search runs in it.
//
// A path of mean m crosses only nodes with from + to ≤ m. So when every
// node left out has from + to at least the k-th path's mean, every path
// shorter than that one lies inside, and the k paths found are the
// network's k shortest, up to the order of equal means: complete.
// Otherwise the paths kept are those no longer than the least from + to
// left out: a prefix of the network's list (at least the LET path).
func fitted(net *engine.Network, o, d, k, maxLinks, limit int, from, to []float64, letPath []int) ([][]int, bool) {
	n := len(net.Nodes)
	key := func(v int) float64 { return from[v] + to[v] }
	in := net.InLinks()
	// hops from the LET path, through the nodes on some path from o to d
	hops := make([]int, n)
	for v := range hops {
		hops[v] = -1
	}
	order := []int{o} // the nodes as they are reached, then as they are taken
	hops[o] = 0
	for _, e := range letPath {
		if v := net.Links[e].To; hops[v] < 0 {
			hops[v] = 0
			order = append(order, v)
		}
	}
	for i := 0; i < len(order); i++ {
		v := order[i]
		visit := func(w int) {
			if hops[w] < 0 && !math.IsInf(key(w), 1) {
				hops[w] = hops[v] + 1
				order = append(order, w)
			}
		}
		for _, e := range net.Out(v) {
			visit(net.Links[e].To)
		}
		for _, e := range in[v] {
			visit(net.Links[e].From)
		}
	}
	// by from + to; nodes whose sums are equal (within the rounding) by
	// hops, so that a level of many ties is taken nearest the LET path
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(key(a), key(b)) })
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && key(order[j]) <= key(order[i])*(1+corridorTol) {
			j++
		}
		slices.SortStableFunc(order[i:j], func(a, b int) int { return hops[a] - hops[b] })
		i = j
	}

	region := make([]bool, n)
	links, took := 0, 0
	for _, v := range order {
		region[v] = true
		add := 0
		for _, e := range net.Out(v) {
			if region[net.Links[e].To] {
				add++
			}
		}
		for _, e := range in[v] {
			if u := net.Links[e].From; u != v && region[u] {
				add++
			}
		}
		if links+add > limit {
			region[v] = false
			break
		}
		links += add
		took++
	}
	if !region[o] || !onRegion(net, letPath, region) {
		return [][]int{letPath}, false // the LET path alone is over the limit
	}
	outside := math.Inf(1) // the least from + to left out
	for _, v := range order[took:] {
		outside = min(outside, key(v))
	}
	found := yenPaths(net, o, d, k, 0, region)
	kept := found
	for i, p := range found {
		if pathMean(net, p) > outside*(1+corridorTol) {
			kept = found[:i]
			break
		}
	}
	if len(kept) == 0 {
		kept = [][]int{letPath}
	}
	complete := len(kept) == len(found) && (len(found) == k || math.IsInf(outside, 1))
	return keepWithin(kept, maxLinks), complete
}

// onRegion reports whether every node of a path lies in the region.
func onRegion(net *engine.Network, path []int, region []bool) bool {
	for _, e := range path {
		if !region[net.Links[e].To] {
			return false
		}
	}
	return true
}

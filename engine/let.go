package engine

import (
	"math"
	"sort"
)

// TieTolerance is the relative gap within which two path times count as
// tied. UE link costs make many paths equal up to rounding noise (~1e-8 on
// Sioux Falls), so an exact comparison would pick a path by float luck.
const TieTolerance = 1e-9

// LETTree is the least-expected-time tree towards one destination: for each
// node, its LET time to the destination and the next link on its LET path.
// Among tied paths it prefers fewest links, then the smallest node-id
// sequence (ids compared by CompareIDs).
type LETTree struct {
	Destination int
	Time        []float64 // +Inf where the destination is unreachable
	Hops        []int     // links on the chosen path; -1 when unreachable
	Next        []int     // next link on the chosen path; -1 at the destination or when unreachable
}

// LET builds the LET tree towards dest by Dijkstra on link means over the
// reversed network. It is hand-written, not gonum's, because the tie rule
// above needs the whole set of near-optimal successors.
func (n *Network) LET(dest int) *LETTree {
	nn := len(n.Nodes)
	in := n.InLinks()
	t := &LETTree{Destination: dest, Time: make([]float64, nn), Hops: make([]int, nn), Next: make([]int, nn)}
	for i := range t.Time {
		t.Time[i] = math.Inf(1)
		t.Hops[i] = -1
		t.Next[i] = -1
	}
	t.Time[dest] = 0
	done := make([]bool, nn)
	order := make([]int, 0, nn) // nodes in order of settled time
	q := []distItem{{dest, 0}}
	for len(q) > 0 {
		it := q[0]
		q = popMin(q)
		if done[it.node] {
			continue
		}
		done[it.node] = true
		order = append(order, it.node)
		for _, e := range in[it.node] {
			u := n.Links[e].From
			if d := it.dist + n.Links[e].Mean; d < t.Time[u] {
				t.Time[u] = d
				q = pushMin(q, distItem{u, d})
			}
		}
	}
	// Settled order is non-decreasing in time, so every tight successor of a
	// node is settled before it (means are positive): one pass fixes hops and
	// next links by the tie rule.
	t.Hops[dest] = 0
	for _, u := range order {
		if u == dest {
			continue
		}
		tol := TieTolerance * t.Time[u]
		for _, e := range n.Out(u) {
			v := n.Links[e].To
			if t.Hops[v] < 0 || n.Links[e].Mean+t.Time[v] > t.Time[u]+tol {
				continue
			}
			h := t.Hops[v] + 1
			if best := t.Next[u]; best < 0 || h < t.Hops[u] ||
				h == t.Hops[u] && CompareIDs(n.Nodes[v].ID, n.Nodes[n.Links[best].To].ID) < 0 {
				t.Next[u], t.Hops[u] = e, h
			}
		}
	}
	return t
}

// Path returns the links of the chosen LET path from origin, or nil when the
// destination cannot be reached.
func (t *LETTree) Path(origin int, n *Network) []int {
	if t.Hops[origin] < 0 {
		return nil
	}
	path := make([]int, 0, t.Hops[origin])
	for u := origin; u != t.Destination; u = n.Links[t.Next[u]].To {
		path = append(path, t.Next[u])
	}
	return path
}

// HopTree is the fewest-links tree towards one destination: for each
// node, the fewest links to it and the first of them (-1: unreachable, or
// at the destination), ties to the LET path's link, then the lower link.
type HopTree struct {
	Destination int
	Hops        []int
	Next        []int
}

// FewestLinks builds the fewest-links tree towards dest (breadth first
// over the reversed links); let, when given, breaks ties towards its path.
func (n *Network) FewestLinks(dest int, let *LETTree) *HopTree {
	nn := len(n.Nodes)
	in := n.InLinks()
	t := &HopTree{Destination: dest, Hops: make([]int, nn), Next: make([]int, nn)}
	for i := range t.Hops {
		t.Hops[i], t.Next[i] = -1, -1
	}
	t.Hops[dest] = 0
	for front := []int{dest}; len(front) > 0; {
		var next []int
		for _, v := range front {
			for _, e := range in[v] {
				if u := n.Links[e].From; t.Hops[u] < 0 {
					t.Hops[u] = t.Hops[v] + 1
					next = append(next, u)
				}
			}
		}
		front = next
	}
	for u := range nn {
		if u == dest || t.Hops[u] < 0 {
			continue
		}
		for _, e := range n.Out(u) {
			if t.Hops[n.Links[e].To] != t.Hops[u]-1 {
				continue
			}
			if best := t.Next[u]; best < 0 || (let != nil && let.Next[u] == e) {
				t.Next[u] = e
			}
		}
	}
	return t
}

// PathNodes lists the node ids along a path of links starting at its first
// link's tail.
func (n *Network) PathNodes(path []int) []string {
	if len(path) == 0 {
		return nil
	}
	ids := []string{n.Nodes[n.Links[path[0]].From].ID}
	for _, e := range path {
		ids = append(ids, n.Nodes[n.Links[e].To].ID)
	}
	return ids
}

// CostsTo sets dist to every node's least cost to dest over the links'
// costs (cost[e] ≥ 0; +Inf where dest cannot be reached): Dijkstra on the
// reversed links, in[v] listing the links into v. LET is the same search on
// the means with its tie rule; DOT's band runs it once per Chernoff rate.
func (n *Network) CostsTo(dest int, in [][]int, cost, dist []float64) {
	n.costs(dest, in, cost, dist)
}

// CostsFrom sets dist to every node's least cost from origin over the
// links' costs (cost[e] ≥ 0; +Inf where it cannot be reached): CostsTo's
// search on the links as they run.
func (n *Network) CostsFrom(origin int, cost, dist []float64) {
	n.costs(origin, nil, cost, dist)
}

// costs is Dijkstra from start: backwards over in (the links into each
// node), or forwards over the links out of each node when in is nil.
func (n *Network) costs(start int, in [][]int, cost, dist []float64) {
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	dist[start] = 0
	q := []distItem{{start, 0}}
	for len(q) > 0 {
		it := q[0]
		q = popMin(q)
		if it.dist > dist[it.node] {
			continue
		}
		var next []int
		if in != nil {
			next = in[it.node]
		} else {
			next = n.Out(it.node)
		}
		for _, e := range next {
			u := n.Links[e].To
			if in != nil {
				u = n.Links[e].From
			}
			if c := it.dist + cost[e]; c < dist[u] {
				dist[u] = c
				q = pushMin(q, distItem{u, c})
			}
		}
	}
}

// SortODs orders OD pairs by origin then destination id.
func (n *Network) SortODs(ods []OD) {
	sort.SliceStable(ods, func(i, j int) bool {
		if c := CompareIDs(n.Nodes[ods[i].Origin].ID, n.Nodes[ods[j].Origin].ID); c != 0 {
			return c < 0
		}
		return CompareIDs(n.Nodes[ods[i].Destination].ID, n.Nodes[ods[j].Destination].ID) < 0
	})
}

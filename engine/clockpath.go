package engine

import "math"

// LinkTimeAt is a link's time when entered at clock time t.
type LinkTimeAt func(e int, t float64) float64

// MeanTimeAt is the network's expected link times at the hour each link
// is entered (Clock.MeanAt): what the time-dependent LET path sums.
func (n *Network) MeanTimeAt() LinkTimeAt {
	return func(e int, t float64) float64 { return n.Clock.MeanAt(e, t, n.Links[e].Mean) }
}

// EarliestArrival is the time-dependent shortest path from o, leaving at
// clock time depart, to d: Dijkstra on arrival times, a link's time read at
// the hour it is entered. It is exact where the times are FIFO (entering
// later never leaves earlier), which Clock.FIFO checks for a network's law
// (Miller-Hooks & Mahmassani 2000); a link's time must be positive. It
// returns the path's links and its arrival time (nil and +Inf when d is not
// reached). Ties go to the smaller link id, so the path is the same on
// every machine.
func (n *Network) EarliestArrival(o, d int, depart float64, w LinkTimeAt) ([]int, float64) {
	nn := len(n.Nodes)
	at := make([]float64, nn)
	via := make([]int, nn)
	for i := range at {
		at[i], via[i] = math.Inf(1), -1
	}
	at[o] = depart
	done := make([]bool, nn)
	q := []distItem{{o, depart}}
	for len(q) > 0 {
		it := q[0]
		q = popMin(q)
		if done[it.node] {
			continue
		}
		done[it.node] = true
		if it.node == d {
			break
		}
		for _, e := range n.Out(it.node) {
			j := n.Links[e].To
			if a := it.dist + w(e, it.dist); a < at[j] && !done[j] {
				at[j], via[j] = a, e
				q = pushMin(q, distItem{j, a})
			}
		}
	}
	if math.IsInf(at[d], 1) {
		return nil, math.Inf(1)
	}
	var rev []int
	for v := d; v != o; v = n.Links[via[v]].From {
		rev = append(rev, via[v])
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev, at[d]
}

// EarliestArrivalCapped is EarliestArrival's arrival time over paths of at
// most maxLinks links (maxLinks ≤ 0: no cap): Dijkstra first; where its
// path is longer than the cap, arrival labels by number of links (a
// label-correcting pass a link at a time, exact under FIFO).
func (n *Network) EarliestArrivalCapped(o, d, maxLinks int, depart float64, w LinkTimeAt) float64 {
	path, at := n.EarliestArrival(o, d, depart, w)
	if path == nil || maxLinks <= 0 || len(path) <= maxLinks {
		return at
	}
	cur := make([]float64, len(n.Nodes))
	for i := range cur {
		cur[i] = math.Inf(1)
	}
	cur[o] = depart
	next := make([]float64, len(cur))
	for range maxLinks {
		copy(next, cur)
		changed := false
		for e, l := range n.Links {
			if t := cur[l.From]; !math.IsInf(t, 1) {
				if a := t + w(e, t); a < next[l.To] {
					next[l.To], changed = a, true
				}
			}
		}
		cur, next = next, cur
		if !changed {
			break
		}
	}
	return cur[d]
}

package engine

import "math"

// CappedSearch finds shortest paths that use at most a given number of links
// (Bellman-Ford by rounds: after round h, dist holds the best time over paths
// of at most h links). It keeps scratch buffers: one per goroutine.
type CappedSearch struct {
	net  *Network
	dist []float64 // last round's values
	pred [][]int32 // per round: the link into each node, -1 if unchanged
	cur  []float64
	// Dijkstra's scratch (Time's first try)
	best []float64
	hops []int32
	q    []distItem
}

// NewCappedSearch prepares a search over net.
func NewCappedSearch(net *Network) *CappedSearch { return &CappedSearch{net: net} }

// Time returns the least total weight from o to d over paths of at most cap
// links (cap ≤ 0: no cap), or +Inf. Weights must be positive.
//
// It tries Dijkstra first, stopping at d: the rounds cost links × rounds,
// 112,702 × hundreds on Delaware (0.1 s a realization, the clairvoyant
// bound's whole cost), Dijkstra a fraction of the links once. Both give the
// least left-to-right float sum over their paths (rounding is monotone, so
// each search's argument holds in floats), so when the path Dijkstra found
// has at most maxLinks links, the capped least is the same float, bit for
// bit; otherwise the rounds decide. Path keeps to the rounds: MLR's paths
// among equal weights are the rounds' choice (TestTimeIsTheRoundsTime).
func (s *CappedSearch) Time(o, d, maxLinks int, w []float64) float64 {
	if t, hops := s.shortest(o, d, w); math.IsInf(t, 1) || maxLinks <= 0 || hops <= maxLinks {
		return t
	}
	t, _ := s.run(o, d, maxLinks, w, false)
	return t
}

// shortest is Dijkstra from o over weights w ≥ 0, stopped when d is
// settled: d's least weight over all paths and the links on the path that
// set it (+Inf and -1 when d cannot be reached).
func (s *CappedSearch) shortest(o, d int, w []float64) (float64, int) {
	n := len(s.net.Nodes)
	if cap(s.best) < n {
		s.best, s.hops = make([]float64, n), make([]int32, n)
	}
	best, hops := s.best[:n], s.hops[:n]
	for i := range best {
		best[i] = math.Inf(1)
	}
	best[o], hops[o] = 0, 0
	q := append(s.q[:0], distItem{o, 0})
	for len(q) > 0 {
		it := q[0]
		q = popMin(q)
		if it.dist > best[it.node] {
			continue // a stale entry: the node was reached cheaper since
		}
		if it.node == d {
			break
		}
		for _, e := range s.net.Out(it.node) {
			v := s.net.Links[e].To
			if t := it.dist + w[e]; t < best[v] {
				best[v], hops[v] = t, hops[it.node]+1
				q = pushMin(q, distItem{v, t})
			}
		}
	}
	s.q = q
	if math.IsInf(best[d], 1) {
		return best[d], -1
	}
	return best[d], int(hops[d])
}

// Path returns the least-weight path from o to d of at most cap links (nil
// if none) and its weight.
func (s *CappedSearch) Path(o, d, maxLinks int, w []float64) ([]int, float64) {
	t, p := s.run(o, d, maxLinks, w, true)
	return p, t
}

func (s *CappedSearch) run(o, d, maxLinks int, w []float64, wantPath bool) (float64, []int) {
	n := len(s.net.Nodes)
	if maxLinks <= 0 {
		maxLinks = n - 1 // a shortest path with positive weights is simple
	}
	if cap(s.cur) < n {
		s.cur = make([]float64, n)
	}
	cur := s.cur[:n]
	for i := range cur {
		cur[i] = math.Inf(1)
	}
	cur[o] = 0
	if wantPath {
		if len(s.pred) < maxLinks {
			s.pred = make([][]int32, maxLinks)
		}
	}
	rounds := 0
	for h := 0; h < maxLinks; h++ {
		// Relax from last round's values only (a copy), so that round h
		// counts paths of at most h+1 links.
		prev := s.dist[:0]
		prev = append(prev, cur...)
		s.dist = prev
		var pred []int32
		if wantPath {
			if len(s.pred[h]) < n {
				s.pred[h] = make([]int32, n)
			}
			pred = s.pred[h][:n]
			for i := range pred {
				pred[i] = -1
			}
		}
		changed := false
		for e, l := range s.net.Links {
			if t := prev[l.From] + w[e]; t < cur[l.To] {
				cur[l.To] = t
				changed = true
				if pred != nil {
					pred[l.To] = int32(e)
				}
			}
		}
		rounds = h + 1
		if !changed {
			break
		}
	}
	t := cur[d]
	if !wantPath || math.IsInf(t, 1) {
		return t, nil
	}
	// Walk back: at round h the node's value was set by pred[h] or kept
	// from an earlier round.
	var rev []int
	v := d
	for h := rounds - 1; h >= 0 && v != o; h-- {
		if e := s.pred[h][v]; e >= 0 {
			rev = append(rev, int(e))
			v = s.net.Links[e].From
		}
	}
	path := make([]int, len(rev))
	for i, e := range rev {
		path[len(rev)-1-i] = e
	}
	return t, path
}

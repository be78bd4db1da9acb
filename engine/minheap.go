package engine

// distItem is a node and its tentative distance in a Dijkstra search.
type distItem struct {
	node int
	dist float64
}

// pushMin and popMin keep q a binary min-heap on dist without
// container/heap's interface boxing (an allocation a push). They move
// items as container/heap's up and down do (a child swaps up only when
// strictly less; of equal children the left), so equal distances pop in
// the same order: LET settles its ties as it did with container/heap.
func pushMin(q []distItem, it distItem) []distItem {
	q = append(q, it)
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if q[p].dist <= q[i].dist {
			break
		}
		q[p], q[i] = q[i], q[p]
		i = p
	}
	return q
}

func popMin(q []distItem) []distItem {
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < len(q) && q[l].dist < q[small].dist {
			small = l
		}
		if r := l + 1; r < len(q) && q[r].dist < q[small].dist {
			small = r
		}
		if small == i {
			return q
		}
		q[i], q[small] = q[small], q[i]
		i = small
	}
}

package policy

import (
	"sync"
	"sync/atomic"

	"github.com/ontime-routing/ontime/engine"
)

// A rollout on DOT runs its M continuations as one tight loop over the
// draws: DOT's choice depends only on (node, budget bin, links left) for a
// destination — unless scores tie, when a way to a node not yet visited is
// preferred (see choice) — so it is computed once per state and kept
// (dotMemo), and a continuation is a handful of array reads per step, with
// no observation or runner; only the rare tied states are decided again
// with the continuation's route. TestRolloutDOTFastPathMatchesRunner checks that every
// continuation ends as sim.Runner ends it (the one episode rule).

// dotMemo keeps DOT's decisions for one destination and table.
type dotMemo struct {
	d      *DOT
	dest   int
	t      *dotTable
	cap    int
	nodes  int
	dense  []int32          // (left·nodes + node)·n + bin → link+1 (0: not yet; -1: tied, ask again); read and written atomically
	mu     sync.Mutex       // guards sparse
	sparse map[uint64]int32 // when dense would be too large
}

// maxMemoDense bounds a dense memo (int32 entries: 64 MB).
const maxMemoDense = 16 << 20

func newDOTMemo(d *DOT, dest int, maxBudget float64, cap int) *dotMemo {
	m := &dotMemo{d: d, dest: dest, t: d.table(dest, maxBudget), cap: cap, nodes: len(d.net.Nodes)}
	if size := int64(cap+1) * int64(m.nodes) * int64(m.t.n); size <= maxMemoDense {
		m.dense = make([]int32, size)
	} else {
		m.sparse = map[uint64]int32{}
	}
	return m
}

// act is DOT's link at node with remaining ≥ 0 and left links left after
// the route prefix: what DOT.Act returns for that observation.
func (m *dotMemo) act(node int, remaining float64, left int, prefix []engine.Step) int {
	b := m.d.readBin(remaining)
	b = min(max(b, 0), m.t.n-1)
	lv := min(max(left, 0), m.cap)
	k := (uint64(lv)*uint64(m.nodes)+uint64(node))*uint64(m.t.n) + uint64(b)
	// The dense memo is read without a lock (the continuations of every
	// worker share it); two workers deciding the same state store the same
	// link.
	var v int32
	if m.dense != nil {
		v = atomic.LoadInt32(&m.dense[k])
	} else {
		m.mu.Lock()
		v = m.sparse[k]
		m.mu.Unlock()
	}
	if v > 0 {
		return int(v - 1)
	}
	// Decided at the bin's own budget: DOT's score reads the table at
	// floor(remaining/Δ), so every remaining in the bin decides alike.
	o := &engine.Observation{Node: node, Destination: m.dest, Remaining: remaining, Step: m.d.cap - left, Prefix: prefix}
	c := m.d.choose(o)
	if v == 0 {
		v = int32(c.link + 1)
		if c.tied {
			v = -1 // the route so far may decide: never kept
		}
		if m.dense != nil {
			atomic.StoreInt32(&m.dense[k], v)
		} else {
			m.mu.Lock()
			m.sparse[k] = v
			m.mu.Unlock()
		}
	}
	return c.link
}

// memo returns the decisions memo for dest covering budgets up to
// maxBudget (a new one when the table was re-solved larger).
func (ro *Rollout) dotMemo(d *DOT, dest int, maxBudget float64) *dotMemo {
	ro.memoMu.Lock()
	defer ro.memoMu.Unlock()
	if ro.memos == nil {
		ro.memos = map[int]*dotMemo{}
	}
	m := ro.memos[dest]
	if m == nil || float64(m.t.n-1)*d.Delta < maxBudget || d.table(dest, maxBudget) != m.t {
		m = newDOTMemo(d, dest, maxBudget, max(d.cap, 0))
		ro.memos[dest] = m
	}
	return m
}

// linkTimes are realizations: link e's time in draw i.
type linkTimes interface{ At(i, e int) float64 }

// continueDOT plays "take link first, then follow DOT" from observation o
// on each of the draws x and sets won[i] to whether draw i arrives on time,
// by the episode rule of sim.Runner: arrival with remaining ≥ 0 is on time;
// remaining below 0, the step cap or a node with no way out ends it late.
func (ro *Rollout) continueDOT(memo *dotMemo, o *engine.Observation, first int, x linkTimes, won []bool) {
	net := ro.net
	dest := o.Destination
	route := append(make([]engine.Step, 0, len(o.Prefix)+ro.cap), o.Prefix...)
	for i := range won {
		rem, step, e := o.Remaining, o.Step, first
		route = route[:len(o.Prefix)]
		won[i] = false
		for {
			t := x.At(i, e)
			rem -= t
			route = append(route, engine.Step{Link: e, Time: t})
			step++
			node := net.Links[e].To
			if node == dest && rem >= 0 {
				won[i] = true
				break
			}
			if rem < 0 || step >= ro.cap || len(net.Out(node)) == 0 {
				break
			}
			e = memo.act(node, rem, memo.d.cap-step, route)
		}
	}
}

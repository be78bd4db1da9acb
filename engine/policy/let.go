// Package policy holds ontime's native routing policies and the registry
// that `ontime bench --methods` selects them from.
package policy

import (
	"sync"

	"github.com/ontime-routing/ontime/engine"
)

// LET follows the least-expected-time path (Dijkstra on link means, with
// engine.LET's tie rule) and ignores everything it observes: the
// reference every reliability-seeking method is measured against.
type LET struct {
	net   *engine.Network
	mu    sync.RWMutex
	trees map[int]*engine.LETTree
}

// NewLET returns the LET policy, with trees built for the given destinations
// up front and for any other destination on first use.
func NewLET(net *engine.Network, destinations ...int) *LET {
	p := &LET{net: net, trees: map[int]*engine.LETTree{}}
	for _, d := range destinations {
		p.trees[d] = net.LET(d)
	}
	return p
}

// Tree returns the LET tree towards dest.
func (p *LET) Tree(dest int) *engine.LETTree {
	p.mu.RLock()
	t, ok := p.trees[dest]
	p.mu.RUnlock()
	if ok {
		return t
	}
	t = p.net.LET(dest)
	p.mu.Lock()
	p.trees[dest] = t
	p.mu.Unlock()
	return t
}

// Act takes the next link of the LET path from the current node.
func (p *LET) Act(o *engine.Observation) int {
	if e := p.Tree(o.Destination).Next[o.Node]; e >= 0 {
		return e
	}
	return p.net.Out(o.Node)[0] // the destination is unreachable: any link fails alike
}

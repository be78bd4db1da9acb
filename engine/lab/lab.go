// Package lab is what the dashboard works with: the networks it can open,
// their link-time models, and the routing methods on them, each built once
// and kept (DOT tables are solved once per destination, learners trained
// once). It knows nothing of HTTP; the server renders what it returns.
package lab

import (
	"context"
	"slices"
	"sync"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// Options say where a lab finds its data, models and caches.
type Options struct {
	DataDir   string // benchmark files ("" : only the built-in example)
	ModelsDir string // trained models ("" : models/ found upwards)
	CacheDir  string // trained learners ("" : no cache)
	ORTLib    string // ONNX Runtime library override
	Device    string // "cpu" or "cuda" for ONNX policies
	Logf      func(format string, args ...any)
}

// Lab holds the opened networks.
type Lab struct {
	opts Options
	mu   sync.Mutex
	nets map[string]*netEntry
}

type netEntry struct {
	once sync.Once
	net  *Net
	err  error
}

// New returns a lab; nothing is loaded until asked for.
func New(o Options) *Lab {
	return &Lab{opts: o, nets: map[string]*netEntry{}}
}

// NetworkInfo says whether a network can be opened, and why not.
type NetworkInfo struct {
	Name        string
	Description string
	Available   bool
	Reason      string // why it is unavailable (missing data files, …)
	Nodes       int
	Links       int
}

// Networks lists the built-in networks, in their fixed order.
func (l *Lab) Networks() []NetworkInfo {
	var out []NetworkInfo
	for _, name := range builtin.Names {
		info := NetworkInfo{Name: name, Description: builtin.Describe[name]}
		if n, err := l.Open(name); err != nil {
			info.Reason = engine.ErrorMessage(err)
		} else {
			info.Available, info.Nodes, info.Links = true, len(n.Net.Nodes), len(n.Net.Links)
		}
		out = append(out, info)
	}
	return out
}

// Open loads a built-in network and its link-time model (once).
func (l *Lab) Open(name string) (*Net, error) {
	if !slices.Contains(builtin.Names, name) {
		return nil, engine.Errorf(engine.ENOTFOUND, "unknown network %q (known: %v)", name, builtin.Names)
	}
	l.mu.Lock()
	e, ok := l.nets[name]
	if !ok {
		e = &netEntry{}
		l.nets[name] = e
	}
	l.mu.Unlock()
	e.once.Do(func() {
		net, err := builtin.Load(name, l.opts.DataDir)
		if err != nil {
			e.err = err
			return
		}
		model, err := linktime.New(net)
		if err != nil {
			e.err = err
			return
		}
		e.net = newNet(net, model, l.opts)
	})
	if e.err != nil {
		// A network whose files are missing now may be fetched later.
		l.mu.Lock()
		delete(l.nets, name)
		l.mu.Unlock()
	}
	return e.net, e.err
}

// Options returns the options the lab was made with.
func (l *Lab) Options() Options { return l.opts }

// WarmMethods are built ahead of the first request by Warm: the ones a
// comparison uses by default and whose first use is slow (DOT's tables,
// cgr's continuations, bestpath's k shortest paths).
var WarmMethods = []string{"let", "dot", "cdot", "cgr", "bestpath", "gpght", "clairvoyant"}

// Warm opens every available network and drives each warm method once per
// benchmark OD pair at the largest budget factor the pages offer, so that
// tables and caches are ready before anyone asks. It stops when ctx ends.
func (l *Lab) Warm(ctx context.Context, maxFactor float64) {
	for _, info := range l.Networks() {
		if !info.Available {
			continue
		}
		n, err := l.Open(info.Name)
		if err != nil {
			continue
		}
		for _, od := range n.Net.ODs {
			if ctx.Err() != nil {
				return
			}
			n.Compare(ctx, CompareRequest{OD: od, Factor: maxFactor, Methods: WarmMethods})
		}
	}
}

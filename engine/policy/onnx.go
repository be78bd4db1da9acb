package policy

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/ort"
)

// ONNXPolicy runs a policy model that follows the GPG-HT interface
// (models/README.md) through ONNX Runtime, one batched inference per step of
// the episodes stepping together. It acts greedily (argmax over the links
// leaving the node) unless sampling is asked for.
type ONNXPolicy struct {
	net     *engine.Network
	sess    ort.Session
	sampled bool
	mu      sync.Mutex
	err     error
}

// NewONNXPolicy opens model for net and checks that it answers for this
// network's links.
func NewONNXPolicy(net *engine.Network, model string, sampled bool, opts ...ort.Option) (*ONNXPolicy, error) {
	if _, err := os.Stat(model); err != nil {
		return nil, engine.Errorf(engine.ENOTFOUND, "model %s: %v", model, err)
	}
	s, err := ort.Open(model, opts...)
	if err != nil {
		return nil, err
	}
	p := &ONNXPolicy{net: net, sess: s, sampled: sampled}
	// One probe decision at a node with a way out: a model for another
	// network fails here, not in the middle of a benchmark.
	for i := range net.Nodes {
		if len(net.Out(i)) > 0 {
			if _, err := s.Run(p.batch([]*engine.Observation{{Node: i, Destination: i, Remaining: 1}})); err != nil {
				s.Close()
				return nil, engine.Errorf(engine.EINVALID, "model %s does not fit network %s (%d links): %v", model, net.Name, len(net.Links), err)
			}
			break
		}
	}
	return p, nil
}

// Device is where inference runs ("cpu" or "cuda").
func (p *ONNXPolicy) Device() string { return p.sess.Device() }

// Close releases the session.
func (p *ONNXPolicy) Close() error { return p.sess.Close() }

// Err is the first inference error, if any; the simulator checks it.
func (p *ONNXPolicy) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

func (p *ONNXPolicy) batch(obs []*engine.Observation) *ort.Batch {
	E := len(p.net.Links)
	L := 0
	for _, o := range obs {
		L = max(L, len(o.Prefix))
	}
	B := len(obs)
	b := &ort.Batch{B: B, L: L, E: E, Edges: make([]int64, B*L), Times: make([]float32, B*L), Pad: make([]bool, B*L),
		Cur: make([]int64, B), Dest: make([]int64, B), Budget: make([]float32, B), Step: make([]int64, B), AMask: make([]bool, B*E)}
	for i, o := range obs {
		for k := range L {
			if k < len(o.Prefix) {
				b.Edges[i*L+k], b.Times[i*L+k] = int64(o.Prefix[k].Link), float32(o.Prefix[k].Time)
			} else {
				b.Pad[i*L+k] = true
			}
		}
		b.Cur[i], b.Dest[i], b.Budget[i], b.Step[i] = int64(o.Node), int64(o.Destination), float32(o.Remaining), int64(o.Step)
		for _, e := range p.net.Out(o.Node) {
			b.AMask[i*E+e] = true
		}
	}
	return b
}

// ActBatch decides for a batch of episodes in one inference.
func (p *ONNXPolicy) ActBatch(obs []*engine.Observation, links []int) {
	out, err := p.sess.Run(p.batch(obs))
	E := len(p.net.Links)
	for i, o := range obs {
		allowed := p.net.Out(o.Node)
		links[i] = allowed[0]
		if err != nil {
			continue
		}
		probs := out.Probs[i*E : (i+1)*E]
		if p.sampled {
			u := rand.Float64()
			for _, e := range allowed {
				links[i] = e
				if u -= float64(probs[e]); u <= 0 {
					break
				}
			}
			continue
		}
		links[i] = argmaxLink(allowed, func(e int) float64 { return float64(probs[e]) })
	}
	if err != nil {
		p.mu.Lock()
		if p.err == nil {
			p.err = fmt.Errorf("onnx inference: %w", err)
		}
		p.mu.Unlock()
	}
}

// Act decides for one episode.
func (p *ONNXPolicy) Act(o *engine.Observation) int {
	links := []int{0}
	p.ActBatch([]*engine.Observation{o}, links)
	return links[0]
}

// onnxMethod is the method for "onnx:PATH": bring your own policy.
func onnxMethod(name string) (Method, bool) {
	path, ok := strings.CutPrefix(name, "onnx:")
	if !ok || path == "" {
		return Method{}, false
	}
	return Method{Name: name, Doc: "a policy model following the GPG-HT ONNX interface",
		New: func(env *Env) (engine.Policy, map[string]any, error) {
			p, err := NewONNXPolicy(env.Net, path, env.Sampled, env.ortOptions()...)
			if err != nil {
				return nil, nil, err
			}
			return p, map[string]any{"model": path, "device": p.Device(), "greedy": !env.Sampled}, nil
		}}, true
}

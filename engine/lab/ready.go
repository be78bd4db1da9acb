package lab

import (
	"sync"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/ort"
)

// warmProgress counts Warm's drives: the built-in networks' benchmark OD
// pairs, each driven once by every warm method.
type warmProgress struct {
	mu              sync.Mutex
	started, done   bool
	pairs, finished int
}

// Readiness says whether the dashboard answers at full speed: the state
// directory opens, the warm-up (tables solved, learners built for the
// benchmark pairs) has finished, and each built-in network's trained
// models load.
type Readiness struct {
	Ready   bool   `json:"ready"`
	Version string `json:"version"`
	Commit  string `json:"commit"`
	// State is "ok", or why the state directory cannot be opened.
	State string `json:"state"`
	// Warm is the warm-up's progress: pairs driven of all (done when equal,
	// or when no warm-up was asked for).
	Warm struct {
		Asked    bool `json:"asked"`
		Done     bool `json:"done"`
		Pairs    int  `json:"pairs"`
		Finished int  `json:"finished"`
	} `json:"warm"`
	Networks []NetworkReadiness `json:"networks"`
	// ONNXRuntime is the loaded library's version ("" until a model ran).
	ONNXRuntime string `json:"onnxruntime"`
}

// NetworkReadiness is one built-in network: whether it opens, and each
// of its trained models: "ready", "none: …" where none was trained (not
// counted against readiness), or why one that exists cannot run.
type NetworkReadiness struct {
	Name      string            `json:"name"`
	Available bool              `json:"available"`
	Reason    string            `json:"reason,omitempty"`
	Models    map[string]string `json:"models,omitempty"`
}

// Ready checks readiness (models are loaded once, then kept).
func (l *Lab) Ready() Readiness {
	r := Readiness{Version: l.opts.Version, Commit: l.opts.Commit, State: "ok", Networks: []NetworkReadiness{}}
	if _, err := l.store(); err != nil {
		r.State = engine.ErrorMessage(err)
	}
	w := &l.warm
	w.mu.Lock()
	r.Warm.Asked, r.Warm.Done, r.Warm.Pairs, r.Warm.Finished = w.started, w.done || !w.started, w.pairs, w.finished
	w.mu.Unlock()
	modelsOK := true
	for _, info := range l.builtinNetworks() {
		nr := NetworkReadiness{Name: info.Name, Available: info.Available, Reason: info.Reason}
		if n, err := l.Open(info.Name); err == nil {
			for _, m := range Methods() {
				if !m.NetworkModel {
					continue
				}
				if nr.Models == nil {
					nr.Models = map[string]string{}
				}
				_, err := n.Policy(m.Name)
				switch {
				case engine.ErrorCode(err) == engine.ENOTFOUND:
					// None trained for it: the method is unavailable there,
					// which no wait will change.
					nr.Models[m.Name] = "none: " + engine.ErrorMessage(err)
				case err != nil:
					nr.Models[m.Name] = engine.ErrorMessage(err)
					modelsOK = false
				default:
					nr.Models[m.Name] = "ready"
				}
			}
		}
		r.Networks = append(r.Networks, nr)
	}
	r.ONNXRuntime = ort.Version()
	r.Ready = r.State == "ok" && r.Warm.Done && modelsOK
	return r
}

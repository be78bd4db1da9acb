package policy

import (
	"slices"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/sim"
)

// Env is what a method may use to build its policy: the network, its
// link-time model, the tasks it will be evaluated on, and the benchmark
// instance (learners draw their training stream from it, never from the
// test pools).
type Env struct {
	Net     *engine.Network
	Model   *linktime.Gaussian
	Tasks   []sim.Task
	Seed    uint64 // benchmark instance (--seed)
	Sampled bool   // learned policies sample actions instead of argmax
}

// Destinations lists the distinct destinations of the tasks.
func (env *Env) Destinations() []int {
	var ds []int
	for _, t := range env.Tasks {
		if !slices.Contains(ds, t.OD.Destination) {
			ds = append(ds, t.OD.Destination)
		}
	}
	return ds
}

// Method is a routing method selectable by name.
type Method struct {
	Name string
	Doc  string
	// Bound marks an upper bound no traveller could follow (a clairvoyant):
	// reports show it but never mark it best.
	Bound bool
	// New builds the policy and reports its settings for provenance.
	New func(env *Env) (engine.Policy, map[string]any, error)
}

// Methods lists the registered methods in the order help shows them.
var Methods = []Method{
	{Name: "let", Doc: "follow the least-expected-time path",
		New: func(env *Env) (engine.Policy, map[string]any, error) {
			return NewLET(env.Net, env.Destinations()...), map[string]any{"tie_tolerance": engine.TieTolerance}, nil
		}},
	{Name: "condrule", Doc: "one-step rule: next link + LET continuation, scored by the on-time probability conditioned on the observed links",
		New: func(env *Env) (engine.Policy, map[string]any, error) {
			return NewCondRule(NewLET(env.Net, env.Destinations()...), env.Model), map[string]any{"continuation": "LET path", "correlation": env.Model.Spec.Model}, nil
		}},
}

// Lookup finds a method by name.
func Lookup(name string) (Method, error) {
	for _, m := range Methods {
		if m.Name == name {
			return m, nil
		}
	}
	names := make([]string, len(Methods))
	for i, m := range Methods {
		names[i] = m.Name
	}
	return Method{}, engine.Errorf(engine.ENOTFOUND, "unknown method %q (known: %s)", name, strings.Join(names, ", "))
}

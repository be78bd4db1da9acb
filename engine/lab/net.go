package lab

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
)

// Net is an opened network with its methods.
type Net struct {
	Net   *engine.Network
	Model *linktime.Gaussian
	env   *policy.Env
	mu    sync.Mutex
	built map[string]*builtPolicy

	// uploaded lists the network's uploaded models (set by the lab).
	uploaded func() []UserModel

	cardMu   sync.Mutex
	cardRead bool
	cardMod  time.Time // the card file's time when read
	card     *policy.ModelCard
	cardErr  error

	rates     rates // the compare page's on-time estimates
	openOnce  sync.Once
	opening   float64   // Opening's factor
	openingOD engine.OD // and pair

	// the committed report (Published), read and checked once
	publishedOnce sync.Once
	published     *bench.Report
	publishedErr  error
}

type builtPolicy struct {
	once sync.Once
	p    engine.Policy
	err  error
}

// newNet opens a network's methods; its GPG-HT model is read from
// modelsDir.
func newNet(net *engine.Network, model *linktime.Gaussian, o Options, modelsDir string) *Net {
	env := &policy.Env{Net: net, Model: model, Tasks: sim.Tasks(net, net.ODs, net.BudgetFactors()), CacheDir: o.CacheDir,
		Device: o.Device, ORTLib: o.ORTLib, Logf: o.Logf, ModelsDir: modelsDir}
	if len(net.Links) > lazyTablesLinks {
		env.SolveFor = []int{} // each destination's DOT table when a page first asks for it
	}
	return &Net{Net: net, Model: model, env: env, built: map[string]*builtPolicy{}}
}

// NewNet opens the methods of a network that is not stored (the
// performance report's whole cities), with no trained model.
func NewNet(net *engine.Network, model *linktime.Gaussian, o Options) *Net {
	return newNet(net, model, o, "")
}

// lazyTablesLinks is the size above which the dashboard solves no DOT
// table up front: on a city a table takes seconds, and a comparison of one
// pair solved the five benchmark pairs' first (77 s on a 249,000-link grid
// before its own). Below it every benchmark pair's is solved at first use,
// so the pairs the pages offer answer at once.
const lazyTablesLinks = 20000

// MethodInfo describes a method for the pickers, from the registry.
type MethodInfo struct {
	Name, Label, Doc, Reference, Color string
	// Skewed says what the method approximates under a skewed law ("": nothing).
	Skewed         string
	Bound          bool // an upper bound no traveller could follow
	Learned        bool // trained for the network's OD pairs (and budget range)
	Learner        bool // trained here, on first use, from the training stream
	Compare, Bench bool // in the default comparison / benchmark
	NetworkModel   bool // runs the network's own trained model (which may be missing)
}

// Methods lists what the dashboard offers, in the registry's order.
func Methods() []MethodInfo {
	var out []MethodInfo
	for _, m := range policy.Methods {
		if m.Offered {
			out = append(out, methodInfo(m))
		}
	}
	return out
}

func methodInfo(m policy.Method) MethodInfo {
	return MethodInfo{Name: m.Name, Label: m.Label, Doc: m.Doc, Reference: m.Reference, Skewed: m.Skewed, Color: m.Color,
		Bound: m.IsBound(), Learned: m.Trained(), Learner: m.Kind == policy.Learner, Compare: m.Compare, Bench: m.Bench, NetworkModel: m.NetworkModel}
}

// Methods lists what the dashboard offers on this network: the registry's,
// then the models users uploaded for it (user:NAME; not when stale).
func (n *Net) Methods() []MethodInfo {
	out := Methods()
	if n.uploaded == nil {
		return out
	}
	for _, m := range n.uploaded() {
		if !m.Stale {
			out = append(out, MethodInfo{Name: m.Method, Label: m.Name + " (user-provided model)", Color: policy.Color(m.Method),
				Doc: "an ONNX policy uploaded for " + n.Net.Name + " (" + m.File + ")", Learned: true})
		}
	}
	return out
}

// userModel finds an uploaded model's file (policy.Env.UserModel).
func (n *Net) userModel(name string) (string, bool) {
	if n.uploaded == nil {
		return "", false
	}
	for _, m := range n.uploaded() {
		if m.Name == name && !m.Stale {
			return m.path, true
		}
	}
	return "", false
}

// forget drops a built method (its model file changed).
func (n *Net) forget(method string) {
	n.mu.Lock()
	delete(n.built, method)
	n.mu.Unlock()
}

// ortOptions are the ONNX Runtime options the lab runs models with.
func (n *Net) ortOptions() []ort.Option {
	if n.env.ORTLib != "" {
		return []ort.Option{ort.WithLibrary(n.env.ORTLib)}
	}
	return nil
}

// Policy builds a method once (training a learner, solving tables or
// opening a model) and keeps it; concurrent callers wait for the one build.
func (n *Net) Policy(method string) (engine.Policy, error) {
	m, err := policy.Lookup(method)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	b, ok := n.built[method]
	if !ok {
		b = &builtPolicy{}
		n.built[method] = b
	}
	n.mu.Unlock()
	b.once.Do(func() {
		b.p, _, b.err = m.Build(n.env)
		if b.err != nil {
			b.err = fmt.Errorf("%s: %w", method, b.err)
		}
	})
	return b.p, b.err
}

// Built reports whether a method is already built (a first use of a
// learner trains it, which the dashboard announces).
func (n *Net) Built(method string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	b, ok := n.built[method]
	return ok && (b.p != nil || b.err != nil)
}

// Card is the model card of the network's GPG-HT model, if there is one;
// read once, like the model itself, since Scope asks for it on every
// request (until a new model replaces it: ForgetModel).
func (n *Net) Card() (*policy.ModelCard, error) {
	n.cardMu.Lock()
	defer n.cardMu.Unlock()
	// A model written by another process (ontime train beside a running
	// dashboard) is picked up when its card changes.
	var mod time.Time
	if n.cardRead && n.card != nil {
		if fi, err := os.Stat(strings.TrimSuffix(n.card.Path, ".onnx") + ".card.json"); err == nil {
			mod = fi.ModTime()
		}
		if !mod.Equal(n.cardMod) {
			n.cardRead = false
			n.forget(policy.NetworkModelName())
		}
	}
	if n.cardRead && n.card == nil {
		n.cardRead = false // no model yet: look again (cheap), and drop a failed build when one appears
	}
	if !n.cardRead {
		had := n.card != nil
		n.card, n.cardErr = policy.ReadModelCard(n.env.ModelsDir, n.Net.Name, "")
		if n.card != nil && !had {
			n.forget(policy.NetworkModelName())
		}
		n.cardRead, n.cardMod = true, time.Time{}
		if n.card != nil {
			if fi, err := os.Stat(strings.TrimSuffix(n.card.Path, ".onnx") + ".card.json"); err == nil {
				n.cardMod = fi.ModTime()
			}
		}
	}
	return n.card, n.cardErr
}

// ModelsDir is where the network's GPG-HT model is read from.
func (n *Net) ModelsDir() string { return n.env.ModelsDir }

// ForgetModel drops the network's GPG-HT model and card, so the next use
// reads the file anew (a training job has just replaced it). A policy in
// use by a running stream stays valid: ONNX sessions are not closed here.
func (n *Net) ForgetModel() {
	n.mu.Lock()
	delete(n.built, policy.NetworkModelName())
	n.mu.Unlock()
	n.cardMu.Lock()
	n.cardRead = false
	n.cardMu.Unlock()
}

// trainedFor reports whether the learners have a table for destination d
// (they are trained for the destinations of the network's OD pairs).
func (n *Net) trainedFor(d int) bool {
	return slices.ContainsFunc(n.env.Tasks, func(t sim.Task) bool { return t.OD.Destination == d })
}

// Scope says whether a method was trained for this request: "" when it
// was, otherwise why the request is outside what it learned (the
// dashboard flags it; learners are not run outside their destinations).
func (n *Net) Scope(method string, od engine.OD, factor float64) string {
	switch {
	case policy.IsLearner(method):
		if !n.trainedFor(od.Destination) {
			return fmt.Sprintf("%s was trained for the destinations of %s's OD pairs only", method, n.Net.Name)
		}
		if fs := n.Net.BudgetFactors(); factor > slices.Max(fs)+1e-9 || factor < slices.Min(fs)-1e-9 {
			return fmt.Sprintf("%s was trained for budgets %.2f–%.2f × LET; %.2f is outside", method,
				slices.Min(fs), slices.Max(fs), factor)
		}
	default:
		if c := n.Cover(method); c != nil {
			return c.Outside(n.Net, od, factor)
		}
	}
	return ""
}

// Cover is what method was trained for on this network (nil: it is not a
// trained model, or it has no card): the network's own model's card is
// read once (Card).
func (n *Net) Cover(method string) *policy.Cover {
	if method == policy.NetworkModelName() {
		card, err := n.Card()
		if err != nil {
			return nil
		}
		return card.Cover(method)
	}
	return policy.CoverOf(n.env, method)
}

// Runnable is false when a method must not run for this OD pair (a learner
// with no table for the destination).
func (n *Net) Runnable(method string, od engine.OD) bool {
	return !policy.IsLearner(method) || n.trainedFor(od.Destination)
}

// Colors maps each of methods to its colour.
func Colors(methods []string) map[string]string {
	out := make(map[string]string, len(methods))
	for _, m := range methods {
		out[m] = policy.Color(m)
	}
	return out
}

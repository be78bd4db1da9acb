package policy

import (
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/ort"
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
	// DOTDelta is DOT's grid step in minutes; 0 picks the default.
	DOTDelta float64
	// CacheDir holds trained learners between runs ("" disables the cache).
	CacheDir string
	// Device is "cpu" or "cuda" for ONNX policies; ORTLib overrides the
	// ONNX Runtime library; Logf receives the CUDA fallback line.
	Device string
	ORTLib string
	Logf   func(format string, args ...any)
	// ModelsDir holds trained models (default: models/ found upwards).
	ModelsDir string

	dotOnce sync.Once
	dot     *DOT
}

// MaxBudget returns the largest budget asked for each destination.
func (env *Env) MaxBudget() map[int]float64 {
	m := map[int]float64{}
	for _, t := range env.Tasks {
		m[t.OD.Destination] = math.Max(m[t.OD.Destination], t.Budget)
	}
	return m
}

// DefaultDOTDelta is a thousandth of the largest budget asked, at most the
// link-time floor (so every link takes at least one step): 0.049 min on
// Sioux Falls at factor 1.05, where halving it moves no result by more than
// 0.002.
func (env *Env) DefaultDOTDelta() float64 {
	if env.DOTDelta > 0 {
		return env.DOTDelta
	}
	hi := 0.0
	for _, b := range env.MaxBudget() {
		hi = math.Max(hi, b)
	}
	return math.Min(linktime.Floor, hi/1000)
}

// DOT returns the DOT tables for the tasks, solved once and shared by the
// methods that use them (dot, cdot).
func (env *Env) DOT() *DOT {
	env.dotOnce.Do(func() {
		env.dot = NewDOT(env.Net, env.Model, env.DefaultDOTDelta())
		for d, b := range env.MaxBudget() {
			env.dot.Solve(d, b)
		}
	})
	return env.dot
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

func init() {
	Methods = append(Methods,
		Method{Name: "dot", Doc: "Prakash's time-discretized SOTA dynamic program on the marginal link laws",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				d := env.DOT()
				return d, map[string]any{"delta": d.Delta, "step_cap": env.Net.StepCap, "uses": "marginals"}, nil
			}},
		Method{Name: "fma", Doc: "fourth-moment approach: path local search from LET on the sharp four-moment lateness bound",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				return newFMA(env, 100), map[string]any{"iterations": 100, "bound": "sharp 4-moment LP on a 241-point grid", "uses": "marginals"}, nil
			}},
		Method{Name: "mlr", Doc: "sample path MIP by Lagrangian relaxation (Yang & Zhou 2017) on K training realizations",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				return newMLR(env, 1000, 30), map[string]any{"samples": 1000, "iterations": 30, "training": "stream batch 0"}, nil
			}},
		Method{Name: "cgr", Doc: "correlation-aware replanning: condition on observed links, best of k-shortest continuations",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				return NewCGR(env.Net, env.Model, 10), map[string]any{"k": 10, "correlation": env.Model.Spec.Model}, nil
			}},
		Method{Name: "cdot", Doc: "DOT with the next link's law conditioned on the observed links",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				d := env.DOT()
				return &CDOT{dot: d, model: env.Model}, map[string]any{"delta": d.Delta, "tables": "dot's"}, nil
			}},
		Method{Name: "bestpath", Doc: "best a-priori path: highest exact Gaussian on-time probability among the k shortest by mean",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				return newBestPath(env, 200), map[string]any{"k": 200, "covariance": "full"}, nil
			}},
		Method{Name: "pql", Doc: "Q-learning for SOTA (Cao et al. 2020) on (node, budget bin, next link), one table per destination",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				s := pqlSettings{Samples: 300, Bins: 600, MaxSweeps: max(env.Net.StepCap, 12) + 8}
				p, hit, err := newPQL(env, s)
				return p, map[string]any{"samples": s.Samples, "bins": s.Bins, "max_sweeps": s.MaxSweeps, "per": "destination", "cached": hit}, err
			}},
		Method{Name: "ctd", Doc: "cascaded TD learning (Guo et al. 2022) of cost-to-go mean and second moment; acts on Φ((b−μ)/σ)",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				s := ctdSettings{Samples: 1000, MaxSweeps: 4 * len(env.Net.Nodes), Zeta: 1}
				p, hit, err := newCTD(env, s)
				return p, map[string]any{"samples": s.Samples, "zeta": s.Zeta, "per": "destination", "cached": hit}, err
			}},
		Method{Name: "segac", Doc: "SEGAC (Guo et al. 2024): Markov MLP policy, critic, generalized PG with replay, LET fallback; DOT warm start",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				return newSEGACMethod(env, segacSettings{Teacher: "dot", Hidden: 64, WarmIters: 1000, Iters: 1500, Batch: 256, Replay: 8,
					LR: 3e-4, CriticLR: 3e-3, Entropy: 0.001, RhoMax: 2, Explore: 0.05})
			}},
		Method{Name: "segac-let", Doc: "SEGAC with its own code's LET warm start",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				return newSEGACMethod(env, segacSettings{Teacher: "let", Hidden: 64, WarmIters: 20, Iters: 3000, Batch: 256, Replay: 8,
					LR: 1e-3, CriticLR: 3e-3, Entropy: 0.003, RhoMax: 2, Explore: 0.1})
			}},
		gpghtMethod(""),
		Method{Name: "clairvoyant", Bound: true, Doc: "upper bound: the hop-capped shortest realized path of each realization",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				return NewClairvoyant(env.Net), map[string]any{"step_cap": env.Net.StepCap}, nil
			}},
	)
	for _, a := range Ablations {
		Methods = append(Methods, gpghtMethod(a))
	}
}

func (env *Env) ortOptions() []ort.Option {
	var opts []ort.Option
	if env.ORTLib != "" {
		opts = append(opts, ort.WithLibrary(env.ORTLib))
	}
	if env.Device == "cuda" {
		opts = append(opts, ort.WithCUDA(0))
	}
	if env.Logf != nil {
		opts = append(opts, ort.WithLog(env.Logf))
	}
	return opts
}

// Lookup finds a method by name; "onnx:PATH" names a model file.
func Lookup(name string) (Method, error) {
	if m, ok := onnxMethod(name); ok {
		return m, nil
	}
	for _, m := range Methods {
		if m.Name == name {
			return m, nil
		}
	}
	names := make([]string, len(Methods))
	for i, m := range Methods {
		names[i] = m.Name
	}
	return Method{}, engine.Errorf(engine.ENOTFOUND, "unknown method %q (known: %s, onnx:PATH)", name, strings.Join(names, ", "))
}

func newSEGACMethod(env *Env, s segacSettings) (engine.Policy, map[string]any, error) {
	p, hit, err := newSEGAC(env, s)
	if err != nil {
		return nil, nil, err
	}
	return p, map[string]any{"teacher": s.Teacher, "hidden": s.Hidden, "warm_iters": s.WarmIters, "iters": s.Iters,
		"batch": s.Batch, "replay_batches": s.Replay, "lr": s.LR, "critic_lr": s.CriticLR, "entropy": s.Entropy,
		"rho_max": s.RhoMax, "explore": s.Explore, "per": "one network, destination as input", "cached": hit,
		"greedy": !env.Sampled, "curve": p.Model.Curve}, nil
}

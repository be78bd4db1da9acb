package policy

import (
	"context"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/sim"
)

// Env is what a method may use to build its policy: the network, its
// link-time model, the tasks it will be evaluated on, and the benchmark
// instance (learners draw their training stream from it, never from the
// test pools).
// Err is why training must stop (the Env's context ended), or nil.
func (env *Env) Err() error {
	if env.Ctx == nil {
		return nil
	}
	return env.Ctx.Err()
}

type Env struct {
	Net     *engine.Network
	Model   *linktime.Gaussian
	Tasks   []sim.Task
	Seed    uint64 // benchmark instance (--seed)
	Sampled bool   // learned policies sample actions instead of argmax
	// DOTDelta is DOT's grid step in minutes; 0 picks the default.
	DOTDelta float64
	// DOTRounding names DOT's rule of DOTRoundings; "" picks by
	// DOTRoundingFor.
	DOTRounding string
	// CacheDir holds trained learners between runs ("" disables the cache).
	CacheDir string
	// Device is "cpu" or "cuda" for ONNX policies; ORTLib overrides the
	// ONNX Runtime library; Logf receives the CUDA fallback line.
	Device string
	ORTLib string
	Logf   func(format string, args ...any)
	// ModelsDir holds trained models (default: models/ found upwards).
	ModelsDir string
	// RolloutBase is rollout's base policy (dot, cdot or cgr; "": the best
	// on the validation pool); RolloutSamples its draws a decision (0: the
	// default).
	RolloutBase    string
	RolloutSamples int
	// RolloutZ, when set, is rollout's evidence to leave its base (nil:
	// RolloutZ; 0: plain argmax, ties to the base).
	RolloutZ *float64
	// UserModel finds a user's uploaded model by name (method "user:NAME");
	// nil when there are none.
	UserModel func(name string) (path string, ok bool)
	// SolveFor, when set, lists the destinations whose tables are solved up
	// front (the others when first asked); nil solves every task's. A part
	// of a sweep evaluates some OD pairs of a benchmark whose tasks are all
	// in Tasks (the tables' extent and the learners' cache keys depend on
	// them) and solves only what it uses.
	SolveFor []int
	// Ctx, when set, stops a learner's training within a sweep or an
	// iteration of its end (a canceled job); nil: training runs to the end.
	Ctx context.Context

	dotOnce sync.Once
	dot     *DOT
	// wholeTables, set by tests, gives its DOT whole tables (DOT.wholeTables).
	wholeTables bool
	gridOnce    sync.Once
	grid        DOTGrid
	timedOnce   sync.Once
	timedDOT    *TimedDOT
}

// MaxBudget returns the largest budget asked for each destination.
func (env *Env) MaxBudget() map[int]float64 {
	m := map[int]float64{}
	for _, t := range env.Tasks {
		m[t.OD.Destination] = math.Max(m[t.OD.Destination], t.Budget)
	}
	return m
}

// DefaultDOTDelta is DOT's step for the tasks (DOTGrid).
func (env *Env) DefaultDOTDelta() float64 { return env.DOTGrid().Delta }

// DOTGrid is DOT's step and rounding for the tasks, worked out once.
//
// The step starts at a thousandth of the largest budget asked: the grid
// follows the network's own time scale, so a network whose times are all
// multiplied by 60 (minutes read as seconds) gets the same table, bin for
// bin, and the same decisions. It was min(0.1 min, that): the paper's
// absolute floor made a network whose trips run to thousands of minutes
// solve 124,000 bins a destination (Munich from the TNTP collection).
// 0.049 min on Sioux Falls at factor 1.05, where halving it moves no result
// by more than 0.002; the paper's networks never met the old floor, so
// their numbers stand. Where rounding up at that step adds too much along
// the pairs' LET paths, DOTGridFor splits times instead and halves the
// step (DOTRoundings says why). DOTDelta fixes the step (the rounding is
// still chosen at it); DOTRounding fixes the rule.
func (env *Env) DOTGrid() DOTGrid {
	env.gridOnce.Do(func() {
		base, fixed := env.DOTDelta, env.DOTDelta > 0
		if !fixed {
			for _, b := range env.MaxBudget() {
				base = math.Max(base, b)
			}
			base /= 1000
		}
		ods := make([]engine.OD, len(env.Tasks))
		for i, t := range env.Tasks {
			ods[i] = t.OD
		}
		env.grid = DOTGridFor(env.Net, env.Model, base, fixed, env.DOTRounding, ods)
		if env.grid.Excess > DOTExcessLimit && env.Logf != nil {
			env.Logf("dot: its grid adds %.1f%% of a pair's LET time along its LET path at step %.4g min (%s rounding); a smaller --dot-delta lowers it, at more solve time",
				100*env.grid.Excess, env.grid.Delta, env.grid.Rounding)
		}
	})
	return env.grid
}

// NewDOT is an unsolved DOT at the tasks' step and rounding.
func (env *Env) NewDOT() *DOT {
	g := env.DOTGrid()
	d := NewDOTRounding(env.Net, env.Model, g.Delta, g.Rounding)
	d.wholeTables = env.wholeTables
	return d
}

// DOT returns the DOT tables for the tasks, solved once and shared by the
// methods that use them (dot, cdot).
func (env *Env) DOT() *DOT {
	env.dotOnce.Do(func() {
		env.dot = env.NewDOT()
		env.dot.Ctx = env.Ctx
		budgets := env.MaxBudget()
		maps.DeleteFunc(budgets, func(d int, _ float64) bool { return env.SolveFor != nil && !slices.Contains(env.SolveFor, d) })
		solveTables(env.dot, budgets)
	})
	return env.dot
}

// solveTables solves d's table towards each destination up to its budget,
// one destination a core at a time (a city's take seconds each).
func solveTables(d *DOT, budgets map[int]float64) {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for dest, b := range budgets {
		g.Go(func() error { d.Solve(dest, b); return nil })
	}
	_ = g.Wait()
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

// Kind says how a method gets its policy.
type Kind string

const (
	Planner Kind = "planner" // solved from the link-time law, nothing trained
	Learner Kind = "learner" // trained on the training stream, per destination of the network's OD pairs
	Model   Kind = "model"   // a trained ONNX model read from the models directory
	Bound   Kind = "bound"   // an upper bound no traveller could follow (a clairvoyant)
)

// Method is a routing method selectable by name. The registry below is the
// one list of methods: the CLI, the benchmark and the dashboard all read
// their names, labels, colours and defaults from it.
type Method struct {
	Name string
	// Label is a one-line plain explanation shown beside the name.
	Label string
	// Doc says what ontime implements, for help and provenance.
	Doc string
	// Reference cites the method's source.
	Reference string
	// Skewed says what the method approximates under a skewed law
	// (log-normal, fitted: a Gaussian copula whose marginals are not
	// normal); "" where it uses the law as it is (sampled or exact).
	Skewed string
	// Color is the method's fixed colour on every page and plot.
	Color string
	Kind  Kind
	// Offered: the dashboard lists it (controls and variants are CLI only).
	Offered bool
	// Compare: in the dashboard's default comparison; Bench: in the default
	// benchmark table; Warm: built when the dashboard starts (slow first use).
	Compare, Bench, Warm bool
	// NetworkModel: the policy is the network's own trained model (its file
	// and card in the models directory), which callers read again when a
	// training job replaces it, and whose card says what it was trained for.
	NetworkModel bool
	// TeachOrder > 0: a default teacher of the trained model's imitation
	// phase, listed in this order (a tie at a pair and budget goes to the
	// first).
	TeachOrder int
	// RolloutBase: rollout (and the trainer's labeller) may follow it.
	RolloutBase bool
	// Lessons gives the method's role in each lesson that shows it
	// (lesson → role), so the pages ask for "the adaptive methods of the
	// adapt lesson", not for names.
	Lessons map[string]string
	// Cover, for a method trained for some OD pairs and budgets, is what
	// it was trained for (nil: it is not, or its card cannot be read,
	// which building it reports).
	Cover func(env *Env) *Cover
	// New builds the policy and reports its settings for provenance.
	New func(env *Env) (engine.Policy, map[string]any, error)
	// Timed builds the policy on a network whose law changes over the day
	// (engine.Network.Timed), each task's departure in its Depart; nil: the
	// method does not know the clock, and Build refuses it there, saying
	// why (NoClock), never answering as if the day were static.
	Timed func(env *Env) (engine.Policy, map[string]any, error)
	// NoClock says why a method without Timed cannot read the clock.
	NoClock string
	// LeastBudget, where the method's own tables answer "how much time for
	// an on-time rate of alpha" exactly, gives that budget on od (searched
	// up to maxBudget) and the tables' step; ok is false out of reach. nil:
	// the budget is found by simulation only.
	LeastBudget func(env *Env, od engine.OD, alpha, maxBudget float64) (budget, step float64, ok bool)
}

// Build builds the method's policy for env: its Timed build on a network
// whose law changes over the day, else New.
func (m Method) Build(env *Env) (engine.Policy, map[string]any, error) {
	if env.Net.Timed() {
		if m.Timed == nil {
			why := m.NoClock
			if why == "" {
				why = "it is built for a law that is the same at every hour"
			}
			return nil, nil, engine.Errorf(engine.EINVALID, "method %s does not know the clock: %s; on %s, whose law changes over the day, its answer would be the static one's. Methods that know the clock: %s",
				m.Name, why, env.Net.Name, strings.Join(TimedMethods(), ", "))
		}
		return m.Timed(env)
	}
	return m.New(env)
}

// TimedMethods lists the methods that know the clock.
func TimedMethods() []string { return namesWhere(func(m Method) bool { return m.Timed != nil }) }

// NetworkModelMethod is the method that runs the network's own trained
// model.
func NetworkModelMethod() (Method, bool) {
	i := slices.IndexFunc(Methods, func(m Method) bool { return m.NetworkModel })
	if i < 0 {
		return Method{}, false
	}
	return Methods[i], true
}

// NetworkModelName is NetworkModelMethod's name ("" when there is none).
func NetworkModelName() string {
	m, _ := NetworkModelMethod()
	return m.Name
}

// namesWhere lists, in registry order, the methods for which keep holds.
func namesWhere(keep func(Method) bool) []string {
	var out []string
	for _, m := range Methods {
		if keep(m) {
			out = append(out, m.Name)
		}
	}
	return out
}

// DefaultTeachers are the imitation phase's teachers when none are named.
func DefaultTeachers() []string {
	ms := slices.DeleteFunc(slices.Clone(Methods), func(m Method) bool { return m.TeachOrder <= 0 })
	slices.SortStableFunc(ms, func(a, b Method) int { return a.TeachOrder - b.TeachOrder })
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return names
}

// RolloutBases are the policies rollout may follow.
func RolloutBases() []string { return namesWhere(func(m Method) bool { return m.RolloutBase }) }

// LessonMethods are the methods a lesson shows, in registry order, with
// their roles in it.
func LessonMethods(lesson string) map[string]string {
	out := map[string]string{}
	for _, m := range Methods {
		if r, ok := m.Lessons[lesson]; ok {
			out[m.Name] = r
		}
	}
	return out
}

// LessonNames are the names of a lesson's methods in registry order; with
// roles given, only those playing one of them.
func LessonNames(lesson string, roles ...string) []string {
	return namesWhere(func(m Method) bool {
		r, ok := m.Lessons[lesson]
		return ok && (len(roles) == 0 || slices.Contains(roles, r))
	})
}

// IsBound reports whether the method is an upper bound (reports show it but
// never mark it best, and it is outside every Holm family).
func (m Method) IsBound() bool { return m.Kind == Bound }

// Trained reports whether the method is trained (learners and models).
func (m Method) Trained() bool { return m.Kind == Learner || m.Kind == Model }

// IsLearner reports whether the named method is a learner: trained per
// destination on the training stream, its build taking minutes (false for
// a name not registered).
func IsLearner(name string) bool {
	m, err := Lookup(name)
	return err == nil && m.Kind == Learner
}

// Methods lists the registered methods in the order pickers and help show
// them. Colours are from the Okabe–Ito and Tol colour-blind-safe palettes.
var Methods []Method

func init() {
	Methods = []Method{
		{Name: "let", Label: "the route fastest on average", Color: "#7f7f7f", Lessons: map[string]string{"data": "marginal", "adapt": "fixed", "history": "baseline"}, Kind: Planner, Offered: true, Warm: true, Compare: true, Bench: true,
			Doc:       "follow the least-expected-time path",
			Reference: "Least-expected-time path (Dijkstra on mean link times); ties broken by fewest links, then link ids.",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				return NewLET(env.Net, env.Destinations()...), map[string]any{"tie_tolerance": engine.TieTolerance}, nil
			},
			Timed: func(env *Env) (engine.Policy, map[string]any, error) {
				return NewTimedLET(env.Net), map[string]any{"clock": "time-dependent LET path for the departure"}, nil
			}},
		{Name: "dot", Label: "the best adaptive plan from each link's own law", Color: "#0072b2", RolloutBase: true, Lessons: map[string]string{"data": "marginal", "adapt": "adaptive"}, Kind: Planner, Offered: true, Warm: true, Compare: true, Bench: true,
			Skewed:    "nothing: each link's own law is binned exactly, whatever its shape",
			Doc:       "Prakash's time-discretized SOTA dynamic program on the marginal link laws",
			Reference: "Prakash (2020), Algorithms for most reliable routes on stochastic and time-dependent networks, Transportation Research Part B 138, 202–220: the SOTA recursion swept in decreasing order of time on a grid.",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				d := env.DOT()
				return d, map[string]any{"delta": d.Delta, "rounding": d.Rounding(), "grid_excess": env.DOTGrid().Excess, "step_cap": env.Net.EpisodeCap(), "uses": "marginals"}, nil
			},
			LeastBudget: func(env *Env, od engine.OD, alpha, maxBudget float64) (float64, float64, bool) {
				d := env.DOT()
				b, ok := d.LeastBudget(od.Destination, od.Origin, alpha, maxBudget)
				return b, d.Delta, ok
			},
			Timed: func(env *Env) (engine.Policy, map[string]any, error) {
				d := env.TimedDOT()
				return d, map[string]any{"delta": d.Delta, "rounding": "up", "clock": "time-dependent DP to each task's deadline"}, nil
			}},
		{Name: "cdot", Label: "dot, updated by the times seen so far", Color: "#0089a8", TeachOrder: 2, RolloutBase: true, Lessons: map[string]string{"data": "conditions", "adapt": "adaptive"}, Kind: Planner, Offered: true, Warm: true, Bench: true,
			Skewed:    "nothing for the next link (its law given the times seen is exact in the latent Gaussian, then binned); the links after it as dot",
			Doc:       "DOT with the next link's law conditioned on the observed links",
			Reference: "ontime's variant of DOT: the next link's law conditioned on the links already observed (the rest of the route as DOT's tables).",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				d := env.DOT()
				return &CDOT{dot: d, model: env.Model, conds: newCondCache(env.Model)}, map[string]any{"delta": d.Delta, "rounding": d.Rounding(), "tables": "dot's"}, nil
			},
			Timed: func(env *Env) (engine.Policy, map[string]any, error) {
				d := env.TimedDOT()
				return NewTimedCDOT(d, env.Model), map[string]any{"delta": d.Delta, "tables": "the time-dependent dot's", "clock": "the next link's law given the times seen, read at the hour it is entered"}, nil
			}},
		{Name: "cgr", Label: "re-plans at every node from what it has seen", Color: "#009e73", TeachOrder: 1, RolloutBase: true, Lessons: map[string]string{"data": "conditions"}, Kind: Planner, Offered: true, Warm: true, Compare: true, Bench: true,
			Skewed:    "each continuation's time as a Gaussian: every skewed link linearized (its exact mean and SD, its latent correlation), so the sum's skew is lost and a conditional mean moves linearly",
			Doc:       "correlation-aware replanning: condition on observed links, best of k-shortest continuations",
			Reference: "ontime's conditional Gaussian re-planning, in the spirit of GP4 (Gao, Guo & Sheng, IEEE Transactions on Vehicular Technology 2021): at every node, the best of k continuations under the law conditioned on what was observed.",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				k := CGRK(env.Net)
				settings := map[string]any{"k": k, "correlation": env.Model.Spec.Model}
				if k == 1 {
					settings["continuations"] = "the LET path (network over the Yen limit)"
				}
				return NewCGR(env.Net, env.Model, k), settings, nil
			},
			Timed: func(env *Env) (engine.Policy, map[string]any, error) {
				k := CGRK(env.Net)
				return NewTimedCGR(env.Net, env.Model, k), map[string]any{"k": k, "correlation": env.Model.Spec.Model, "clock": "the times seen read back at their hours; each route link's law at the hour it is expected to be entered"}, nil
			}},
		{Name: "fma", NoClock: "its moment sums read each link's law at no particular hour", Label: "a fixed route chosen by its lateness bound", Color: "#ee0044", Kind: Planner, Offered: true, Bench: true,
			Skewed:    "nothing in a link's moments (each link's exact four moments under its law); the path's moments add them as if links were independent, as under any law",
			Doc:       "fourth-moment approach: path local search from LET on the sharp four-moment lateness bound",
			Reference: "Fourth-moment approach to navigation with time limits (sharp moment bound on the path's lateness; ontime solves the bound as a linear programme).",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				return newFMA(env, 100), map[string]any{"iterations": 100, "bound": "sharp 4-moment LP on a 241-point grid", "uses": "marginals"}, nil
			}},
		{Name: "mlr", NoClock: "its sampled route times are static draws, not times at the hour a link is entered", Label: "a fixed route that did best on 1000 sampled days", Color: "#cc79a7", Kind: Planner, Offered: true, Bench: true,
			Doc:       "sample path MIP by Lagrangian relaxation (Yang & Zhou 2017) on K training realizations",
			Reference: "Scenario mixed-integer model solved by Lagrangian relaxation (Yang & Zhou 2017, Transportation Research Part B 96, 68–91).",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				return newMLR(env, 1000, 30), map[string]any{"samples": 1000, "iterations": 30, "training": "stream batch 0"}, nil
			}},
		{Name: "bestpath", NoClock: "it scores fixed routes on static draws", Label: "the fixed route most likely to be on time", Color: "#882255", Lessons: map[string]string{"data": "marginal", "adapt": "fixed"}, Kind: Planner, Offered: true, Warm: true, Bench: true,
			Skewed:    "each path's time as a Gaussian of its exact mean and the linearized covariance, so a skewed path's on-time probability is approximate",
			Doc:       "best a-priori path: highest exact Gaussian on-time probability among the k shortest by mean",
			Reference: "Best a-priori path: the highest exact Gaussian on-time probability among the k shortest paths by mean (Yen).",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				settings := map[string]any{"k": 200, "covariance": "full"}
				if len(env.Net.Links) > BestPathLinkLimit {
					settings["corridor"] = fmt.Sprintf("Yen's search on the nodes a path among the k shortest can cross, at most %d links; where more lie outside, the shortest paths within the widest such corridor", BestPathLinkLimit)
				}
				return newBestPath(env, 200), settings, nil
			}},
		{Name: "pql", NoClock: "it learned on static draws", Label: "Q-learning on (node, budget left)", Color: "#999933", Kind: Learner, Offered: true, Bench: true,
			Doc:       "Q-learning for SOTA (Cao et al. 2020) on (node, budget bin, next link), one table per destination",
			Reference: "Cao, Guo, Song, Gao, Chen, Zhang & Zhang (2020), Using reinforcement learning to minimize the probability of delay occurrence in transportation, IEEE Transactions on Vehicular Technology 69(3).",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				s := pqlSettings{Samples: 300, Bins: 600, MaxSweeps: max(env.Net.EpisodeCap(), 12) + 8}
				p, hit, err := newPQL(env, s)
				return p, map[string]any{"samples": s.Samples, "bins": s.Bins, "max_sweeps": s.MaxSweeps, "per": "destination", "cached": hit}, err
			}},
		{Name: "ctd", NoClock: "it learned on static draws", Label: "learns each node's mean and spread of time to go", Color: "#117733", Kind: Learner, Offered: true, Bench: true,
			Skewed:    "acts on Φ((b − μ)/σ) of the learned cost-to-go mean and spread: a Gaussian reading of a skewed time to go",
			Doc:       "cascaded TD learning (Guo et al. 2022) of cost-to-go mean and second moment; acts on Φ((b−μ)/σ)",
			Reference: "Guo, Hou & Peng (2022), Cascaded temporal difference learning for the mean–standard-deviation shortest path, IEEE Transactions on Intelligent Transportation Systems.",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				s := ctdSettings{Samples: 1000, MaxSweeps: 4 * len(env.Net.Nodes), Zeta: 1}
				p, hit, err := newCTD(env, s)
				return p, map[string]any{"samples": s.Samples, "zeta": s.Zeta, "per": "destination", "cached": hit}, err
			}},
		{Name: "segac", NoClock: "it learned on static draws", Label: "a neural policy trained on on-time outcomes", Color: "#9467bd", Kind: Learner, Offered: true, Bench: true,
			Doc:       "SEGAC (Guo et al. 2024): Markov MLP policy, critic, generalized PG with replay, LET fallback; DOT warm start",
			Reference: "SE-GAC: generalized actor-critic with a terminal on-time reward (Guo et al.; github.com/YoZo-X/SEGAC); ontime warm-starts it from DOT.",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				return newSEGACMethod(env, segacSettings{Teacher: "dot", Hidden: 64, WarmIters: 1000, Iters: 1500, Batch: 256, Replay: 8,
					LR: 3e-4, CriticLR: 3e-3, Entropy: 0.001, RhoMax: 2, Explore: 0.05})
			}},
		{Name: "segac-let", NoClock: "it learned on static draws", Label: "segac started from the fastest route", Color: "#8a6d3b", Kind: Learner,
			Doc:       "SEGAC with its own code's LET warm start",
			Reference: "SE-GAC with the LET warm start of its authors' code.",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				return newSEGACMethod(env, segacSettings{Teacher: "let", Hidden: 64, WarmIters: 20, Iters: 3000, Batch: 256, Replay: 8,
					LR: 1e-3, CriticLR: 3e-3, Entropy: 0.003, RhoMax: 2, Explore: 0.1})
			}},
		gpghtMethod(""),
		{Name: "rollout", NoClock: "it rolls out cdot, cgr or dot's static tables", Label: "tries each next link in sampled futures, then follows a planner", Color: "#332288", Lessons: map[string]string{"data": "conditions"}, Kind: Planner, Offered: true,
			Doc:       "Bertsekas' rollout: each next link scored by the on-time rate of 'take it, then follow the base (dot, cdot or cgr)' on conditional draws of the unseen links",
			Reference: "Bertsekas, Tsitsiklis & Wu (1997), Rollout algorithms for combinatorial optimization, Journal of Heuristics 3, 245–262; Bertsekas (2019), Reinforcement Learning and Optimal Control, ch. 2. Never worse than its base in expectation.",
			New:       newRolloutMethod},
		{Name: "condrule", NoClock: "its rule reads static conditional laws", Label: "next link scored by the odds given what was seen", Color: "#661100", Lessons: map[string]string{"data": "conditions", "history": "rule"}, Kind: Planner, Offered: true,
			Skewed:    "the next link and LET continuation summed as a Gaussian (skewed links linearized)",
			Doc:       "one-step rule: next link + LET continuation, scored by the on-time probability conditioned on the observed links",
			Reference: "The five-node example's closed-form optimum, generalized: at each node, the next link whose on-time probability (next link, then the LET path) is highest given the observed times.",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				return NewCondRule(NewLET(env.Net, env.Destinations()...), env.Model), map[string]any{"continuation": "LET path", "correlation": env.Model.Spec.Model}, nil
			}},
		{Name: "clairvoyant", Label: "knows every time in advance: an upper bound", Color: "#000000", Kind: Bound, Offered: true, Warm: true, Bench: true,
			Doc:       "upper bound: the hop-capped shortest realized path of each realization",
			Reference: "Not a policy: the shortest realized path of each realization, as if every time were known before leaving. It bounds every method from above.",
			New: func(env *Env) (engine.Policy, map[string]any, error) {
				return NewClairvoyant(env.Net), map[string]any{"step_cap": env.Net.EpisodeCap()}, nil
			},
			Timed: func(env *Env) (engine.Policy, map[string]any, error) {
				return NewClairvoyant(env.Net), map[string]any{"step_cap": env.Net.EpisodeCap(), "clock": "earliest arrival on the realized day"}, nil
			}},
	}
	for _, a := range Ablations {
		Methods = append(Methods, gpghtMethod(a))
	}
}

// Color is a method's colour: the registry's, or a stable colour derived
// from the name for others (onnx:PATH).
func Color(name string) string {
	if m, err := Lookup(name); err == nil && m.Color != "" {
		return m.Color
	}
	h := 0
	for _, r := range name {
		h = h*31 + int(r)
	}
	return fmt.Sprintf("hsl(%d, 60%%, 30%%)", (h%360+360)%360)
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
	if m, ok := userMethod(name); ok {
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

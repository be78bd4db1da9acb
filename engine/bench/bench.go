// Package bench evaluates routing methods on common sample pools: every
// method meets the same joint realizations, so differences between methods
// are paired, and the report carries paired t tests with Holm's correction.
package bench

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/split"
	"github.com/ontime-routing/ontime/engine/stats"
)

// Config is one benchmark run.
type Config struct {
	Net      *engine.Network
	Model    *linktime.Gaussian
	Methods  []string
	Focus    string    // the Holm family is Focus against every other method; default Methods[0]
	Budgets  []float64 // factors of each OD pair's LET time
	ODs      []engine.OD
	Pools    int
	PoolSize int
	// Purpose is whose pools are evaluated on: sim.Test (the default), or
	// sim.Validation to choose settings without seeing a test result.
	Purpose  string
	Seed     uint64 // benchmark instance; 0 is the published one
	Sampled  bool
	DOTDelta float64 // DOT's grid step; 0 picks the default
	// DOTRounding names DOT's rule of policy.DOTRoundings ("": chosen with
	// the step, policy.DOTGridFor).
	DOTRounding string
	// RolloutBase and RolloutSamples set rollout's base policy and draws
	// ("" and 0: chosen on the validation pool, and the base's default).
	RolloutBase    string
	RolloutSamples int
	// RolloutZ, when set, is the evidence rollout needs to leave its base's
	// link (nil: policy.RolloutZ; 0: plain argmax on the draws, ties to
	// the base).
	RolloutZ *float64
	// Depart and ArriveBy ask a network whose law changes over the day
	// (minutes after midnight; nil: its default departure, and budgets as
	// factors of each pair's time-dependent LET time at that departure).
	// With ArriveBy every pair's budget is ArriveBy − Depart, one budget
	// in minutes.
	Depart   *float64
	ArriveBy *float64
	CacheDir string // trained learners are kept here ("" : no cache)
	Device   string // ONNX policies: "cpu" or "cuda"
	Models   string // directory of trained models ("" : models/ found upwards)
	// UserModel finds a model a user uploaded (method user:NAME).
	UserModel func(name string) (path string, ok bool)
	Logf      func(format string, args ...any)
	Workers   int       // 0: all cores
	poolBytes int       // 0: poolBatchBytes (tests set less to see a city's batches on a small network)
	Progress  io.Writer // a progress line for long runs; nil for none
	// ProgressTTY redraws the progress line in place (a terminal); otherwise
	// only the finished line is written, to keep logs readable.
	ProgressTTY bool
	// OnProgress, if set, hears each stage, one call at a time:
	// "methods:NAME" as method NAME starts building (done = methods built so
	// far), "methods" (method done of total built), and the evaluation's:
	// Run's "rollouts" (done of methods × pools, a method's evaluation on a
	// pool; they start while the learners train), Count's and Outcomes'
	// "pools" (pool done of total).
	OnProgress func(stage string, done, total int)
	// Evaluate, when set, lists the OD pairs (indexes into ODs) that
	// Prepared.Count will be asked for: only their planners' tables are
	// solved. The methods still see every OD pair and budget.
	Evaluate []int
	Version  string
	Commit   string
	// Started, when set, is when the command began (before the network and
	// its model were loaded): the report's run time counts from it.
	Started time.Time
}

// Run evaluates every method on every OD pair and budget over the test
// pools. The methods that do not train are evaluated while the learners
// train (see overlap): the numbers are those of Prepare and Count.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	start := time.Now()
	if !cfg.Started.IsZero() {
		start = cfg.Started
	}
	p, err := newPrepared(ctx, cfg)
	if err != nil {
		return nil, err
	}
	counts, err := p.overlap(ctx)
	if err != nil {
		return nil, err
	}
	return p.rep.assemble(p.cfg, p.Methods, [][]Counts{counts}, time.Since(start).Seconds())
}

// Prepared is a benchmark whose methods are built (learners trained or
// loaded), ready to be evaluated on any OD pairs and pools: a sweep's task
// evaluates a part of the benchmark with it, and Assemble joins the parts
// into the report a whole Run gives.
type Prepared struct {
	cfg      Config
	env      *policy.Env
	rep      *Report    // the skeleton (LET paths, provenance) Run assembles into
	tasks    []sim.Task // OD-major, budget-minor
	policies []engine.Policy
	// Methods is each method's provenance (settings, solve time).
	Methods []MethodInfo

	mu       sync.Mutex // OnProgress is called under it, from one stage at a time
	built    int        // methods built
	rollouts int        // methods' evaluations on a pool done (Run's progress)
}

// Prepare checks cfg and builds every method. The methods see every OD pair
// and budget of cfg, whatever part is evaluated later: learners and their
// cache keys depend on them.
func Prepare(ctx context.Context, cfg Config) (*Prepared, error) {
	p, err := newPrepared(ctx, cfg)
	if err != nil {
		return nil, err
	}
	learners, others := buildOrder(cfg.Methods)
	if err := p.build(ctx, append(learners, others...), nil, nil); err != nil {
		return nil, err
	}
	return p, nil
}

// newPrepared checks cfg and sets up its methods' environment; nothing
// is built yet.
func newPrepared(ctx context.Context, cfg Config) (*Prepared, error) {
	rep, err := skeleton(&cfg)
	if err != nil {
		return nil, err
	}
	net := cfg.Net
	tasks := cfg.tasks()
	env := &policy.Env{Net: net, Model: cfg.Model, Tasks: tasks, Seed: cfg.Seed, Sampled: cfg.Sampled,
		RolloutBase: cfg.RolloutBase, RolloutSamples: cfg.RolloutSamples, RolloutZ: cfg.RolloutZ,
		DOTDelta: cfg.DOTDelta, DOTRounding: cfg.DOTRounding, CacheDir: cfg.CacheDir, Device: cfg.Device, Logf: cfg.Logf, ModelsDir: cfg.Models,
		UserModel: cfg.UserModel, Ctx: ctx}
	if cfg.Evaluate != nil {
		env.SolveFor = []int{}
		for _, i := range cfg.Evaluate {
			if i < 0 || i >= len(cfg.ODs) {
				return nil, engine.Errorf(engine.EINVALID, "OD pair %d: the benchmark has %d", i, len(cfg.ODs))
			}
			env.SolveFor = append(env.SolveFor, cfg.ODs[i].Destination)
		}
	}
	return &Prepared{cfg: cfg, env: env, rep: rep, tasks: tasks, policies: make([]engine.Policy, len(cfg.Methods)), Methods: make([]MethodInfo, len(cfg.Methods))}, nil
}

// tell reports a stage to OnProgress, one call at a time.
func (p *Prepared) tell(stage string, done, total int) {
	if p.cfg.OnProgress != nil {
		p.cfg.OnProgress(stage, done, total)
	}
}

// build builds the methods order (indexes into Config.Methods) as many at
// once as the run has workers, in that order, each holding one of c's
// tokens (nil: none); built hears each method built.
func (p *Prepared) build(ctx context.Context, order []int, c cores, built func(method int)) error {
	cfg := p.cfg
	return split.Each(ctx, len(order), cfg.workers(), "bench worker", func(_, k int) error {
		i := order[k]
		name := cfg.Methods[i]
		m, _ := policy.Lookup(name)
		var (
			pol      engine.Policy
			settings map[string]any
			err      error
			took     time.Duration
		)
		if herr := c.hold(ctx, func() {
			p.mu.Lock()
			p.tell("methods:"+name, p.built, len(cfg.Methods)) // which one is building (a learner trains for minutes)
			p.mu.Unlock()
			t0 := time.Now()
			pol, settings, err = m.Build(p.env)
			took = time.Since(t0)
		}); herr != nil {
			return herr
		}
		if err != nil {
			return fmt.Errorf("method %s: %w", name, err)
		}
		p.policies[i] = pol
		p.Methods[i] = MethodInfo{Name: name, Bound: m.IsBound(), Settings: settings, SolveSeconds: took.Seconds()}
		p.mu.Lock()
		p.built++
		p.tell("methods", p.built, len(cfg.Methods))
		p.mu.Unlock()
		if built != nil {
			built(i)
		}
		return nil
	})
}

// buildOrder is the order Prepare starts building cfg's methods in, as
// many at once as the run has workers: the learners first, as they train
// for minutes on one core each (SEGAC for 100 s on Anaheim), while the
// planners' tables and the other builds take the other cores. A method's
// build reads only the benchmark's law, tasks and seeds, never another
// method, so the order changes no policy (the published tables are the
// same bits). It returns the two parts, learners then the others: Run
// evaluates the others while the learners train.
func buildOrder(methods []string) (learners, others []int) {
	for i, name := range methods {
		if policy.IsLearner(name) {
			learners = append(learners, i)
		} else {
			others = append(others, i)
		}
	}
	return learners, others
}

// Counts are the on-time episodes of every method on one OD pair (an index
// into Config.ODs) at every budget, over some pools: OnTime[method][budget][i]
// of Size episodes in pool Pools[i].
type Counts struct {
	OD     int       `json:"od"`
	Pools  []int     `json:"pools"`
	Size   int       `json:"size"`
	OnTime [][][]int `json:"on_time"`
	// HandedOver counts, in OnTime's shape, the episodes a policy handed to
	// its fallback (engine.HandsOver); absent from parts written before.
	HandedOver [][][]int `json:"handed_over,omitempty"`
}

// Count evaluates every method on the OD pairs ods (indexes into
// Config.ODs; nil for all) over the pools given, one Counts per OD pair.
func (p *Prepared) Count(ctx context.Context, ods []int, pools []int) ([]Counts, error) {
	return p.count(ctx, ods, units{pools: pools, methods: indexes(len(p.policies))})
}

// count is Count of the methods us.methods over us.pools (the other
// methods' counts are left 0), with us's cores and progress.
func (p *Prepared) count(ctx context.Context, ods []int, us units) ([]Counts, error) {
	cfg, pools := p.cfg, us.pools
	if ods == nil {
		for i := range cfg.ODs {
			ods = append(ods, i)
		}
	}
	nB := len(cfg.Budgets)
	out := make([]Counts, len(ods))
	slot := map[int]int{} // pool index → position in Pools
	for i, k := range pools {
		if k < 0 || k >= cfg.Pools {
			return nil, engine.Errorf(engine.EINVALID, "pool %d: the benchmark has pools 0 to %d", k, cfg.Pools-1)
		}
		slot[k] = i
	}
	for i, od := range ods {
		if od < 0 || od >= len(cfg.ODs) || (cfg.Evaluate != nil && !slices.Contains(cfg.Evaluate, od)) {
			return nil, engine.Errorf(engine.EINVALID, "OD pair %d is not among those prepared for evaluation", od)
		}
		c := Counts{OD: od, Pools: slices.Clone(pools), Size: cfg.PoolSize, OnTime: make([][][]int, len(p.policies)), HandedOver: make([][][]int, len(p.policies))}
		for mi := range c.OnTime {
			c.OnTime[mi], c.HandedOver[mi] = make([][]int, nB), make([][]int, nB)
			for bi := range nB {
				c.OnTime[mi][bi], c.HandedOver[mi][bi] = make([]int, len(pools)), make([]int, len(pools))
			}
		}
		out[i] = c
	}
	us.tasks = len(ods) * nB
	err := forEachUnit(ctx, cfg, us, func(pool *sim.Pool, u unit, r *sim.Runner, res []sim.Result) error {
		i, bi := u.task/nB, u.task%nB
		played, err := p.play(r, u.method, ods[i]*nB+bi, pool, res)
		for k, res := range played {
			out[i].OnTime[u.method][bi+k][slot[pool.Index]], out[i].HandedOver[u.method][bi+k][slot[pool.Index]] = tally(res)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Assemble joins counts (from one Count or many, in any order) that cover
// every OD pair and pool of cfg exactly once into the report: the numbers
// are those of one Run, bit for bit, whatever the split. methods is the
// methods' provenance (Prepared.Methods); elapsed the seconds to record.
func Assemble(cfg Config, methods []MethodInfo, parts [][]Counts, elapsed float64) (*Report, error) {
	rep, err := skeleton(&cfg)
	if err != nil {
		return nil, err
	}
	return rep.assemble(cfg, methods, parts, elapsed)
}

// assemble fills the skeleton rep of cfg (see Assemble).
func (rep *Report) assemble(cfg Config, methods []MethodInfo, parts [][]Counts, elapsed float64) (*Report, error) {
	if len(methods) != len(cfg.Methods) {
		return nil, fmt.Errorf("assemble: %d methods' provenance for %d methods", len(methods), len(cfg.Methods))
	}
	rep.Provenance.Methods = methods
	nB := len(cfg.Budgets)
	// rates[method][task][pool]; seen[od][pool] guards against gaps and overlaps.
	rates := make([][][]float64, len(cfg.Methods))
	for mi := range rates {
		rates[mi] = make([][]float64, len(cfg.ODs)*nB)
		for t := range rates[mi] {
			rates[mi][t] = make([]float64, cfg.Pools)
		}
	}
	seen := make([][]bool, len(cfg.ODs))
	for i := range seen {
		seen[i] = make([]bool, cfg.Pools)
	}
	handed := make([][]int, len(cfg.Methods)) // handed[method][task], over every pool
	for mi := range handed {
		handed[mi] = make([]int, len(cfg.ODs)*nB)
	}
	for _, cs := range parts {
		for _, c := range cs {
			if c.OD < 0 || c.OD >= len(cfg.ODs) || c.Size != cfg.PoolSize || len(c.OnTime) != len(cfg.Methods) {
				return nil, fmt.Errorf("assemble: counts for OD %d of %d-episode pools and %d methods do not fit the benchmark", c.OD, c.Size, len(c.OnTime))
			}
			for i, k := range c.Pools {
				if k < 0 || k >= cfg.Pools || seen[c.OD][k] {
					return nil, fmt.Errorf("assemble: pool %d of OD %s given twice or out of range", k, rep.ODs[c.OD].OD)
				}
				seen[c.OD][k] = true
				for mi := range cfg.Methods {
					if len(c.OnTime[mi]) != nB || len(c.OnTime[mi][0]) != len(c.Pools) {
						return nil, fmt.Errorf("assemble: counts of %s on OD %s have the wrong shape", cfg.Methods[mi], rep.ODs[c.OD].OD)
					}
					for bi := range nB {
						rates[mi][c.OD*nB+bi][k] = float64(c.OnTime[mi][bi][i]) / float64(c.Size)
						if len(c.HandedOver) == len(c.OnTime) && len(c.HandedOver[mi]) == nB && len(c.HandedOver[mi][bi]) == len(c.Pools) {
							handed[mi][c.OD*nB+bi] += c.HandedOver[mi][bi][i]
						}
					}
				}
			}
		}
	}
	for od, ks := range seen {
		for k, ok := range ks {
			if !ok {
				return nil, fmt.Errorf("assemble: pool %d of OD %s is missing", k, rep.ODs[od].OD)
			}
		}
	}
	rep.fill(rates, len(cfg.ODs))
	rep.Outside = outsideCells(cfg, rep, handed)
	rep.Provenance.ElapsedSeconds = elapsed
	return rep, nil
}

// skeleton checks cfg and starts its report: the OD pairs' LET paths and
// the provenance of everything but the methods.
func skeleton(cfg *Config) (*Report, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	net := cfg.Net
	rep := &Report{Network: net.Name, Methods: cfg.Methods, Focus: cfg.Focus, Budgets: cfg.Budgets}
	for _, od := range cfg.ODs {
		tree := net.LET(od.Destination)
		if tree.Hops[od.Origin] < 0 {
			return nil, engine.Errorf(engine.EINVALID, "OD %s: the destination cannot be reached", net.ODString(od))
		}
		path := tree.Path(od.Origin, net)
		info := ODInfo{OD: net.ODString(od), LETTime: tree.Time[od.Origin], LETLinks: len(path), LETPath: net.PathNodes(path)}
		if net.Timed() {
			// The pair's row names its time-dependent LET path and time at
			// the departure: the budgets' base.
			t := cfg.departure()
			tdPath, at := net.EarliestArrival(od.Origin, od.Destination, t, net.MeanTimeAt())
			info.LETTime, info.LETLinks, info.LETPath, info.Depart = at-t, len(tdPath), net.PathNodes(tdPath), engine.FormatClock(t)
		}
		rep.ODs = append(rep.ODs, info)
	}
	rep.Provenance = cfg.provenance()
	return rep, nil
}

// indexes is 0 to n-1 (pools, or methods).
func indexes(n int) []int {
	all := make([]int, n)
	for k := range all {
		all[k] = k
	}
	return all
}

func onTime(res []sim.Result) int {
	k, _ := tally(res)
	return k
}

// tally counts the episodes on time and those handed to a fallback.
func tally(res []sim.Result) (onTime, handedOver int) {
	for _, r := range res {
		if r.OnTime {
			onTime++
		}
		if r.HandedOver {
			handedOver++
		}
	}
	return onTime, handedOver
}

func (cfg *Config) check() error {
	if cfg.Net == nil || cfg.Model == nil {
		return engine.Errorf(engine.EINVALID, "bench needs a network and its link-time model")
	}
	if len(cfg.Methods) == 0 {
		return engine.Errorf(engine.EINVALID, "no methods given")
	}
	for i, m := range cfg.Methods {
		if _, err := policy.Lookup(m); err != nil {
			return err
		}
		if slices.Contains(cfg.Methods[:i], m) {
			return engine.Errorf(engine.EINVALID, "method %s given twice", m)
		}
	}
	if cfg.Focus == "" {
		cfg.Focus = cfg.Methods[0]
	}
	if !slices.Contains(cfg.Methods, cfg.Focus) {
		return engine.Errorf(engine.EINVALID, "focus method %s is not among the methods %v", cfg.Focus, cfg.Methods)
	}
	if err := cfg.checkClock(); err != nil {
		return err
	}
	if len(cfg.Budgets) == 0 {
		return engine.Errorf(engine.EINVALID, "no budgets given")
	}
	for _, b := range cfg.Budgets {
		if !(b > 0) {
			return engine.Errorf(engine.EINVALID, "budget factor %v must be positive", b)
		}
	}
	if len(cfg.ODs) == 0 {
		return engine.Errorf(engine.EINVALID, "network %s has no OD pairs: give --ods", cfg.Net.Name)
	}
	if cfg.Purpose != "" && cfg.Purpose != sim.Test && cfg.Purpose != sim.Validation && cfg.Purpose != sim.Verify {
		return engine.Errorf(engine.EINVALID, "pools %q: evaluate on test or validation pools", cfg.Purpose)
	}
	// One pool is a quick look: means only (fill makes no paired rows, the
	// tables say why there are no intervals).
	if cfg.Pools < 1 || cfg.PoolSize < 1 {
		return engine.Errorf(engine.EINVALID, "need at least one pool of at least one realization (got %d × %d)", cfg.Pools, cfg.PoolSize)
	}
	return policy.CheckDOTRounding(cfg.DOTRounding)
}

func (cfg *Config) provenance() Provenance {
	pv := Provenance{Version: cfg.Version, Commit: cfg.Commit, GoVersion: runtime.Version(), DataFiles: cfg.Net.Sources,
		Correlation: CorrelationInfo{Model: cfg.Model.Spec.Model, Seed: cfg.Model.Spec.Seed,
			Strength: cfg.Model.Spec.Strength, Length: cfg.Model.Spec.Length, CorrStats: cfg.Model.Stats},
		FloorMinutes: linktime.Floor, Law: nonPaperLaw(cfg.Model.Law), StepCap: cfg.Net.StepCap, BenchSeed: cfg.Seed, Sampled: cfg.Sampled,
		OnTime: "arrive with total time ≤ budget within the step cap; budget = factor × LET time"}
	if cfg.Net.Timed() {
		t := cfg.departure()
		pv.Depart, pv.Clock = engine.FormatClock(t), cfg.Net.Clock.Summary()
		pv.OnTime = fmt.Sprintf("leave at %s; arrive with total time ≤ budget; budget = factor × the time-dependent LET time at %s (each link's law at the clock time it is entered)", pv.Depart, pv.Depart)
		if cfg.ArriveBy != nil {
			pv.ArriveBy = engine.FormatClock(*cfg.ArriveBy)
			pv.OnTime = fmt.Sprintf("leave at %s, arrive by %s: the budget is %g min for every pair (minutes, not a factor)", pv.Depart, pv.ArriveBy, *cfg.ArriveBy-t)
		}
	}
	if pv.DataFiles == nil {
		pv.DataFiles = []engine.SourceFile{}
	}
	for k := range cfg.Pools {
		pv.Pools = append(pv.Pools, PoolInfo{Purpose: cfg.purpose(), Index: k, Seed: sim.Seed(cfg.Net.PoolKey(), cfg.purpose(), k, cfg.Seed), Size: cfg.PoolSize})
	}
	return pv
}

// purpose is the pools' purpose, test unless validation is asked for.
func (cfg *Config) purpose() string {
	if cfg.Purpose == sim.Validation || cfg.Purpose == sim.Verify {
		return cfg.Purpose
	}
	return sim.Test
}

// fill computes the summaries and paired comparisons from per-pool rates.
func (rep *Report) fill(onTime [][][]float64, nOD int) {
	nB := len(rep.Budgets)
	pools := len(onTime[0][0])
	// pool means over OD pairs, per method and budget
	means := make([][][]float64, len(rep.Methods))
	for mi, name := range rep.Methods {
		means[mi] = make([][]float64, nB)
		for bi, b := range rep.Budgets {
			pm := make([]float64, pools)
			for oi := range nOD {
				rates := onTime[mi][oi*nB+bi]
				for k, r := range rates {
					pm[k] += r / float64(nOD)
				}
				rep.PerOD = append(rep.PerOD, ODSummary{Method: name, OD: rep.ODs[oi].OD, Budget: b, Mean: mean(rates), PoolMeans: rates})
			}
			means[mi][bi] = pm
			rep.Summary = append(rep.Summary, Summary{Method: name, Budget: b, Mean: mean(pm), PoolMeans: pm})
		}
	}
	if pools < 2 {
		return // the paired tests are over pools: none with one
	}
	rep.EnsureLeaders()
	fi := slices.Index(rep.Methods, rep.Focus)
	var family []int
	for bi, b := range rep.Budgets {
		for mi := range rep.Methods {
			if mi == fi {
				continue
			}
			// A bound (clairvoyant) is compared, but outside the Holm
			// family: nothing a traveller could follow is tested against it.
			if !rep.IsBound(rep.Methods[mi]) && !rep.IsBound(rep.Focus) {
				family = append(family, len(rep.Paired))
			}
			rep.Paired = append(rep.Paired, pairedRow(rep.Focus, rep.Methods[mi], b, means[fi][bi], means[mi][bi]))
		}
		for ai := range rep.Methods {
			for bj := ai + 1; bj < len(rep.Methods); bj++ {
				if ai != fi && bj != fi {
					rep.Paired = append(rep.Paired, pairedRow(rep.Methods[ai], rep.Methods[bj], b, means[ai][bi], means[bj][bi]))
				}
			}
		}
	}
	ps := make([]float64, len(family))
	for i, k := range family {
		ps[i] = rep.Paired[k].P
	}
	for i, adj := range stats.Holm(ps) {
		v := adj
		rep.Paired[family[i]].PHolm = &v
	}
}

func pairedRow(a, b string, budget float64, xa, xb []float64) Paired {
	t := stats.PairedT(xa, xb, 0.95)
	return Paired{A: a, B: b, Budget: budget, Gain: t.Mean, CILow: t.Low, CIHigh: t.Hi, P: t.P}
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// Tasks are the prepared tasks, OD-major and budget-minor.
func (p *Prepared) Tasks() []sim.Task { return p.tasks }

// Outcomes evaluates every method on every task over the pools given and
// returns each episode's result, [method][task][pool][episode]: what a
// check that pairs methods episode by episode needs (Count keeps sums).
func (p *Prepared) Outcomes(ctx context.Context, pools []int) ([][][][]sim.Result, error) {
	cfg := p.cfg
	out := make([][][][]sim.Result, len(p.policies))
	for m := range out {
		out[m] = make([][][]sim.Result, len(p.tasks))
		for t := range out[m] {
			out[m][t] = make([][]sim.Result, len(pools))
		}
	}
	slot := map[int]int{}
	for i, k := range pools {
		slot[k] = i
	}
	err := forEachUnit(ctx, cfg, units{pools: pools, methods: indexes(len(p.policies)), tasks: len(p.tasks)}, func(pool *sim.Pool, u unit, r *sim.Runner, res []sim.Result) error {
		played, err := p.play(r, u.method, u.task, pool, res)
		for k, res := range played {
			out[u.method][u.task+k][slot[pool.Index]] = slices.Clone(res)
		}
		return err
	})
	return out, err
}

// play is a unit's episodes: method on task t (an index into tasks) over
// pool, into res. A batch policy (a learned model) plays all of an OD
// pair's budgets at once, in the unit of its first budget (the others
// play nothing): it decides for every budget's episodes together, and
// encodes a route prefix several budgets drove once (GPG-HT on Anaheim's
// three budgets: 28% of its encoder's rows). Each result is what the task
// alone gives (sim.RunTasks). It returns the results of tasks t, t+1, ….
func (p *Prepared) play(r *sim.Runner, method, t int, pool *sim.Pool, res []sim.Result) ([][]sim.Result, error) {
	pol, nB := p.policies[method], len(p.cfg.Budgets)
	task := p.tasks[t]
	fail := func(err error) error {
		return fmt.Errorf("method %s, OD %s: %w", p.cfg.Methods[method], p.cfg.Net.ODString(task.OD), err)
	}
	if !sim.StepsTogether(pol) || nB == 1 {
		if err := r.Run(pol, task, pool, res); err != nil {
			return nil, fail(err)
		}
		return [][]sim.Result{res}, nil
	}
	if t%nB > 0 {
		return nil, nil
	}
	outs := [][]sim.Result{res}
	for range nB - 1 {
		outs = append(outs, make([]sim.Result, len(res)))
	}
	if err := r.RunTasks(pol, p.tasks[t:t+nB], pool, outs); err != nil {
		return nil, fail(err)
	}
	return outs, nil
}

// nonPaperLaw is the law's name, or "" for the paper's law.
func nonPaperLaw(name string) string {
	if name == linktime.PaperLaw {
		return ""
	}
	return name
}

// departure is the clock time a timed network's episodes leave at.
func (cfg *Config) departure() float64 {
	if cfg.Depart != nil {
		return *cfg.Depart
	}
	return cfg.Net.Clock.Depart
}

// tasks are the episodes' tasks, OD-major and budget-minor: on a network
// whose law changes over the day, leaving at the departure.
func (cfg *Config) tasks() []sim.Task {
	net := cfg.Net
	if !net.Timed() {
		return sim.Tasks(net, cfg.ODs, cfg.Budgets)
	}
	t := cfg.departure()
	if cfg.ArriveBy == nil {
		return sim.TasksAt(net, cfg.ODs, cfg.Budgets, t)
	}
	var tasks []sim.Task
	for _, od := range cfg.ODs {
		tasks = append(tasks, sim.Task{OD: od, Budget: *cfg.ArriveBy - t, Cap: net.StepCap, Depart: t})
	}
	return tasks
}

// checkClock refuses a departure or deadline the network cannot answer.
func (cfg *Config) checkClock() error {
	net := cfg.Net
	if cfg.Depart == nil && cfg.ArriveBy == nil {
		return nil
	}
	if !net.Timed() {
		return engine.Errorf(engine.EINVALID, "%s has the same law at every hour: a departure or deadline changes nothing there; ask for budgets", net.Name)
	}
	if cfg.Depart != nil && !(*cfg.Depart >= 0 && *cfg.Depart < engine.MinutesPerDay) {
		return engine.Errorf(engine.EINVALID, "departure %v: not a time of day", *cfg.Depart)
	}
	if cfg.ArriveBy != nil {
		t := cfg.departure()
		if !(*cfg.ArriveBy > t) {
			return engine.Errorf(engine.EINVALID, "arrive by %s is not after the departure %s", engine.FormatClock(*cfg.ArriveBy), engine.FormatClock(t))
		}
		cfg.Budgets = []float64{*cfg.ArriveBy - t}
	}
	return nil
}

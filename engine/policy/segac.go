package policy

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/sim"
)

// SEGAC is the generalized actor-critic of Guo et al. (2024), a Markov
// policy on (current node, destination, remaining budget): an MLP with
// one-hot node and destination inputs and the scaled remaining budget,
// masked softmax over the links leaving the node; a critic MLP (sigmoid)
// estimating the on-time probability. Training on the training stream:
//
//   - warm start by imitating a teacher: `segac-let` imitates LET, as
//     SEGAC's own code does, briefly (a long imitation saturates the softmax
//     and the gradient never leaves LET); `segac` imitates DOT, so the
//     gradient starts from the best Markov policy on the marginals (with a
//     LET start the policy gradient alone does not find DOT's budget-dependent
//     detours on Sioux Falls: see docs/results.md);
//   - then the generalized policy gradient: over M sampled episodes,
//     Σ_t ρ_t·(1{on time} − V(s_t))·∇log π(a_t|s_t) plus a small entropy
//     bonus, where V is the critic (the baseline keeps the estimate
//     unbiased) and ρ_t the per-decision importance weight
//     Π_{k≤t} π(a_k|s_k)/μ(a_k|s_k), clipped at RhoMax, for episodes played
//     by a behaviour μ: fresh ones by π mixed with ε-uniform exploration
//     (after the warm start π is nearly deterministic), older ones replayed
//     from a buffer of recent batches;
//   - the critic regresses on each episode's outcome (cross-entropy, a
//     Monte Carlo target rather than SEGAC's TD(0)).
//
// SEGAC's fallback: when the chosen link would lead back to a node already
// visited, the LET next hop is taken instead; such steps are environment
// moves and carry no gradient. One network covers every destination (the
// destination is an input). Evaluation is greedy unless sampling is asked.
type SEGAC struct {
	net     *engine.Network
	let     *LET
	sampled bool
	Model   SEGACModel
	// scratch holds Act's buffers: the actor's outputs span every link
	// (914 on Anaheim) though a decision reads the few leaving its node,
	// and making them at each decision was three quarters of segac's
	// rollouts there.
	scratch sync.Pool // *segacScratch
}

type segacScratch struct {
	x    []Feat
	z, y []float64
}

// SEGACModel is what training produces (and the cache stores).
type SEGACModel struct {
	Actor, Critic MLP
	Scale         float64 // remaining budget divided by Scale is the input
	// Beyond SEGAC's inputs: the slack (remaining budget − LET time from
	// the node), over SlackScale; it lets one small net share a budget
	// threshold across nodes.
	LET        map[int][]float64
	SlackScale float64
	Curve      []float64
}

// Training budgets are drawn around the asked ones: per OD pair, uniform
// between segacBudgetLow × the smallest and segacBudgetHigh × the largest.
const segacBudgetLow, segacBudgetHigh = 0.9, 1.1

type segacSettings struct {
	Teacher                                 string // "let" (SEGAC's code) or "dot"
	Hidden, WarmIters, Iters, Batch, Replay int
	LR, CriticLR, Entropy, RhoMax, Explore  float64
}

func newSEGAC(env *Env, s segacSettings) (*SEGAC, bool, error) {
	let := NewLET(env.Net, env.Destinations()...)
	// The cache key names the MLP's layout: a model cached before W₁ was
	// stored by input would read as other weights.
	key := struct {
		segacSettings
		Layout string
	}{s, "w1-by-input"}
	model, hit, err := cached(env, "segac", key, func() (SEGACModel, error) {
		var teacher engine.Policy = let
		if s.Teacher == "dot" {
			// Tables of its own, solved once up to the largest budget
			// training draws (asked lazily, they were solved again each
			// time a batch drew a larger budget: five times a destination
			// on ringtown). It extended the shared ones (env.DOT) before,
			// so dot's, cdot's and ctd's tables depended on whether segac
			// was in the run.
			dot := env.NewDOT()
			dot.Ctx = env.Ctx
			budgets := env.MaxBudget()
			for d, b := range budgets {
				budgets[d] = segacBudgetHigh * b
			}
			solveTables(dot, budgets)
			teacher = dot
		}
		return trainSEGAC(env, let, teacher, s)
	})
	return &SEGAC{net: env.Net, let: let, sampled: env.Sampled, Model: model}, hit, err
}

// featuresInto appends the inputs of a decision at node for dest with
// remaining left to dst (training and Act reuse one buffer).
func (m *SEGACModel) featuresInto(dst []Feat, net *engine.Network, node, dest int, remaining float64) []Feat {
	n := len(net.Nodes)
	slack := remaining
	if t := m.LET[dest]; t != nil {
		slack -= t[node]
	}
	return append(dst, Feat{node, 1}, Feat{n + dest, 1}, Feat{2 * n, remaining / m.Scale}, Feat{2*n + 1, slack / m.SlackScale})
}

// visited reports whether node was visited before in an episode.
func visited(net *engine.Network, o *engine.Observation, node int) bool {
	if len(o.Prefix) == 0 {
		return false
	}
	if net.Links[o.Prefix[0].Link].From == node {
		return true
	}
	for _, s := range o.Prefix {
		if net.Links[s.Link].To == node {
			return true
		}
	}
	return false
}

// Act takes the most probable link (or samples one), with SEGAC's LET
// fallback on a revisit.
func (p *SEGAC) Act(o *engine.Observation) int {
	out := p.net.Out(o.Node)
	sc, _ := p.scratch.Get().(*segacScratch)
	if sc == nil {
		sc = &segacScratch{z: make([]float64, p.Model.Actor.Hidden), y: make([]float64, p.Model.Actor.Out)}
	}
	defer p.scratch.Put(sc)
	sc.x = p.Model.featuresInto(sc.x[:0], p.net, o.Node, o.Destination, o.Remaining)
	y := sc.y // Forward writes the rows of out, the only ones read below
	p.Model.Actor.Forward(sc.x, sc.z, y, out)
	a := out[0]
	if p.sampled {
		pi := softmaxRows(y, out)
		u := rand.Float64()
		for i, e := range out {
			if u -= pi[i]; u <= 0 || i == len(out)-1 {
				a = e
				break
			}
		}
	} else {
		for _, e := range out {
			if y[e] > y[a] {
				a = e
			}
		}
	}
	if visited(p.net, o, p.net.Links[a].To) {
		return p.let.Act(o)
	}
	return a
}

// softmaxRows is the softmax of y over the given rows.
func softmaxRows(y []float64, rows []int) []float64 {
	return softmaxRowsInto(make([]float64, len(rows)), y, rows)
}

// softmaxRowsInto is softmaxRows written over pi's first len(rows)
// elements (training reuses one buffer).
func softmaxRowsInto(pi, y []float64, rows []int) []float64 {
	mx := math.Inf(-1)
	for _, r := range rows {
		mx = math.Max(mx, y[r])
	}
	pi = pi[:len(rows)]
	sum := 0.0
	for i, r := range rows {
		pi[i] = math.Exp(y[r] - mx)
		sum += pi[i]
	}
	for i := range pi {
		pi[i] /= sum
	}
	return pi
}

// segacStep is one decision of a training episode.
type segacStep struct {
	node, dest int
	remaining  float64
	action     int // index into net.Out(node)
	mu         float64
}

type segacEpisode struct {
	steps  []segacStep
	onTime float64
}

func trainSEGAC(env *Env, let *LET, teacher engine.Policy, s segacSettings) (SEGACModel, error) {
	net := env.Net
	n := len(net.Nodes)
	rng := rand.New(rand.NewPCG(env.Seed, 0x5e6ac))
	m := SEGACModel{LET: map[int][]float64{}}
	for _, t := range env.Tasks {
		m.Scale = math.Max(m.Scale, t.Budget)
	}
	m.SlackScale = m.Scale / 20
	for _, d := range env.Destinations() {
		tt := append([]float64(nil), let.Tree(d).Time...)
		for i, v := range tt {
			if math.IsInf(v, 1) {
				tt[i] = 10 * m.Scale
			}
		}
		m.LET[d] = tt
	}
	m.Actor = *NewMLP(2*n+2, s.Hidden, len(net.Links), rng)
	m.Critic = *NewMLP(2*n+2, s.Hidden, 1, rng)
	actOpt := newAdam(len(m.Actor.P), s.LR)
	critOpt := newAdam(len(m.Critic.P), s.CriticLR)
	stream := sim.NewStream(env.Model, net.PoolKey(), env.Seed)
	// Budgets are drawn around the asked ones (segacBudgetLow, segacBudgetHigh).
	type odRange struct {
		od     engine.OD
		lo, hi float64
	}
	var ranges []odRange
	for _, t := range env.Tasks {
		found := false
		for i := range ranges {
			if ranges[i].od == t.OD {
				ranges[i].lo, ranges[i].hi = math.Min(ranges[i].lo, t.Budget), math.Max(ranges[i].hi, t.Budget)
				found = true
			}
		}
		if !found {
			ranges = append(ranges, odRange{t.OD, t.Budget, t.Budget})
		}
	}
	capN := net.EpisodeCap() // the one episode rule's cap
	z := make([]float64, s.Hidden)
	y := make([]float64, len(net.Links))
	zc := make([]float64, s.Hidden)
	yc := make([]float64, 1)
	gradA := make([]float64, len(m.Actor.P))
	gradC := make([]float64, len(m.Critic.P))
	// Scratch reused by every step: features, the softmax over a node's
	// links, the backward pass's hidden gradient.
	dz := make([]float64, s.Hidden)
	var xbuf, nbuf []Feat
	var pibuf []float64
	critRow := []int{0}
	softmax := func(rows []int) []float64 {
		if cap(pibuf) < len(rows) {
			pibuf = make([]float64, len(rows))
		}
		return softmaxRowsInto(pibuf, y, rows)
	}
	// play runs one episode on realization row of x; follow plays the teacher.
	play := func(od engine.OD, budget float64, x *linktime.LazyN, row int, follow bool) segacEpisode {
		var ep segacEpisode
		task := sim.Task{OD: od, Budget: budget, Cap: capN}
		o := &engine.Observation{Node: od.Origin, Destination: od.Destination, Remaining: budget}
		for {
			if _, dead := sim.Stuck(net, task, o); dead {
				break
			}
			out := net.Out(o.Node)
			var e int
			var st *segacStep
			if follow {
				e = teacher.Act(o)
				st = &segacStep{node: o.Node, dest: od.Destination, remaining: o.Remaining, mu: 1}
				for i, l := range out {
					if l == e {
						st.action = i
					}
				}
			} else {
				xbuf = m.featuresInto(xbuf[:0], net, o.Node, od.Destination, o.Remaining)
				m.Actor.Forward(xbuf, z, y, out)
				pi := softmax(out)
				// Behaviour μ = (1−ε)π + ε·uniform keeps every link tried
				// after the warm start saturates π; the importance weights
				// correct for it.
				for i := range pi {
					pi[i] = (1-s.Explore)*pi[i] + s.Explore/float64(len(out))
				}
				u := rng.Float64()
				k := len(out) - 1
				for i := range pi {
					if u -= pi[i]; u <= 0 {
						k = i
						break
					}
				}
				e = out[k]
				if visited(net, o, net.Links[e].To) {
					e = let.Act(o) // SEGAC's fallback: no gradient for this step
				} else {
					st = &segacStep{node: o.Node, dest: od.Destination, remaining: o.Remaining, action: k, mu: pi[k]}
				}
			}
			if st != nil {
				ep.steps = append(ep.steps, *st)
			}
			if res, done := sim.Advance(net, task, capN, o, e, x.At(row, e)); done {
				if res.OnTime {
					ep.onTime = 1
				}
				break
			}
		}
		return ep
	}
	batch := func(follow bool) []segacEpisode {
		pool := stream.NextLazy(s.Batch) // an episode reads a dozen of the links
		eps := make([]segacEpisode, s.Batch)
		for i := range eps {
			r := ranges[rng.IntN(len(ranges))]
			b := r.lo*segacBudgetLow + rng.Float64()*(r.hi*segacBudgetHigh-r.lo*segacBudgetLow)
			eps[i] = play(r.od, b, pool, i, follow)
		}
		return eps
	}
	// update applies the batch's mean gradients.
	update := func(cnt int) {
		scale(gradA, 1/float64(max(cnt, 1)))
		scale(gradC, 1/float64(max(cnt, 1)))
		actOpt.step(m.Actor.P, gradA)
		critOpt.step(m.Critic.P, gradC)
	}
	// Warm start: imitate the teacher.
	for range s.WarmIters {
		if err := env.Err(); err != nil {
			return SEGACModel{}, err
		}
		clear(gradA)
		clear(gradC)
		cnt := 0
		for _, ep := range batch(true) {
			for _, st := range ep.steps {
				out := net.Out(st.node)
				xbuf = m.featuresInto(xbuf[:0], net, st.node, st.dest, st.remaining)
				x := xbuf
				m.Actor.Forward(x, z, y, out)
				pi := softmax(out)
				for i, e := range out {
					y[e] = pi[i]
					if i == st.action {
						y[e] -= 1
					}
				}
				m.Actor.Backward(x, z, y, out, gradA, dz)
				// The critic starts as LET's value (a Monte Carlo target).
				m.Critic.Forward(x, zc, yc, nil)
				yc[0] = sigmoid(yc[0]) - ep.onTime
				m.Critic.Backward(x, zc, yc, critRow, gradC, dz)
				cnt++
			}
		}
		update(cnt)
	}
	// The critic's hidden layer and value at each step of an episode: the
	// parameters change only between batches, so each step's value is
	// computed once, for its own baseline and as the previous step's TD
	// target (it was computed three times).
	var zcs, vs []float64
	var replay [][]segacEpisode
	for it := range s.Iters {
		if err := env.Err(); err != nil {
			return SEGACModel{}, err
		}
		fresh := batch(false)
		sets := [][]segacEpisode{fresh}
		if len(replay) > 0 {
			sets = append(sets, replay[rng.IntN(len(replay))])
		}
		clear(gradA)
		clear(gradC)
		cnt := 0
		wins := 0.0
		for si, eps := range sets {
			for _, ep := range eps {
				if si == 0 {
					wins += ep.onTime
				}
				rho := 1.0
				H := s.Hidden
				zcs, vs = zcs[:0], vs[:0]
				for _, st := range ep.steps {
					nbuf = m.featuresInto(nbuf[:0], net, st.node, st.dest, st.remaining)
					zcs = slices.Grow(zcs, H)[:len(zcs)+H]
					m.Critic.Forward(nbuf, zcs[len(zcs)-H:], yc, nil)
					vs = append(vs, sigmoid(yc[0]))
				}
				for t, st := range ep.steps {
					out := net.Out(st.node)
					xbuf = m.featuresInto(xbuf[:0], net, st.node, st.dest, st.remaining)
					x := xbuf
					m.Actor.Forward(x, z, y, out)
					pi := softmax(out)
					rho = math.Min(s.RhoMax, rho*pi[st.action]/st.mu)
					v := vs[t]
					// TD(0) target: the critic's value at the next decision,
					// the outcome at the last one.
					target := ep.onTime
					if t+1 < len(ep.steps) {
						target = vs[t+1]
					}
					c := rho * (target - v)
					h := 0.0
					for _, p := range pi {
						if p > 0 {
							h -= p * math.Log(p)
						}
					}
					for i, e := range out {
						g := c * pi[i]
						if i == st.action {
							g -= c
						}
						if pi[i] > 0 {
							g += s.Entropy * pi[i] * (math.Log(pi[i]) + h)
						}
						y[e] = g
					}
					m.Actor.Backward(x, z, y, out, gradA, dz)
					if si == 0 {
						yc[0] = v - target // d(cross-entropy to the TD target)/d(logit)
						m.Critic.Backward(x, zcs[t*H:(t+1)*H], yc, critRow, gradC, dz)
					}
					cnt++
				}
			}
		}
		update(cnt)
		replay = append(replay, fresh)
		if len(replay) > s.Replay {
			replay = replay[1:]
		}
		if it%50 == 0 {
			m.Curve = append(m.Curve, wins/float64(len(fresh)))
		}
	}
	return m, nil
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func scale(x []float64, a float64) {
	for i := range x {
		x[i] *= a
	}
}

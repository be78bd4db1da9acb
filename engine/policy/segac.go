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

// trainSEGAC trains SEGAC's actor and critic: a warm start that imitates
// the teacher, then actor-critic iterations on fresh and replayed batches.
func trainSEGAC(env *Env, let *LET, teacher engine.Policy, s segacSettings) (SEGACModel, error) {
	tr := newSEGACTrainer(env, let, teacher, s)
	for range s.WarmIters {
		if err := env.Err(); err != nil {
			return SEGACModel{}, err
		}
		tr.imitate(tr.batch(true))
	}
	var replay [][]segacEpisode
	for it := range s.Iters {
		if err := env.Err(); err != nil {
			return SEGACModel{}, err
		}
		fresh := tr.batch(false)
		sets := [][]segacEpisode{fresh}
		if len(replay) > 0 {
			sets = append(sets, replay[tr.rng.IntN(len(replay))])
		}
		wins := tr.actorCritic(sets)
		replay = append(replay, fresh)
		if len(replay) > s.Replay {
			replay = replay[1:]
		}
		if it%50 == 0 {
			tr.m.Curve = append(tr.m.Curve, wins/float64(len(fresh)))
		}
	}
	return tr.m, nil
}

// odRange is an OD pair's budgets in the tasks: training draws budgets
// around them (segacBudgetLow, segacBudgetHigh).
type odRange struct {
	od     engine.OD
	lo, hi float64
}

// segacTrainer is one training run's model, optimizers, draws and the
// scratch every step reuses.
type segacTrainer struct {
	env             *Env
	net             *engine.Network
	let             *LET
	teacher         engine.Policy
	s               segacSettings
	rng             *rand.Rand
	m               SEGACModel
	actOpt, critOpt *adam
	stream          *sim.Stream
	ranges          []odRange
	capN            int // the one episode rule's cap
	// Scratch reused by every step: the layers' outputs, the gradients,
	// features, the softmax over a node's links, the backward pass's
	// hidden gradient; the critic's hidden layer and value at each step of
	// an episode (the parameters change only between batches, so each
	// step's value is computed once, for its own baseline and as the
	// previous step's TD target).
	z, y, zc, yc, gradA, gradC, dz []float64
	xbuf, nbuf                     []Feat
	pibuf                          []float64
	critRow                        []int
	zcs, vs                        []float64
}

func newSEGACTrainer(env *Env, let *LET, teacher engine.Policy, s segacSettings) *segacTrainer {
	net := env.Net
	n := len(net.Nodes)
	tr := &segacTrainer{env: env, net: net, let: let, teacher: teacher, s: s, rng: rand.New(rand.NewPCG(env.Seed, 0x5e6ac)),
		m: SEGACModel{LET: map[int][]float64{}}, capN: net.EpisodeCap(), critRow: []int{0}}
	for _, t := range env.Tasks {
		tr.m.Scale = math.Max(tr.m.Scale, t.Budget)
	}
	tr.m.SlackScale = tr.m.Scale / 20
	for _, d := range env.Destinations() {
		tt := append([]float64(nil), let.Tree(d).Time...)
		for i, v := range tt {
			if math.IsInf(v, 1) {
				tt[i] = 10 * tr.m.Scale
			}
		}
		tr.m.LET[d] = tt
	}
	tr.m.Actor = *NewMLP(2*n+2, s.Hidden, len(net.Links), tr.rng)
	tr.m.Critic = *NewMLP(2*n+2, s.Hidden, 1, tr.rng)
	tr.actOpt = newAdam(len(tr.m.Actor.P), s.LR)
	tr.critOpt = newAdam(len(tr.m.Critic.P), s.CriticLR)
	tr.stream = sim.NewStream(env.Model, net.PoolKey(), env.Seed)
	for _, t := range env.Tasks {
		found := false
		for i := range tr.ranges {
			if tr.ranges[i].od == t.OD {
				tr.ranges[i].lo, tr.ranges[i].hi = math.Min(tr.ranges[i].lo, t.Budget), math.Max(tr.ranges[i].hi, t.Budget)
				found = true
			}
		}
		if !found {
			tr.ranges = append(tr.ranges, odRange{t.OD, t.Budget, t.Budget})
		}
	}
	tr.z, tr.y = make([]float64, s.Hidden), make([]float64, len(net.Links))
	tr.zc, tr.yc = make([]float64, s.Hidden), make([]float64, 1)
	tr.gradA, tr.gradC = make([]float64, len(tr.m.Actor.P)), make([]float64, len(tr.m.Critic.P))
	tr.dz = make([]float64, s.Hidden)
	return tr
}

// softmax is the actor's distribution over the links rows (from its last
// forward pass), in the trainer's scratch.
func (tr *segacTrainer) softmax(rows []int) []float64 {
	if cap(tr.pibuf) < len(rows) {
		tr.pibuf = make([]float64, len(rows))
	}
	return softmaxRowsInto(tr.pibuf, tr.y, rows)
}

// play runs one episode on realization row of x; follow plays the teacher.
func (tr *segacTrainer) play(od engine.OD, budget float64, x *linktime.LazyN, row int, follow bool) segacEpisode {
	net, s, m := tr.net, tr.s, &tr.m
	var ep segacEpisode
	task := sim.Task{OD: od, Budget: budget, Cap: tr.capN}
	o := &engine.Observation{Node: od.Origin, Destination: od.Destination, Remaining: budget}
	for {
		if _, dead := sim.Stuck(net, task, o); dead {
			break
		}
		out := net.Out(o.Node)
		var e int
		var st *segacStep
		if follow {
			e = tr.teacher.Act(o)
			st = &segacStep{node: o.Node, dest: od.Destination, remaining: o.Remaining, mu: 1}
			for i, l := range out {
				if l == e {
					st.action = i
				}
			}
		} else {
			tr.xbuf = m.featuresInto(tr.xbuf[:0], net, o.Node, od.Destination, o.Remaining)
			m.Actor.Forward(tr.xbuf, tr.z, tr.y, out)
			pi := tr.softmax(out)
			// Behaviour μ = (1−ε)π + ε·uniform keeps every link tried
			// after the warm start saturates π; the importance weights
			// correct for it.
			for i := range pi {
				pi[i] = (1-s.Explore)*pi[i] + s.Explore/float64(len(out))
			}
			u := tr.rng.Float64()
			k := len(out) - 1
			for i := range pi {
				if u -= pi[i]; u <= 0 {
					k = i
					break
				}
			}
			e = out[k]
			if visited(net, o, net.Links[e].To) {
				e = tr.let.Act(o) // SEGAC's fallback: no gradient for this step
			} else {
				st = &segacStep{node: o.Node, dest: od.Destination, remaining: o.Remaining, action: k, mu: pi[k]}
			}
		}
		if st != nil {
			ep.steps = append(ep.steps, *st)
		}
		if res, done := sim.Advance(net, task, tr.capN, o, e, x.At(row, e)); done {
			if res.OnTime {
				ep.onTime = 1
			}
			break
		}
	}
	return ep
}

// batch plays a batch of episodes on fresh draws, each on a pair and a
// budget drawn around the tasks'.
func (tr *segacTrainer) batch(follow bool) []segacEpisode {
	pool := tr.stream.NextLazy(tr.s.Batch) // an episode reads a dozen of the links
	eps := make([]segacEpisode, tr.s.Batch)
	for i := range eps {
		r := tr.ranges[tr.rng.IntN(len(tr.ranges))]
		b := r.lo*segacBudgetLow + tr.rng.Float64()*(r.hi*segacBudgetHigh-r.lo*segacBudgetLow)
		eps[i] = tr.play(r.od, b, pool, i, follow)
	}
	return eps
}

// update applies the batch's mean gradients (over cnt steps).
func (tr *segacTrainer) update(cnt int) {
	scale(tr.gradA, 1/float64(max(cnt, 1)))
	scale(tr.gradC, 1/float64(max(cnt, 1)))
	tr.actOpt.step(tr.m.Actor.P, tr.gradA)
	tr.critOpt.step(tr.m.Critic.P, tr.gradC)
}

// imitate is one warm-start step: the actor learns the teacher's choices,
// the critic LET's value (a Monte Carlo target).
func (tr *segacTrainer) imitate(eps []segacEpisode) {
	net, m := tr.net, &tr.m
	clear(tr.gradA)
	clear(tr.gradC)
	cnt := 0
	for _, ep := range eps {
		for _, st := range ep.steps {
			out := net.Out(st.node)
			tr.xbuf = m.featuresInto(tr.xbuf[:0], net, st.node, st.dest, st.remaining)
			x := tr.xbuf
			m.Actor.Forward(x, tr.z, tr.y, out)
			pi := tr.softmax(out)
			for i, e := range out {
				tr.y[e] = pi[i]
				if i == st.action {
					tr.y[e] -= 1
				}
			}
			m.Actor.Backward(x, tr.z, tr.y, out, tr.gradA, tr.dz)
			m.Critic.Forward(x, tr.zc, tr.yc, nil)
			tr.yc[0] = sigmoid(tr.yc[0]) - ep.onTime
			m.Critic.Backward(x, tr.zc, tr.yc, tr.critRow, tr.gradC, tr.dz)
			cnt++
		}
	}
	tr.update(cnt)
}

// actorCritic is one iteration on the fresh batch (sets[0], whose on-time
// episodes it counts and returns) and a replayed one: the actor's
// importance-weighted TD(0) policy gradient with an entropy bonus, the
// critic on the fresh batch only.
func (tr *segacTrainer) actorCritic(sets [][]segacEpisode) (wins float64) {
	net, s, m := tr.net, tr.s, &tr.m
	clear(tr.gradA)
	clear(tr.gradC)
	cnt := 0
	for si, eps := range sets {
		for _, ep := range eps {
			if si == 0 {
				wins += ep.onTime
			}
			rho := 1.0
			H := s.Hidden
			tr.zcs, tr.vs = tr.zcs[:0], tr.vs[:0]
			for _, st := range ep.steps {
				tr.nbuf = m.featuresInto(tr.nbuf[:0], net, st.node, st.dest, st.remaining)
				tr.zcs = slices.Grow(tr.zcs, H)[:len(tr.zcs)+H]
				m.Critic.Forward(tr.nbuf, tr.zcs[len(tr.zcs)-H:], tr.yc, nil)
				tr.vs = append(tr.vs, sigmoid(tr.yc[0]))
			}
			for t, st := range ep.steps {
				out := net.Out(st.node)
				tr.xbuf = m.featuresInto(tr.xbuf[:0], net, st.node, st.dest, st.remaining)
				x := tr.xbuf
				m.Actor.Forward(x, tr.z, tr.y, out)
				pi := tr.softmax(out)
				rho = math.Min(s.RhoMax, rho*pi[st.action]/st.mu)
				v := tr.vs[t]
				// TD(0) target: the critic's value at the next decision,
				// the outcome at the last one.
				target := ep.onTime
				if t+1 < len(ep.steps) {
					target = tr.vs[t+1]
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
					tr.y[e] = g
				}
				m.Actor.Backward(x, tr.z, tr.y, out, tr.gradA, tr.dz)
				if si == 0 {
					tr.yc[0] = v - target // d(cross-entropy to the TD target)/d(logit)
					m.Critic.Backward(x, tr.zcs[t*H:(t+1)*H], tr.yc, tr.critRow, tr.gradC, tr.dz)
				}
				cnt++
			}
		}
	}
	tr.update(cnt)
	return wins
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func scale(x []float64, a float64) {
	for i := range x {
		x[i] *= a
	}
}

package policy

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/ort"
)

// ONNXPolicy runs a policy model that follows the GPG-HT interface
// (models/README.md) through ONNX Runtime, one batched inference per step of
// the episodes stepping together. It acts greedily (argmax over the links
// leaving the node) unless sampling is asked for.
type ONNXPolicy struct {
	net  *engine.Network
	sess ort.Session
	// stages is the model in two parts, when it could be cut (ort.Stages):
	// rows with the same prefix share its encoding (a benchmark's budgets
	// stepping together, until their routes part).
	stages ort.TwoStage
	o      ONNXOptions
	mu     sync.Mutex
	err    error
	// fallback is the route an episode is handed to where the model could
	// no longer arrive within the step cap (engine.HandsOver): LET's trees
	// and the fewest-links trees, built per destination on first use.
	fallback *LET
	hopsMu   sync.RWMutex
	hops     map[int]*engine.HopTree
	// cover is what the model was trained for (its card); nil: no card,
	// and no episode is handed over.
	cover  *Cover
	inPair sync.Map // engine.OD → bool: the pair is among the cover's
}

// ONNXOptions say how a model acts.
type ONNXOptions struct {
	// Sampled draws the link from the model's probabilities instead of
	// taking the most probable one (the live demo).
	Sampled bool
	// Shuffle feeds the prefix in a shuffled order, as the gpght-shuffled
	// control was trained; the order depends only on the observation, so
	// results repeat run to run.
	Shuffle bool
}

// NewONNXPolicy opens model for net and checks that it answers for this
// network's links.
func NewONNXPolicy(net *engine.Network, model string, o ONNXOptions, opts ...ort.Option) (*ONNXPolicy, error) {
	if _, err := os.Stat(model); err != nil {
		return nil, &engine.Error{Code: engine.ENOTFOUND, Message: fmt.Sprintf("model %s: not found", filepath.Base(model)), Err: err}
	}
	s, err := ort.Open(model, opts...)
	if err != nil {
		return nil, err
	}
	p := &ONNXPolicy{net: net, sess: s, o: o, fallback: NewLET(net), hops: map[int]*engine.HopTree{}}
	// One probe decision at a node with a way out: a model for another
	// network fails here, not in the middle of a benchmark.
	for i := range net.Nodes {
		if len(net.Out(i)) > 0 {
			if _, err := s.Run(p.batch([]*engine.Observation{{Node: i, Destination: i, Remaining: 1}})); err != nil {
				s.Close()
				return nil, engine.Errorf(engine.EINVALID, "model %s does not fit network %s (%d links): %v", filepath.Base(model), net.Name, len(net.Links), err)
			}
			break
		}
	}
	if st, err := ort.Stages(s); err == nil && p.stagesAgree(st) {
		p.stages = st
	}
	return p, nil
}

// stagesAgree asks the model, whole and in two parts, for one probe batch
// on this network (rows at nodes across it, prefixes of 0 to 5 links, each
// row reading its encoding from another place in the memory) and says
// whether every logit agrees, bit for bit, or within its bound where the
// head's logits are made in Go: the parts are used only then.
func (p *ONNXPolicy) stagesAgree(st ort.TwoStage) bool {
	var obs []*engine.Observation
	n := len(p.net.Nodes)
	for k := range 24 {
		node := (k * 7919) % n
		o := &engine.Observation{Node: node, Destination: (node + n/2) % n, Remaining: 3 + float64(k), Step: k % 6}
		for j := range o.Step {
			l := (k*31 + j*17) % len(p.net.Links)
			o.Prefix = append(o.Prefix, engine.Step{Link: l, Time: p.net.Links[l].Mean * (0.7 + 0.1*float64(j))})
		}
		obs = append(obs, o)
	}
	whole, err := p.sess.Run(p.batch(obs))
	if err != nil {
		return false
	}
	reps := slices.Clone(obs)
	slices.Reverse(reps)
	m, err := st.Encode(p.batch(reps))
	if err != nil {
		return false
	}
	defer m.Release()
	rows := make([]int, len(obs))
	for i := range rows {
		rows[i] = len(obs) - 1 - i
	}
	parts, err := st.Decide(p.batch(obs), m, rows)
	if err != nil {
		return false
	}
	E := len(p.net.Links)
	for i := range whole.Logits {
		if l, bound := parts.Logit(i/E, i%E, E); math.Abs(float64(whole.Logits[i])-l) > bound {
			return false
		}
	}
	return true
}

// Fallback is the LET and fewest-links trees towards o's destination
// where o's episode lies outside the model's cover (its OD pair, or its
// budget factor, off the card), nil inside: there the model's numbers are
// its own (engine.HandsOver, played by sim).
func (p *ONNXPolicy) Fallback(o *engine.Observation) (*engine.LETTree, *engine.HopTree) {
	if p.cover == nil {
		return nil, nil
	}
	let := p.fallback.Tree(o.Destination)
	origin, budget := o.Node, o.Remaining
	if len(o.Prefix) > 0 {
		origin = p.net.Links[o.Prefix[0].Link].From
	}
	for _, st := range o.Prefix {
		budget += st.Time
	}
	od := engine.OD{Origin: origin, Destination: o.Destination}
	in, ok := p.inPair.Load(od)
	if !ok {
		in = p.cover.OutsidePair(p.net, od) == ""
		p.inPair.Store(od, in)
	}
	if lo, hi, ranged := p.cover.Range(); in.(bool) && (!ranged || inRange(budget/let.Time[origin], lo, hi)) {
		return nil, nil
	}
	p.hopsMu.RLock()
	h, ok := p.hops[o.Destination]
	p.hopsMu.RUnlock()
	if !ok {
		h = p.net.FewestLinks(o.Destination, let)
		p.hopsMu.Lock()
		p.hops[o.Destination] = h
		p.hopsMu.Unlock()
	}
	return let, h
}

// FallbackName names the fallback.
func (p *ONNXPolicy) FallbackName() string { return Fallback }

// Fallback is the method a learned policy hands an episode over to.
const Fallback = "let"

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
		order := identity(len(o.Prefix))
		if p.o.Shuffle {
			order = shuffledOrder(o)
		}
		for k := range L {
			if k < len(o.Prefix) {
				st := o.Prefix[order[k]]
				b.Edges[i*L+k], b.Times[i*L+k] = int64(st.Link), float32(st.Time)
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

// onnxChunk is the most episodes one inference takes on the CPU: a pool's
// 2,000 at once held activations of 2,000 × prefix × 256 floats, out of the
// cache; on Anaheim's model chunks of 512 decided 12–28% faster (prefixes
// of 16 to 3 links). A row's outputs depend on its row alone, so the
// decisions are the same bits (TestONNXChunksDecideAsOneBatch). A GPU
// takes the batch whole.
const onnxChunk = 512

// ActBatch decides for a batch of episodes, in one inference on a GPU and
// in chunks of onnxChunk on the CPU. An episode at a node with one way out
// is not asked: the model's probabilities are masked to the links leaving
// the node, so that link is its argmax and its only draw (5% of the
// decisions on Anaheim). Episodes that would feed the model the same
// inputs are asked once when it acts greedily: every episode of a pool at
// its first decision (no prefix, the same node and budget), a quarter of
// the decisions on Sioux Falls. A row's outputs depend on its row alone
// (TestONNXChunksDecideAsOneBatch), so each gets the same link it would
// have alone.
func (p *ONNXPolicy) ActBatch(obs []*engine.Observation, links []int) {
	var ask []*engine.Observation // the episodes the model decides for
	var at [][]int                // for each, the places in obs it answers
	same := map[string]int{}      // an asked episode's inputs → its place in ask
	var key []byte
	for i, o := range obs {
		if out := p.net.Out(o.Node); len(out) == 1 {
			links[i] = out[0]
			continue
		}
		if !p.o.Sampled {
			key = inputKey(key[:0], o)
			if j, ok := same[string(key)]; ok {
				at[j] = append(at[j], i)
				continue
			}
			same[string(key)] = len(ask)
		}
		ask, at = append(ask, o), append(at, []int{i})
	}
	chosen := make([]int, len(ask))
	chunk := len(ask)
	if p.sess.Device() == "cpu" {
		chunk = onnxChunk
	}
	if order, groups := p.prefixGroups(ask); order != nil {
		// Rows that share a prefix are asked side by side, so that a chunk
		// encodes it once.
		sorted, picks := make([]*engine.Observation, len(ask)), make([]int, len(ask))
		for k, j := range order {
			sorted[k] = ask[j]
		}
		for from := 0; from < len(sorted); from += chunk {
			to := min(from+chunk, len(sorted))
			p.actStaged(sorted[from:to], groups, order[from:to], picks[from:to])
		}
		for k, j := range order {
			chosen[j] = picks[k]
		}
	} else {
		for from := 0; from < len(ask); from += chunk {
			to := min(from+chunk, len(ask))
			p.actBatch(ask[from:to], chosen[from:to])
		}
	}
	for j, places := range at {
		for _, i := range places {
			links[i] = chosen[j]
		}
	}
}

// inputKey appends what the model's row for o is made of (node,
// destination, budget, step, the prefix's links and times; the times as
// read, so that the shuffled control's order, seeded by them, is the same
// too) to b.
func inputKey(b []byte, o *engine.Observation) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(o.Node))
	b = binary.LittleEndian.AppendUint64(b, uint64(o.Destination))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(o.Remaining))
	b = binary.LittleEndian.AppendUint64(b, uint64(o.Step))
	for _, st := range o.Prefix {
		b = binary.LittleEndian.AppendUint64(b, uint64(st.Link))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(st.Time))
	}
	return b
}

// prefixGroups groups the rows of ask by what the model's encoder reads
// of them (the current node and the prefix as fed: links, and times as
// float32). It returns the rows in group order and each row's group, or
// nil when the model runs whole: it could not be cut, it samples (the
// parts answer logits, for a greedy choice), or no two rows share a prefix.
func (p *ONNXPolicy) prefixGroups(ask []*engine.Observation) (order, groups []int) {
	if p.stages == nil || p.o.Sampled {
		return nil, nil
	}
	groups = make([]int, len(ask))
	index := map[string]int{}
	var key []byte
	for i, o := range ask {
		key = binary.LittleEndian.AppendUint64(key[:0], uint64(o.Node))
		fed := identity(len(o.Prefix))
		if p.o.Shuffle {
			fed = shuffledOrder(o)
		}
		for _, k := range fed {
			key = binary.LittleEndian.AppendUint64(key, uint64(o.Prefix[k].Link))
			key = binary.LittleEndian.AppendUint32(key, math.Float32bits(float32(o.Prefix[k].Time)))
		}
		g, ok := index[string(key)]
		if !ok {
			g = len(index)
			index[string(key)] = g
		}
		groups[i] = g
	}
	if len(index) == len(ask) {
		// Nothing shared: the whole model is as fast or faster
		// (BenchmarkONNXDecisions: 5-10% on Sioux Falls at 256-2,000 rows).
		return nil, nil
	}
	order = identity(len(ask))
	slices.SortStableFunc(order, func(a, b int) int { return groups[a] - groups[b] })
	return order, groups
}

// actStaged decides for obs (rows rows of the call, with their prefix
// groups) in two inferences: each prefix encoded once, then every row.
func (p *ONNXPolicy) actStaged(obs []*engine.Observation, groups, rows []int, links []int) {
	var reps []*engine.Observation
	memRow := make([]int, len(obs))
	at := map[int]int{} // group → its row in the memory
	for k, r := range rows {
		g := groups[r]
		j, ok := at[g]
		if !ok {
			j = len(reps)
			at[g] = j
			reps = append(reps, obs[k])
		}
		memRow[k] = j
	}
	m, err := p.stages.Encode(p.batch(reps))
	var out *ort.Output
	if err == nil {
		out, err = p.stages.Decide(p.batch(obs), m, memRow)
		m.Release()
	}
	if err != nil {
		p.choose(obs, nil, err, links)
		return
	}
	// Where two links come within greedyMargin, the whole model's
	// probabilities choose, under the usual rule.
	var close []*engine.Observation
	var closeAt []int
	E := len(p.net.Links)
	for k, o := range obs {
		var ok bool
		if links[k], ok = greedyFromLogits(p.net.Out(o.Node), func(e int) (float64, float64) { return out.Logit(k, e, E) }); !ok {
			close, closeAt = append(close, o), append(closeAt, k)
		}
	}
	if len(close) > 0 {
		chosen := make([]int, len(close))
		p.actBatch(close, chosen)
		for j, k := range closeAt {
			links[k] = chosen[j]
		}
	}
}

// greedyMargin is how far the most probable link's probability must
// exceed every other's for a greedy choice to be read off the logits. The
// rule (argmaxLink) counts probabilities within scoreTie (10⁻⁶) as ties,
// and the model's float32 probabilities are the exact softmax of its
// logits to about 10⁻⁷; beyond 10⁻⁴ the rule takes that link whatever the
// last bits. Its softmax over every link was 12% of a decision on Anaheim.
const greedyMargin = 1e-4

// greedyFromLogits is the link of allowed with the highest logit, and
// whether its probability (the softmax over allowed) leads every other's
// by more than greedyMargin whatever the model's logits are within their
// bounds: logit(e) is link e's logit and how far the model's may lie from
// it (0 where the model answered it). Logits within β of these move each
// softmax weight by a factor within e^±β, so the lead is at least
// (w₁e^−2β − w₂)/Σw, w the weights of these logits.
func greedyFromLogits(allowed []int, logit func(e int) (float64, float64)) (int, bool) {
	if len(allowed) == 1 {
		return allowed[0], true
	}
	var buf [16]float64
	ls := buf[:0]
	top, beta := math.Inf(-1), 0.0
	for _, e := range allowed {
		l, bound := logit(e)
		ls = append(ls, l)
		top, beta = max(top, l), max(beta, bound)
	}
	sum, best, p1, p2 := 0.0, allowed[0], math.Inf(-1), math.Inf(-1)
	for i, e := range allowed {
		w := math.Exp(ls[i] - top)
		sum += w
		if w > p1 {
			best, p1, p2 = e, w, p1
		} else if w > p2 {
			p2 = w
		}
	}
	return best, (p1*math.Exp(-2*beta)-p2)/sum > greedyMargin
}

// actBatch decides for a batch of episodes in one inference.
func (p *ONNXPolicy) actBatch(obs []*engine.Observation, links []int) {
	out, err := p.sess.Run(p.batch(obs))
	p.choose(obs, out, err, links)
}

// choose reads the model's answer for obs into links (the first way out
// where it failed, the error kept for Err).
func (p *ONNXPolicy) choose(obs []*engine.Observation, out *ort.Output, err error, links []int) {
	E := len(p.net.Links)
	for i, o := range obs {
		allowed := p.net.Out(o.Node)
		links[i] = allowed[0]
		if err != nil {
			continue
		}
		probs := out.Probs[i*E : (i+1)*E]
		if p.o.Sampled {
			u := rand.Float64()
			for _, e := range allowed {
				links[i] = e
				if u -= float64(probs[e]); u <= 0 {
					break
				}
			}
			continue
		}
		links[i] = argmaxLink(allowed, func(e int) float64 { return float64(probs[e]) }, nil, nil)
	}
	if err != nil {
		p.mu.Lock()
		if p.err == nil {
			p.err = fmt.Errorf("onnx inference: %w", err)
		}
		p.mu.Unlock()
	}
}

func identity(n int) []int {
	ix := make([]int, n)
	for i := range ix {
		ix[i] = i
	}
	return ix
}

// shuffledOrder is a permutation of the prefix seeded by the observation
// itself (its links, times, node and step).
func shuffledOrder(o *engine.Observation) []int {
	h := fnv.New64a()
	for _, st := range o.Prefix {
		fmt.Fprintf(h, "%d:%x;", st.Link, math.Float64bits(st.Time))
	}
	fmt.Fprintf(h, "%d|%d|%d", o.Node, o.Destination, o.Step)
	return rand.New(rand.NewPCG(h.Sum64(), 0x5eed)).Perm(len(o.Prefix))
}

// Act decides for one episode.
func (p *ONNXPolicy) Act(o *engine.Observation) int {
	links := []int{0}
	p.ActBatch([]*engine.Observation{o}, links)
	return links[0]
}

// UserPrefix starts the method name of a model a user uploaded.
const UserPrefix = "user:"

// Ablations are the controls `ontime train --ablation` trains; method
// gpght-X runs models/NETWORK-X.onnx.
var Ablations = []string{"noha", "nodt", "vpg", "nohist", "shuffled", "indep"}

var ablationDocs = map[string]string{
	"":         "the GPG-HT policy trained for the network (models/NETWORK.onnx, via ontime train)",
	"noha":     "GPG-HT control: no history-aware link/time cross-attention or time residual",
	"nodt":     "GPG-HT control: a linear decision module instead of the Transformer decoder",
	"vpg":      "GPG-HT control: plain per-step vanilla policy gradient (no baseline, no entropy bonus)",
	"nohist":   "GPG-HT control: the route prefix hidden from the model",
	"shuffled": "GPG-HT control: the route prefix fed in a shuffled order (training and evaluation)",
	"indep":    "GPG-HT control: trained as if links were independent, evaluated on the network's correlation",
}

// unpacked is where the embedded models were unpacked (once a process).
var unpacked struct {
	once sync.Once
	dir  string
	err  error
}

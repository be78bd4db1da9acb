//go:build cgo

package policy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
	"github.com/ontime-routing/ontime/engine/trainspec"
)

var tinyModel = filepath.Join("..", "..", "models", "testdata", "tiny.onnx")

// ortTwoBranch is the five-node example, for a test that needs ONNX
// Runtime (it skips without the library, and fails under CI).
func ortTwoBranch(t *testing.T) *engine.Network {
	t.Helper()
	if _, err := ort.FindLibrary(); err != nil {
		testenv.Missing(t, err.Error())
	}
	net, err := builtin.Load("twobranch", "")
	if err != nil {
		t.Fatal(err)
	}
	return net
}

// The tiny parity model (untrained, five links) runs as a batched policy
// on the five-node example: every action is a link leaving the node, and a
// batch decides like its rows run alone.
func TestONNXPolicyOnTwoBranch(t *testing.T) {
	net := ortTwoBranch(t)
	m, _ := linktime.New(net)
	meth, err := Lookup("onnx:" + tinyModel)
	if err != nil {
		t.Fatal(err)
	}
	p, settings, err := meth.New(&Env{Net: net, Model: m})
	if err != nil {
		t.Fatal(err)
	}
	if settings["device"] != "cpu" {
		t.Errorf("settings %v", settings)
	}
	pool := sim.NewPool(m, "twobranch", sim.Test, 0, 500, 0, nil)
	res := make([]sim.Result, pool.Size)
	r := &sim.Runner{Net: net}
	if err := r.Run(p, sim.Task{OD: net.ODs[0], Budget: 106, Cap: 4}, pool, res); err != nil {
		t.Fatal(err)
	}
	for _, x := range res {
		if x.End != sim.Arrived && x.End != sim.OverTime {
			t.Fatalf("episode ended %v", x.End)
		}
	}
	// Batched and single decisions agree.
	b, _ := net.NodeIndex("B")
	obs := []*engine.Observation{
		{Node: 0, Destination: 4, Remaining: 106},
		{Node: b, Destination: 4, Remaining: 100.2, Step: 1, Prefix: []engine.Step{{Link: 0, Time: 5.8}}},
		{Node: b, Destination: 4, Remaining: 101.9, Step: 1, Prefix: []engine.Step{{Link: 0, Time: 4.1}}},
	}
	links := make([]int, len(obs))
	p.(engine.BatchPolicy).ActBatch(obs, links)
	for i, o := range obs {
		if single := p.Act(o); single != links[i] {
			t.Errorf("row %d: batch chose %d, alone %d", i, links[i], single)
		}
	}
}

func TestONNXPolicyRejectsOtherNetworks(t *testing.T) {
	if _, err := ort.FindLibrary(); err != nil {
		testenv.Missing(t, err.Error())
	}
	net, m := reliability() // 4 links, the model has 5
	_, err := NewONNXPolicy(net, tinyModel, ONNXOptions{})
	if err == nil || !strings.Contains(err.Error(), "does not fit network reliability") {
		t.Fatalf("err = %v", err)
	}
	_ = m
	if _, err := NewONNXPolicy(net, "nowhere.onnx", ONNXOptions{}); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Errorf("missing file: %v", err)
	}
}

func TestGPGHTNeedsATrainedModelForThisNetwork(t *testing.T) {
	net, m := reliability()
	dir := t.TempDir()
	_, _, err := gpghtMethod("").New(&Env{Net: net, Model: m, ModelsDir: dir})
	if engine.ErrorCode(err) != engine.ENOTFOUND || !strings.Contains(err.Error(), "ontime train --network reliability") {
		t.Fatalf("no model: %v", err)
	}
	// A model whose card names another fingerprint is refused.
	raw, _ := os.ReadFile(tinyModel)
	os.WriteFile(filepath.Join(dir, "reliability.onnx"), raw, 0o644)
	os.WriteFile(filepath.Join(dir, "reliability.card.json"), []byte(`{"fingerprint": "0123456789abcdef"}`), 0o644)
	_, _, err = gpghtMethod("").New(&Env{Net: net, Model: m, ModelsDir: dir})
	if engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(err.Error(), "trained for another network") {
		t.Fatalf("wrong fingerprint: %v", err)
	}
}

func TestGPGHTAblationsLoadTheirOwnModel(t *testing.T) {
	net, m := reliability()
	dir := t.TempDir()
	for _, a := range Ablations {
		meth, err := Lookup("gpght-" + a)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = meth.New(&Env{Net: net, Model: m, ModelsDir: dir})
		if engine.ErrorCode(err) != engine.ENOTFOUND || !strings.Contains(err.Error(), "reliability-"+a+".onnx") ||
			!strings.Contains(err.Error(), "--ablation "+a) {
			t.Errorf("%s: %v", a, err)
		}
	}
	// The card must say which ablation the model is; the indep control's
	// fingerprint is that of independent links.
	raw, _ := os.ReadFile(tinyModel)
	os.WriteFile(filepath.Join(dir, "reliability-indep.onnx"), raw, 0o644)
	fp := trainspec.Fingerprint(net, engine.Correlation{Model: "independent"})
	os.WriteFile(filepath.Join(dir, "reliability-indep.card.json"), []byte(`{"fingerprint": "`+fp+`", "ablation": "vpg"}`), 0o644)
	meth, _ := Lookup("gpght-indep")
	if _, _, err := meth.New(&Env{Net: net, Model: m, ModelsDir: dir}); engine.ErrorCode(err) != engine.EINVALID ||
		!strings.Contains(err.Error(), `ablation "vpg"`) {
		t.Errorf("mislabelled card: %v", err)
	}
}

func TestShuffledOrderDependsOnlyOnTheObservation(t *testing.T) {
	o := &engine.Observation{Node: 3, Destination: 7, Step: 5, Prefix: []engine.Step{{Link: 1, Time: 2}, {Link: 4, Time: 3.5},
		{Link: 2, Time: 1}, {Link: 9, Time: 4}, {Link: 6, Time: 0.5}}}
	a, b := shuffledOrder(o), shuffledOrder(o)
	seen := map[int]bool{}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("orders differ: %v %v", a, b)
		}
		seen[a[i]] = true
	}
	if len(seen) != len(o.Prefix) {
		t.Fatalf("not a permutation: %v", a)
	}
	moved := false
	for k := range 20 { // across observations the order varies
		o.Step = k
		if fmt.Sprint(shuffledOrder(o)) != fmt.Sprint(identity(len(o.Prefix))) {
			moved = true
		}
	}
	if !moved {
		t.Error("20 observations, never shuffled")
	}
}

// A batch larger than onnxChunk runs in chunks on the CPU and decides as one
// inference over the whole batch does: each row's probabilities are the
// same bits in a chunk as in the whole (rows of different prefix lengths
// padded together), so the benchmark's numbers do not move. Rows at a node
// with one way out (twobranch's A, C and D) are decided without the model,
// as the model decides them.
func TestONNXChunksDecideAsOneBatch(t *testing.T) {
	net := ortTwoBranch(t)
	p, err := NewONNXPolicy(net, filepath.Join("..", "..", "models", "twobranch.onnx"), ONNXOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	rng := rand.New(rand.NewPCG(4, 7))
	obs := make([]*engine.Observation, 3*onnxChunk+17)
	for i := range obs {
		o := randomWalk(net, rng, 13)
		if len(net.Out(o.Node)) == 0 {
			o.Node, o.Prefix, o.Step = 0, nil, 0 // at the destination: ask at the origin
		}
		obs[i] = o
	}
	whole, err := p.sess.Run(p.batch(obs))
	if err != nil {
		t.Fatal(err)
	}
	E := len(net.Links)
	for from := 0; from < len(obs); from += onnxChunk {
		to := min(from+onnxChunk, len(obs))
		part, err := p.sess.Run(p.batch(obs[from:to]))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range part.Probs {
			if w := whole.Probs[from*E+k]; math.Float64bits(float64(v)) != math.Float64bits(float64(w)) {
				t.Fatalf("row %d link %d: %v in its chunk, %v in the whole batch", from+k/E, k%E, v, w)
			}
		}
	}
	oneWay := 0
	for _, o := range obs {
		if len(net.Out(o.Node)) == 1 {
			oneWay++
		}
	}
	if oneWay == 0 || oneWay == len(obs) {
		t.Fatalf("%d of %d rows at a node with one way out: the test needs both kinds", oneWay, len(obs))
	}
	chunked, one := make([]int, len(obs)), make([]int, len(obs))
	p.ActBatch(obs, chunked)
	p.actBatch(obs, one)
	if !slices.Equal(chunked, one) {
		t.Error("chunked and whole-batch decisions differ")
	}
}

// randomWalk is an observation on twobranch towards node 4 after up to
// maxSteps−1 random links from node 0, each taking half to one and a half
// times its mean (fewer where it reaches the end).
func randomWalk(net *engine.Network, rng *rand.Rand, maxSteps int) *engine.Observation {
	o := &engine.Observation{Destination: 4, Remaining: 80 + 40*rng.Float64()}
	for k := rng.IntN(maxSteps); k > 0 && len(net.Out(o.Node)) > 0; k-- {
		out := net.Out(o.Node)
		l := out[rng.IntN(len(out))]
		dt := net.Links[l].Mean * (0.5 + rng.Float64())
		o.Prefix = append(o.Prefix, engine.Step{Link: l, Time: dt})
		o.Node, o.Remaining, o.Step = net.Links[l].To, o.Remaining-dt, o.Step+1
	}
	return o
}

// rowCounter counts the rows a session is asked for.
type rowCounter struct {
	ort.Session
	rows int
}

func (c *rowCounter) Run(b *ort.Batch) (*ort.Output, error) {
	c.rows += b.B
	return c.Session.Run(b)
}

// Episodes that feed the model the same inputs are asked once (every
// episode of a pool at its first decision), and each gets the link the
// whole batch, asked row by row, gives it; a sampling policy asks each.
func TestONNXAsksSameInputsOnce(t *testing.T) {
	net := ortTwoBranch(t)
	rng := rand.New(rand.NewPCG(5, 8))
	var obs []*engine.Observation
	distinct := 0
	for range 40 {
		o := *randomWalk(net, rng, 4)
		if len(net.Out(o.Node)) < 2 {
			continue
		}
		distinct++
		for range 1 + rng.IntN(5) { // copies, each its own observation
			c := o
			c.Prefix = slices.Clone(o.Prefix)
			obs = append(obs, &c)
		}
	}
	if distinct < 10 || distinct == len(obs) {
		t.Fatalf("%d distinct of %d observations: the test needs many, and copies", distinct, len(obs))
	}
	for _, sampled := range []bool{false, true} {
		p, err := NewONNXPolicy(net, filepath.Join("..", "..", "models", "twobranch.onnx"), ONNXOptions{Sampled: sampled})
		if err != nil {
			t.Fatal(err)
		}
		count := &rowCounter{Session: p.sess}
		p.sess = count
		// The whole model's rows are counted here (copies share their
		// prefix, which the two parts would encode once:
		// TestONNXEncodesEachPrefixOnce).
		p.stages = nil
		got := make([]int, len(obs))
		p.ActBatch(obs, got)
		asked, want := count.rows, distinct
		if sampled {
			want = len(obs)
		} else {
			each := make([]int, len(obs))
			p.actBatch(obs, each)
			if !slices.Equal(got, each) {
				t.Errorf("decisions %v, asked row by row %v", got, each)
			}
		}
		if asked != want {
			t.Errorf("sampled %v: %d rows asked for %d observations, %d distinct: want %d", sampled, asked, len(obs), distinct, want)
		}
		p.Close()
	}
}

type encodeCounter struct {
	ort.TwoStage
	rows, decided int
}

func (c *encodeCounter) Encode(b *ort.Batch) (*ort.Memory, error) {
	c.rows += b.B
	return c.TwoStage.Encode(b)
}

func (c *encodeCounter) Decide(b *ort.Batch, m *ort.Memory, rows []int) (*ort.Output, error) {
	c.decided += b.B
	return c.TwoStage.Decide(b, m, rows)
}

// Episodes at different budgets that drove the same links in the same
// times (a benchmark's budgets stepping together) share their prefix: the
// model's encoder reads each distinct prefix once, in chunks too, and
// every episode gets the link the whole model gives it.
func TestONNXEncodesEachPrefixOnce(t *testing.T) {
	net := ortTwoBranch(t)
	rng := rand.New(rand.NewPCG(6, 9))
	var obs []*engine.Observation
	prefixes := 0
	for len(obs) < 2*onnxChunk+50 {
		o := *randomWalk(net, rng, 4)
		if len(net.Out(o.Node)) < 2 {
			continue
		}
		prefixes++
		for k := range 1 + rng.IntN(3) { // the same prefix under other budgets
			c := o
			c.Prefix = slices.Clone(o.Prefix)
			c.Remaining += 7 * float64(k)
			obs = append(obs, &c)
		}
	}
	p, err := NewONNXPolicy(net, filepath.Join("..", "..", "models", "twobranch.onnx"), ONNXOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.stages == nil {
		t.Fatal("twobranch.onnx runs whole")
	}
	count := &encodeCounter{TwoStage: p.stages}
	p.stages = count
	got := make([]int, len(obs))
	p.ActBatch(obs, got)
	// A chunk boundary may part a prefix's rows: each chunk encodes it.
	chunks := (len(obs) + onnxChunk - 1) / onnxChunk
	if count.rows < prefixes || count.rows >= prefixes+chunks || count.decided != len(obs) {
		t.Errorf("%d prefixes encoded, %d rows decided, for %d observations of %d prefixes", count.rows, count.decided, len(obs), prefixes)
	}
	whole := make([]int, len(obs))
	p.actBatch(obs, whole)
	if !slices.Equal(got, whole) {
		t.Error("the two parts decide otherwise than the whole model")
	}
}

// Read off the logits, a greedy choice is the one the rule makes on the
// model's probabilities, whatever their last bits: on random logits, many
// near ties among them, the model's own within a bound of those read (0,
// 10⁻⁶, 10⁻³ or 0.03, at random or at the bound's far end), wherever greedyFromLogits answers it agrees with
// argmaxLink on the float32 softmax of the model's logits with a few ulps
// of noise; where two probabilities come within the margin it does not
// answer.
func TestGreedyFromLogitsIsTheRulesChoice(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 11))
	answered, declined := 0, 0
	for range 20000 {
		n := 2 + rng.IntN(5)
		allowed := make([]int, n)
		logits := make([]float32, 12)
		for i := range logits {
			logits[i] = float32(rng.NormFloat64() * 3)
		}
		for i := range allowed {
			allowed[i] = i * 2
		}
		if rng.IntN(3) == 0 { // a near tie: two links a few ulps to 1e-3 apart
			a, b := allowed[rng.IntN(n)], allowed[rng.IntN(n)]
			logits[b] = logits[a] + float32(rng.Float64()*1e-3)*float32(rng.IntN(2))
		}
		// The model's logits lie within beta of those greedyFromLogits reads
		// (0: they are the model's; else made from its head in Go).
		// Half the time the model's lie at the far end: the leader read
		// lower, every other higher.
		beta := []float64{0, 1e-6, 1e-3, 3e-2}[rng.IntN(4)]
		lead := allowed[0]
		for _, e := range allowed {
			if logits[e] > logits[lead] {
				lead = e
			}
		}
		far := rng.IntN(2) == 0
		model := make([]float64, len(logits))
		for i, l := range logits {
			switch {
			case far && i == lead:
				model[i] = float64(l) - beta
			case far:
				model[i] = float64(l) + beta
			default:
				model[i] = float64(l) + beta*(2*rng.Float64()-1)
			}
		}
		link, ok := greedyFromLogits(allowed, func(e int) (float64, float64) { return float64(logits[e]), beta })
		top := math.Inf(-1)
		for _, e := range allowed {
			top = max(top, model[e])
		}
		sum := 0.0
		for _, e := range allowed {
			sum += math.Exp(model[e] - top)
		}
		probs := make([]float32, len(logits))
		for _, e := range allowed {
			p := float32(math.Exp(model[e]-top) / sum)
			probs[e] = math.Float32frombits(math.Float32bits(p) + uint32(rng.IntN(5)) - 2) // a few ulps either way
		}
		rule := argmaxLink(allowed, func(e int) float64 { return float64(probs[e]) }, nil, nil)
		if !ok {
			declined++
			continue
		}
		answered++
		if link != rule {
			t.Fatalf("logits %v over %v: %d read off the logits, the rule takes %d", logits, allowed, link, rule)
		}
	}
	if declined < 100 || answered < 10000 {
		t.Errorf("%d answered, %d left to the probabilities: the test needs both", answered, declined)
	}
}

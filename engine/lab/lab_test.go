package lab

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/testenv"
)

func TestNetworksWithoutData(t *testing.T) {
	l := New(Options{DataDir: t.TempDir()})
	nets := l.Networks()
	if len(nets) != 4 || !nets[0].Available || !nets[1].Available || nets[2].Available || !strings.Contains(nets[2].Reason, "ontime networks fetch") {
		t.Errorf("%+v", nets)
	}
	if _, err := l.Open("nowhere"); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Errorf("unknown network: %v", err)
	}
}

func TestCompareTwoBranch(t *testing.T) {
	n, err := New(Options{}).Open("twobranch")
	if err != nil {
		t.Fatal(err)
	}
	c, err := n.Compare(context.Background(), CompareRequest{OD: n.Net.ODs[0], Factor: 1, Realization: 7, Methods: []string{"let", "condrule", "clairvoyant", "nope"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Budget != 106 || len(c.Rollouts) != 4 || c.Rollouts[3].Err == "" {
		t.Fatalf("%+v", c)
	}
	for _, ro := range c.Rollouts[:3] {
		if ro.Err != "" || len(ro.Steps) == 0 || ro.Steps[0].Link != 0 {
			t.Errorf("%s: %+v", ro.Method, ro)
		}
	}
	// Every method saw the same realization.
	x := n.Realization(7)
	for _, ro := range c.Rollouts[:3] {
		for _, s := range ro.Steps {
			if s.Time != x[s.Link] {
				t.Errorf("%s: link %d took %v, realization says %v", ro.Method, s.Link, s.Time, x[s.Link])
			}
		}
	}
	if _, err := n.Compare(context.Background(), CompareRequest{OD: engine.OD{Origin: 4, Destination: 0}, Factor: 1}); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("unreachable OD: %v", err)
	}
}

func TestScopeFlagsRequestsOutsideTraining(t *testing.T) {
	n, err := New(Options{}).Open("twobranch")
	if err != nil {
		t.Fatal(err)
	}
	od := n.Net.ODs[0]
	if w := n.Scope("pql", od, 1.0); w != "" {
		t.Errorf("pql inside: %q", w)
	}
	if w := n.Scope("pql", od, 1.2); !strings.Contains(w, "outside") {
		t.Errorf("pql at 1.2: %q", w)
	}
	if w := n.Scope("let", od, 3); w != "" {
		t.Errorf("let is never out of range: %q", w)
	}
	if n.Runnable("pql", engine.OD{Origin: 0, Destination: 2}) {
		t.Error("pql has no table for destination C")
	}
	if card, err := n.Card(); err == nil {
		if w := n.Scope("gpght", od, card.BudgetFactors[1]+0.05); !strings.Contains(w, "outside") {
			t.Errorf("gpght above its range: %q", w)
		}
	}
}

func TestLiveMatchesThePoolsAndStops(t *testing.T) {
	n, _ := New(Options{}).Open("twobranch")
	var updates []LiveUpdate
	res, err := n.Live(context.Background(), LiveRequest{OD: n.Net.ODs[0], Factor: 1, Methods: []string{"let", "condrule"}, Episodes: 2500, Chunk: 500, Curve: []float64{0.99, 1.01}},
		func(u LiveUpdate) error { updates = append(updates, u); return nil })
	if err != nil {
		t.Fatal(err)
	}
	// 2000 from pool 0, then 500 from pool 1, in chunks of at most 500;
	// then the curve's two factors on each of the two pools. The share of
	// the work done grows to 1 with the last update, not before.
	if len(updates) != 5+4 || updates[4].Done != 2500 || updates[4].Curve || !updates[5].Curve || res.Rates[0].N != 2500 || len(res.Times["let"]) != 2500 {
		t.Fatalf("updates %+v, result %+v", updates, res.Rates)
	}
	for i, u := range updates {
		if i > 0 && u.Fraction <= updates[i-1].Fraction || u.Fraction > 1 {
			t.Errorf("update %d: fraction %v after %v", i, u.Fraction, updates[max(i-1, 0)].Fraction)
		}
	}
	if f := updates[len(updates)-1].Fraction; f != 1 {
		t.Errorf("last update: fraction %v", f)
	}
	if f := updates[4].Fraction; math.Abs(f-1.0/3) > 1e-12 {
		t.Errorf("after the episodes: fraction %v, want 1/3 (two curve factors replay them twice)", f)
	}
	if res.Rates[1].Rate <= res.Rates[0].Rate || len(res.Curve["condrule"]) != 2 || res.Curve["let"][0] > res.Curve["let"][1] {
		t.Errorf("rates %+v curve %v", res.Rates, res.Curve)
	}
	for m, ys := range res.Curve { // each point inside its interval, which narrows with 2,500 episodes
		for k, y := range ys {
			if ci := res.CurveCI[m][k]; !(ci[0] <= y && y <= ci[1]) || ci[1]-ci[0] > 0.05 {
				t.Errorf("%s at factor %v: rate %v, interval %v", m, res.Factors[k], y, ci)
			}
		}
	}
	// The curve at the run's own factor is the run's rate (same
	// realizations), whether the pools were kept or drawn again.
	for _, keep := range []int{livePoolBytes, 0} {
		defer func(b int) { livePoolBytes = b }(livePoolBytes)
		livePoolBytes = keep
		res, err := n.Live(context.Background(), LiveRequest{OD: n.Net.ODs[0], Factor: 1, Methods: []string{"let", "condrule"}, Episodes: 2500, Chunk: 500, Curve: []float64{1}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range []string{"let", "condrule"} {
			if res.Curve[m][0] != res.Rates[i].Rate {
				t.Errorf("keep %d bytes: %s curve at 1 is %v, rate %v", keep, m, res.Curve[m][0], res.Rates[i].Rate)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, err = n.Live(ctx, LiveRequest{OD: n.Net.ODs[0], Factor: 1, Methods: []string{"let"}, Episodes: 10000, Chunk: 100},
		func(u LiveUpdate) error { cancel(); return nil })
	if err == nil {
		t.Error("a cancelled run went on")
	}
}

func TestTeach(t *testing.T) {
	n, _ := New(Options{}).Open("twobranch")
	fast, err := n.Teach(4)
	if err != nil {
		t.Fatal(err)
	}
	slow, _ := n.Teach(6)
	if fast.Optimum == slow.Optimum || fast.NoHistoryChoice != slow.NoHistoryChoice {
		t.Errorf("fast %+v slow %+v", fast, slow)
	}
	if fast.WithHistory[0].OnTime <= fast.WithoutHistory[0].OnTime {
		t.Errorf("a fast A→B makes B→C likelier: %+v", fast)
	}
	if _, err := n.Teach(-3); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("negative time: %v", err)
	}
}

// BenchmarkCompareSFN is the comparison the dashboard streams: all methods
// with cached tables (built before the timer), on Sioux Falls; the server
// sends the first step as soon as this returns.
func BenchmarkCompareSFN(b *testing.B) {
	n, err := New(Options{DataDir: testenv.DataDir(b)}).Open("sfn")
	if err != nil {
		b.Fatal(err)
	}
	methods := []string{"let", "dot", "cdot", "cgr", "bestpath", "gpght", "clairvoyant"}
	od := n.Net.ODs[0]
	req := CompareRequest{OD: od, Factor: 1, Methods: methods}
	if _, err := n.Compare(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		req.Realization = i
		if _, err := n.Compare(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// A network without a model is said so in one plain sentence: no file
// path, no command line (a page shows it to a visitor).
func TestMissingModelSaidPlainly(t *testing.T) {
	l := New(Options{})
	defer l.Close()
	seen := 0
	for _, mi := range l.Models() {
		if mi.Card != nil || strings.HasPrefix(mi.Err, "network unavailable") {
			continue // a network without its data files is another message
		}
		seen++
		if strings.ContainsAny(mi.Err, "`/") || strings.Count(mi.Err, ". ") > 0 || mi.Err == "" {
			t.Errorf("%s: %q", mi.Network, mi.Err)
		}
		// Every page says it in the same words: the Models page, the
		// method pickers (opening the model) and the teaching pages.
		n, err := l.Open(mi.Network)
		if err != nil {
			t.Fatal(err)
		}
		_, err = n.Policy(policy.NetworkModelName())
		if got := l.ModelUnavailable(mi.Network, err); got != mi.Err {
			t.Errorf("%s: the picker says %q, the Models page %q", mi.Network, got, mi.Err)
		}
		if got := noModel(mi.Network, err, l.TrainingAvailable(mi.Network)); got != mi.Err {
			t.Errorf("%s: a teaching page says %q", mi.Network, got)
		}
	}
	if seen == 0 {
		t.Error("no network without a model (ringtown ships none): the check checked nothing")
	}
}

// One palette: the adapt lesson's bars take each method's colour from the
// registry, as Compare, Live and the benchmark chart do (the lesson once
// had its own four colours: LET pink there, grey elsewhere).
func TestAdaptLessonUsesTheRegistryColours(t *testing.T) {
	l := New(Options{})
	defer l.Close()
	n, err := l.Teaching()
	if err != nil {
		t.Fatal(err)
	}
	a, err := n.Adapt(context.Background(), 1.1)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Rates) < 2 {
		t.Fatalf("rates of %d methods", len(a.Rates))
	}
	for m := range a.Rates {
		if want := policy.Color(m); a.Colors[m] != want || want == "" {
			t.Errorf("%s: colour %q, the registry's %q", m, a.Colors[m], want)
		}
	}
}

// A learned model replays the curve's factors together (sim.RunTasks):
// each point is the rate a run at that factor alone gives, on the same
// realizations.
func TestLiveCurveOfALearnedModelIsItsRates(t *testing.T) {
	if _, err := ort.FindLibrary(); err != nil {
		testenv.Missing(t, err.Error())
	}
	n, _ := New(Options{}).Open("twobranch")
	curve := []float64{0.95, 1, 1.05}
	res, err := n.Live(context.Background(), LiveRequest{OD: n.Net.ODs[0], Factor: 1, Methods: []string{"gpght", "let"}, Episodes: 2500, Chunk: 500, Curve: curve}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, f := range curve {
		alone, err := n.Live(context.Background(), LiveRequest{OD: n.Net.ODs[0], Factor: f, Methods: []string{"gpght", "let"}, Episodes: 2500, Chunk: 500}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range []string{"gpght", "let"} {
			if alone.Rates[i].Err != "" {
				t.Fatalf("%s at %v: %s", m, f, alone.Rates[i].Err)
			}
			if res.Curve[m][k] != alone.Rates[i].Rate {
				t.Errorf("%s: curve at %v is %v, a run at %v alone %v", m, f, res.Curve[m][k], f, alone.Rates[i].Rate)
			}
		}
	}
}

package policy

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/sim"
)

// The MLP's hand-written gradients agree with central finite differences.
func TestMLPGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := NewMLP(7, 5, 4, rng)
	for i := range m.P {
		m.P[i] += 0.1 * rng.NormFloat64() // biases off zero too
	}
	x := []Feat{{1, 1}, {4, 1}, {6, 0.37}}
	rows := []int{0, 2, 3}
	dy := []float64{0.3, 0, -1.2, 0.7}
	loss := func() float64 {
		z := make([]float64, 5)
		y := make([]float64, 4)
		m.Forward(x, z, y, rows)
		s := 0.0
		for _, r := range rows {
			s += dy[r] * y[r]
		}
		return s
	}
	z := make([]float64, 5)
	y := make([]float64, 4)
	m.Forward(x, z, y, rows)
	grad := make([]float64, len(m.P))
	m.Backward(x, z, dy, rows, grad, nil)
	const h = 1e-6
	for i := range m.P {
		old := m.P[i]
		m.P[i] = old + h
		up := loss()
		m.P[i] = old - h
		down := loss()
		m.P[i] = old
		if fd := (up - down) / (2 * h); !scalar.EqualWithinAbsOrRel(fd, grad[i], 1e-6, 1e-5) {
			t.Errorf("param %d: analytic %.8f, finite difference %.8f", i, grad[i], fd)
		}
	}
}

// The MLP's branch-free passes give, bit for bit, what skipping inactive
// units gives (the form they replaced, written out here), on random
// networks whose hidden units include exact zeros of both signs and
// accumulated gradients.
func TestMLPBranchFreeMatchesSkipping(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		in, hidden, out := 3+rng.IntN(8), 1+rng.IntN(70), 2+rng.IntN(6)
		m := NewMLP(in, hidden, out, rng)
		_, b1, _, _ := m.parts(m.P)
		for h := range b1 {
			switch rng.IntN(4) {
			case 0:
				b1[h] = rng.NormFloat64()
			case 1:
				b1[h] = math.Copysign(0, -1)
			}
		}
		var x []Feat // sometimes none, so z is b1 with its signed zeros
		for i := range in {
			if rng.IntN(3) == 0 {
				x = append(x, Feat{i, rng.NormFloat64()})
			}
		}
		rows := []int{0, out - 1}
		dy := make([]float64, out)
		for o := range dy {
			dy[o] = rng.NormFloat64()
		}
		z, y := make([]float64, hidden), make([]float64, out)
		m.Forward(x, z, y, nil)
		grad := make([]float64, len(m.P))
		for i := range grad {
			if rng.IntN(2) == 0 {
				grad[i] = rng.NormFloat64() // an accumulation under way
			}
		}
		want := slices.Clone(grad)
		m.Backward(x, z, dy, rows, grad, nil)

		// the skipping form
		w1, b1, w2, b2 := m.parts(m.P)
		zs := slices.Clone(b1)
		for _, f := range x {
			for h := range hidden {
				zs[h] += w1[f.I*hidden+h] * f.V
			}
		}
		for o := range out {
			s := b2[o]
			for h := range hidden {
				if zs[h] > 0 {
					s += w2[o*hidden+h] * zs[h]
				}
			}
			if math.Float64bits(s) != math.Float64bits(y[o]) {
				t.Fatalf("trial %d: output %d %v, skipping gives %v", trial, o, y[o], s)
			}
		}
		gw1, gb1, gw2, gb2 := m.parts(want)
		dz := make([]float64, hidden)
		for _, o := range rows {
			d := dy[o]
			gb2[o] += d
			for h := range hidden {
				if zs[h] > 0 {
					gw2[o*hidden+h] += d * zs[h]
					dz[h] += d * w2[o*hidden+h]
				}
			}
		}
		for h, d := range dz {
			if d != 0 {
				gb1[h] += d
			}
		}
		for _, f := range x {
			for h, d := range dz {
				if d != 0 {
					gw1[f.I*hidden+h] += d * f.V
				}
			}
		}
		for i := range want {
			if math.Float64bits(want[i]) != math.Float64bits(grad[i]) {
				t.Fatalf("trial %d: gradient %d %v, skipping gives %v", trial, i, grad[i], want[i])
			}
		}
	}
}

// twoStage: s→m by link a or b, then m→t by link c or d (parallel links),
// independent Gaussian times.
func twoStage() (*engine.Network, *linktime.Gaussian) {
	net := &engine.Network{Name: "twostage", Correlation: engine.Correlation{Model: "independent"}}
	for _, id := range []string{"s", "m", "t"} {
		net.Nodes = append(net.Nodes, engine.Node{ID: id})
	}
	net.Links = []engine.Link{{From: 0, To: 1, Mean: 5, Var: 1}, {From: 0, To: 1, Mean: 5.5, Var: 0.1},
		{From: 1, To: 2, Mean: 10, Var: 4}, {From: 1, To: 2, Mean: 10.5, Var: 0.25}}
	net.Index()
	m, _ := linktime.New(net)
	return net, m
}

// On independent links DOT matches the exact adaptive optimum, here by
// quadrature: max over the first link of E[max over the second of
// P(X₂ ≤ T − X₁)]; and no fixed path beats it.
func TestDOTMatchesExactAndBeatsPaths(t *testing.T) {
	net, m := twoStage()
	for _, T := range []float64{14, 15.5, 16, 17} {
		d := NewDOT(net, m, 0.005)
		d.Solve(2, T)
		exact := 0.0
		for _, first := range []int{0, 1} {
			f := distuv.Normal{Mu: m.Mean[first], Sigma: m.SD[first]}
			v := quad.Fixed(func(x float64) float64 {
				best := 0.0
				for _, second := range []int{2, 3} {
					best = math.Max(best, distuv.Normal{Mu: m.Mean[second], Sigma: m.SD[second]}.CDF(T-x))
				}
				return f.Prob(x) * best
			}, f.Mu-8*f.Sigma, f.Mu+8*f.Sigma, 2000, nil, 0)
			exact = math.Max(exact, v)
		}
		got := d.Value(2, 0, T, net.EpisodeCap())
		if !scalar.EqualWithinAbs(got, exact, 0.003) {
			t.Errorf("T = %v: DOT %.4f, exact %.4f", T, got, exact)
		}
		for _, p := range [][]int{{0, 2}, {0, 3}, {1, 2}, {1, 3}} {
			if fixed := gaussianOnTime(m, p, T); fixed > got+0.002 {
				t.Errorf("T = %v: path %v scores %.4f above DOT %.4f", T, p, fixed, got)
			}
		}
	}
}

// The four-moment bound is a valid upper bound on P(Z ≥ 0) and no weaker
// than Cantelli's two-moment bound.
func TestMomentBound(t *testing.T) {
	lp := newMomentLP(241, 10)
	for _, tc := range []struct{ mean, sd float64 }{{-1, 1}, {-2, 1}, {-3, 2}, {-0.5, 3}} {
		raw := addMoments([5]float64{1, tc.mean, tc.mean * tc.mean, math.Pow(tc.mean, 3), math.Pow(tc.mean, 4)}, gaussRaw(0, tc.sd))
		b := lp.upper(raw)
		truth := 1 - distuv.Normal{Mu: tc.mean, Sigma: tc.sd}.CDF(0)
		cantelli := tc.sd * tc.sd / (tc.sd*tc.sd + tc.mean*tc.mean)
		if b < truth || b > cantelli+1e-9 {
			t.Errorf("N(%v, %v²): bound %.4f outside [truth %.4f, Cantelli %.4f]", tc.mean, tc.sd, b, truth, cantelli)
		}
	}
	if b := lp.upper(gaussRaw(0.1, 1)); b != 1 {
		t.Errorf("mean ≥ 0: bound %v, want 1", b)
	}
	// Raw moments of a sum add by binomial convolution: N(1,1) + N(2,4) = N(3,5).
	got := addMoments(gaussRaw(1, 1), gaussRaw(2, 2))
	want := gaussRaw(3, math.Sqrt(5))
	for k := range got {
		if !scalar.EqualWithinAbsOrRel(got[k], want[k], 1e-12, 1e-12) {
			t.Errorf("moment %d: %v, want %v", k, got[k], want[k])
		}
	}
}

// reliability: a low-mean, high-variance route o→a→d (LET) beside a
// slightly slower, steady one o→b→d.
func reliability() (*engine.Network, *linktime.Gaussian) {
	net := &engine.Network{Name: "reliability", Correlation: engine.Correlation{Model: "independent"}, StepCap: 4}
	for _, id := range []string{"o", "a", "b", "d"} {
		net.Nodes = append(net.Nodes, engine.Node{ID: id})
	}
	net.Links = []engine.Link{{From: 0, To: 1, Mean: 10, Var: 16}, {From: 1, To: 3, Mean: 10, Var: 16},
		{From: 0, To: 2, Mean: 10.5, Var: 0.25}, {From: 2, To: 3, Mean: 10.5, Var: 0.25}}
	net.Index()
	m, _ := linktime.New(net)
	return net, m
}

// At a generous budget the reliable methods take the steady route, at a
// tight one the risky route, so none passes by following LET.
func TestRiskyVersusSteady(t *testing.T) {
	if testing.Short() {
		t.Skip("trains or runs many episodes; the full run (make test) covers it")
	}
	net, m := reliability()
	od := engine.OD{Origin: 0, Destination: 3}
	tight, generous := 0.95*20, 1.1*20
	tasks := []sim.Task{{OD: od, Budget: tight, Cap: 4}, {OD: od, Budget: generous, Cap: 4}}
	for _, name := range []string{"dot", "fma", "mlr", "bestpath", "pql", "ctd", "segac", "segac-let", "cgr", "cdot"} {
		t.Run(name, func(t *testing.T) {
			meth, err := Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			p, _, err := meth.New(&Env{Net: net, Model: m, Tasks: tasks})
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				budget float64
				want   int
			}{{tight, 0}, {generous, 2}} {
				if got := p.Act(&engine.Observation{Node: 0, Destination: 3, Remaining: tc.budget}); got != tc.want {
					t.Errorf("budget %.1f: first link %d, want %d", tc.budget, got, tc.want)
				}
			}
		})
	}
}

// A second build with the same cache directory loads the learner instead of
// retraining it.
func TestLearnerCache(t *testing.T) {
	net, m := reliability()
	env := func() *Env {
		return &Env{Net: net, Model: m, CacheDir: t.TempDir(), Tasks: []sim.Task{{OD: engine.OD{Origin: 0, Destination: 3}, Budget: 20, Cap: 4}}}
	}
	e := env()
	s := pqlSettings{Samples: 50, Bins: 40, MaxSweeps: 10}
	a, hitA, err := newPQL(e, s)
	if err != nil || hitA {
		t.Fatalf("first build: hit %v, %v", hitA, err)
	}
	b, hitB, err := newPQL(e, s)
	if err != nil || !hitB {
		t.Fatalf("second build: hit %v, %v", hitB, err)
	}
	if a.Tabs[3].Q[0][20] != b.Tabs[3].Q[0][20] {
		t.Error("the cached table differs")
	}
	// Other settings, other entry.
	if _, hit, _ := newPQL(e, pqlSettings{Samples: 60, Bins: 40, MaxSweeps: 10}); hit {
		t.Error("a cache entry was reused across settings")
	}
	e2 := env()
	e2.Seed = 1
	e2.CacheDir = e.CacheDir
	if _, hit, _ := newPQL(e2, s); hit {
		t.Error("a cache entry was reused across benchmark instances")
	}
}

// gaussRaw returns the raw moments 0..4 of N(μ, σ²).
func gaussRaw(mu, sd float64) [5]float64 {
	v := sd * sd
	return [5]float64{1, mu, mu*mu + v, mu*mu*mu + 3*mu*v, mu*mu*mu*mu + 6*mu*mu*v + 3*v*v}
}

// A node set holds what was added since its last reset, and nothing from
// before, across the wrap of its generation counter.
func TestNodeSetResets(t *testing.T) {
	var s nodeSet
	s.reset(5)
	s.add(1)
	s.add(3)
	for v, want := range []bool{false, true, false, true, false} {
		if s.has(v) != want {
			t.Errorf("node %d: in the set %v, want %v", v, s.has(v), want)
		}
	}
	s.reset(5)
	if s.has(1) || s.has(3) {
		t.Error("a reset kept members")
	}
	s.add(2)
	s.gen = ^uint32(0) // the next reset wraps: the stamp 2 holds would come round again
	s.at[4] = 1
	s.reset(5)
	if s.gen != 1 || s.has(4) || s.has(2) {
		t.Errorf("after the wrap: generation %d, node 4 in the set %v, node 2 %v", s.gen, s.has(4), s.has(2))
	}
	s.reset(8) // a larger network
	s.add(7)
	if !s.has(7) || s.has(4) {
		t.Error("a grown set")
	}
}

// SEGAC's teacher solves DOT tables of its own, to the larger budgets its
// training draws: building segac leaves the shared tables (dot's, cdot's,
// ctd's) at the budgets asked, so those methods' numbers do not depend on
// whether segac is in the run.
func TestSEGACLeavesTheSharedDOTTables(t *testing.T) {
	net, m := twoStage()
	od := engine.OD{Origin: 0, Destination: 2}
	env := &Env{Net: net, Model: m, Tasks: sim.Tasks(net, []engine.OD{od}, []float64{1, 1.05})}
	bins := func() int {
		d := env.DOT()
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.tabs[od.Destination].n
	}
	before := bins()
	_, _, err := newSEGAC(env, segacSettings{Teacher: "dot", Hidden: 4, WarmIters: 2, Iters: 2, Batch: 4, Replay: 1,
		LR: 1e-3, CriticLR: 1e-3, Entropy: 0.01, RhoMax: 2, Explore: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if after := bins(); after != before {
		t.Errorf("the shared table towards t went from %d bins to %d with segac built", before, after)
	}
}

// PQL's sweep starts each sample's bins at firstNonZero: every bin it skips
// reads exactly 0 from interp, and the first one it keeps may not (so the
// sums are the full loop's, bit for bit), where sweepInterp adds what
// interp reads. Rows with zero, some and all leading zeros; link times
// below a bin, between bins, past the top and far below one bin.
func TestPQLSkipsOnlyZeroReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 2000 {
		n := 2 + rng.IntN(60)
		row := make([]float64, n)
		z := rng.IntN(n + 1)
		for b := z; b < n; b++ {
			row[b] = rng.Float64()
		}
		if z < n && rng.IntN(4) == 0 {
			row[z] = math.SmallestNonzeroFloat64
		}
		w := rng.Float64() * float64(n+3)
		if rng.IntN(5) == 0 {
			w = float64(rng.IntN(n + 2)) // on a bin exactly
		}
		first := firstNonZero(w, leadingZeros(row), n)
		for b := range first {
			if v := interp(row, float64(b)-w); math.Float64bits(v) != 0 {
				t.Fatalf("trial %d (n %d, %d zeros, w %v): skipped bin %d reads %v", trial, n, z, w, b, v)
			}
		}
		// sweepInterp adds what interp reads from first on, bit for bit
		// (tiny link times too, where b − w rounds to b)
		if rng.IntN(6) == 0 {
			w = math.Ldexp(rng.Float64(), -60-rng.IntN(900))
			first = firstNonZero(w, leadingZeros(row), n)
		}
		got, want := make([]float64, n), make([]float64, n)
		for k := range n {
			got[k] = rng.Float64()
		}
		copy(want, got)
		sweepInterp(got, row, w, first)
		for b := first; b < n; b++ {
			want[b] += interp(row, float64(b)-w)
		}
		for b := range n {
			if math.Float64bits(got[b]) != math.Float64bits(want[b]) {
				t.Fatalf("trial %d (n %d, w %v): sweepInterp's bin %d is %v, interp's %v", trial, n, w, b, got[b], want[b])
			}
		}
		if first < n && first > 0 {
			// the skip test fails at first: it is not more than needed
			x := float64(first) - w
			if x < 0 || int(x)+1 < leadingZeros(row) {
				t.Fatalf("trial %d: bin %d kept though it reads between zeros", trial, first)
			}
		}
	}
}

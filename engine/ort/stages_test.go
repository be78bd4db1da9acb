//go:build cgo

package ort

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ontime-routing/ontime/engine/testenv"
)

// The model in two parts answers every row's logits as the whole model
// does, to its float32 rounding (bit for bit up to the head, whose logits
// are made in Go): the golden cases (prefixes of length 0, 1 and full, ragged,
// 33 rows) and random batches, each row reading its prefix's encoding
// from a memory of other rows, repeated and out of order.
func TestStagesDecideAsRun(t *testing.T) {
	s, cases, E := openTiny(t)
	st, err := Stages(s)
	if err != nil {
		t.Fatalf("tiny.onnx runs whole: %v", err)
	}
	check := func(t *testing.T, b *Batch) {
		t.Helper()
		whole, err := s.Run(b)
		if err != nil {
			t.Fatal(err)
		}
		// The memory holds the rows reversed; row i reads its own.
		rev := reversed(b)
		m, err := st.Encode(rev)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Release()
		rows := make([]int, b.B)
		for i := range rows {
			rows[i] = b.B - 1 - i
		}
		parts, err := st.Decide(b, m, rows)
		if err != nil {
			t.Fatal(err)
		}
		if parts.Probs != nil {
			t.Error("the decoder answered probabilities")
		}
		if parts.head == nil {
			t.Error("on the CPU the decoder kept its head")
		}
		// Each logit made from the head lies within its bound of the whole
		// model's, and the bounds are those of a float32 sum (a mis-read
		// head or row is off by far more).
		for i := range whole.Logits {
			l, bound := parts.Logit(i/E, i%E, E)
			if math.Abs(float64(whole.Logits[i])-l) > bound || bound > 1e-4 {
				t.Fatalf("row %d link %d: logit %v whole, %v ± %.2g in two parts", i/E, i%E, whole.Logits[i], l, bound)
			}
		}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			check(t, &Batch{B: c.B, L: c.L, E: E, Edges: c.Edges, Times: c.Times, Pad: c.Pad,
				Cur: c.Cur, Dest: c.Dest, Budget: c.Budget, Step: c.Step, AMask: c.AMask})
		})
	}
	c := cases["b33"]
	nodes := int64(1)
	for _, x := range append(c.Cur, c.Dest...) {
		nodes = max(nodes, x+1)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		B, L := 1+rng.IntN(70), rng.IntN(9)
		b := &Batch{B: B, L: L, E: E, Edges: make([]int64, B*L), Times: make([]float32, B*L), Pad: make([]bool, B*L),
			Cur: make([]int64, B), Dest: make([]int64, B), Budget: make([]float32, B), Step: make([]int64, B), AMask: make([]bool, B*E)}
		for i := range B {
			n := rng.IntN(L + 1)
			for k := range L {
				b.Edges[i*L+k], b.Times[i*L+k], b.Pad[i*L+k] = int64(rng.IntN(E)), float32(rng.Float64()*5), k >= n
			}
			b.Cur[i], b.Dest[i], b.Budget[i], b.Step[i] = rng.Int64N(nodes), rng.Int64N(nodes), float32(rng.Float64()*30-5), int64(n)
			for e := range E {
				b.AMask[i*E+e] = rng.IntN(3) == 0
			}
		}
		t.Run("random", func(t *testing.T) {
			_ = trial
			check(t, b)
		})
	}
}

// reversed is b's rows in reverse order.
func reversed(b *Batch) *Batch {
	r := &Batch{B: b.B, L: b.L, E: b.E, Edges: make([]int64, 0, len(b.Edges)), Times: make([]float32, 0, len(b.Times)), Pad: make([]bool, 0, len(b.Pad)),
		Cur: make([]int64, 0, b.B), Dest: make([]int64, 0, b.B), Budget: make([]float32, 0, b.B), Step: make([]int64, 0, b.B), AMask: make([]bool, 0, len(b.AMask))}
	for i := b.B - 1; i >= 0; i-- {
		r.Edges = append(r.Edges, b.Edges[i*b.L:(i+1)*b.L]...)
		r.Times = append(r.Times, b.Times[i*b.L:(i+1)*b.L]...)
		r.Pad = append(r.Pad, b.Pad[i*b.L:(i+1)*b.L]...)
		r.Cur, r.Dest, r.Budget, r.Step = append(r.Cur, b.Cur[i]), append(r.Dest, b.Dest[i]), append(r.Budget, b.Budget[i]), append(r.Step, b.Step[i])
		r.AMask = append(r.AMask, b.AMask[i*b.E:(i+1)*b.E]...)
	}
	return r
}

// A model without the Transformer decoder (the nodt control) is not cut:
// it runs whole.
func TestModelWithoutDecoderRunsWhole(t *testing.T) {
	lib, err := FindLibrary()
	if err != nil {
		testenv.Missing(t, err.Error())
	}
	s, err := Open(filepath.Join("..", "..", "models", "sfn-nodt.onnx"), WithLibrary(lib))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := Stages(s); err == nil {
		t.Fatal("the nodt control was cut in two")
	}
}

//go:build cgo

package ort

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ontime-routing/ontime/engine/testenv"
)

type goldenCase struct {
	B, L   int
	Edges  []int64
	Times  []float32
	Pad    []bool
	Cur    []int64
	Dest   []int64
	Budget []float32
	Step   []int64
	AMask  []bool
	Logits []float32
	Probs  []float32
}

func openTiny(t *testing.T) (Session, map[string]goldenCase, int) {
	t.Helper()
	lib, err := FindLibrary()
	if err != nil {
		testenv.Missing(t, err.Error())
	}
	dir := filepath.Join("..", "..", "models", "testdata")
	raw, err := os.ReadFile(filepath.Join(dir, "tiny_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Links int
		Cases map[string]goldenCase
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	s, err := Open(filepath.Join(dir, "tiny.onnx"), WithLibrary(lib))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, g.Cases, g.Links
}

// Go through ONNX Runtime matches PyTorch's recorded outputs within 1e-5 for
// batch 1 with prefix lengths 0, 1 and full, a ragged batch and a batch of 33.
func TestParityWithPyTorch(t *testing.T) {
	s, cases, E := openTiny(t)
	for _, name := range []string{"b1_l0", "b1_l1", "b1_full", "ragged", "b33"} {
		c, ok := cases[name]
		if !ok {
			t.Fatalf("golden case %s missing", name)
		}
		t.Run(name, func(t *testing.T) {
			out, err := s.Run(&Batch{B: c.B, L: c.L, E: E, Edges: c.Edges, Times: c.Times, Pad: c.Pad,
				Cur: c.Cur, Dest: c.Dest, Budget: c.Budget, Step: c.Step, AMask: c.AMask})
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i := range c.Logits {
				worst = math.Max(worst, math.Abs(float64(out.Logits[i]-c.Logits[i])))
				worst = math.Max(worst, math.Abs(float64(out.Probs[i]-c.Probs[i])))
			}
			if worst > 1e-5 {
				t.Errorf("max abs difference %.2e > 1e-5", worst)
			}
			for b := range c.B {
				sum := 0.0
				for e := range E {
					p := float64(out.Probs[b*E+e])
					if math.IsNaN(p) || (!c.AMask[b*E+e] && p != 0) {
						t.Errorf("row %d link %d: prob %v (allowed %v)", b, e, p, c.AMask[b*E+e])
					}
					sum += p
				}
				if anyAllowed(c.AMask[b*E:(b+1)*E]) && math.Abs(sum-1) > 1e-5 {
					t.Errorf("row %d: probs sum to %v", b, sum)
				}
			}
		})
	}
}

func anyAllowed(m []bool) bool {
	for _, x := range m {
		if x {
			return true
		}
	}
	return false
}

// Asking for CUDA on a machine without it falls back to the CPU with one log
// line.
func TestCUDAFallback(t *testing.T) {
	lib, err := FindLibrary()
	if err != nil {
		testenv.Missing(t, err.Error())
	}
	var lines []string
	s, err := Open(filepath.Join("..", "..", "models", "testdata", "tiny.onnx"), WithLibrary(lib), WithCUDA(0),
		WithLog(func(f string, a ...any) { lines = append(lines, f) }))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Device() == "cuda" {
		t.Skip("a CUDA device is present: no fallback to test")
	}
	if s.Device() != "cpu" || len(lines) != 1 {
		t.Errorf("device %s, %d log lines", s.Device(), len(lines))
	}
}

//go:build cgo

package ort

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine/testenv"
)

// FuzzAcceptance is an upload's acceptance check on fuzzed bytes: the
// interface check, then, for a model it accepts, one decision run under a
// deadline. Neither may crash the process, and a run returns whatever the
// graph (seeds: the tiny model and a never-ending Loop, which returns only
// because the deadline stops it; one that hung would end the fuzzing at
// its timeout).
func FuzzAcceptance(f *testing.F) {
	if _, err := FindLibrary(); err != nil {
		testenv.Missing(f, err.Error())
	}
	for _, name := range []string{"tiny.onnx", "loop.onnx"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "models", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, model []byte) {
		if CheckInterface(model, 5) != nil {
			return
		}
		path := filepath.Join(dir, "m.onnx")
		if err := os.WriteFile(path, model, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		s, err := Open(path, WithContext(ctx))
		if err != nil {
			return
		}
		defer s.Close()
		s.Run(&Batch{B: 1, L: 1, E: 5, Edges: []int64{0}, Times: []float32{1}, Pad: []bool{false}, Cur: []int64{1},
			Dest: []int64{4}, Budget: []float32{100}, Step: []int64{1}, AMask: []bool{false, true, true, false, false}})
	})
}

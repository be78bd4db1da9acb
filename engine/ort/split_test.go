package ort

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Every committed model with the Transformer decoder is cut the same way,
// into the same bytes each time: an encoder that reads only the prefix
// (edges, times, pad, and cur, whose shape it takes), and a decoder that
// reads the context and the encoder's memory, for the logits alone, or,
// cut before the head, for the head's input. The nodt control has no
// cross-attention to cut at.
func TestSplitModel(t *testing.T) {
	models, _ := filepath.Glob(filepath.Join("..", "..", "models", "*.onnx"))
	models = append(models, filepath.Join("..", "..", "models", "testdata", "tiny.onnx"))
	if len(models) < 10 {
		t.Fatalf("%d models found", len(models))
	}
	for _, path := range models {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cut, err := splitModel(data, false)
			if filepath.Base(path) == "sfn-nodt.onnx" || filepath.Base(path) == "sfn-nodt.imitation.onnx" {
				if err == nil {
					t.Fatal("the control without a decoder was cut")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(cut.encInputs, []string{"edges", "times", "pad", "cur"}) {
				t.Errorf("the encoder reads %v", cut.encInputs)
			}
			want := append([]string{"cur", "dest", "budget", "step"}, cut.memory...)
			if !slices.Equal(cut.decInputs, want) || len(cut.memory) != 3 {
				t.Errorf("the decoder reads %v, want %v", cut.decInputs, want)
			}
			again, _ := splitModel(data, false)
			if !bytes.Equal(cut.encoder, again.encoder) || !bytes.Equal(cut.decoder, again.decoder) {
				t.Error("two cuts of the same model differ")
			}
			if cut.head != nil || !slices.Equal(cut.outputs, []string{"logits"}) {
				t.Errorf("with its head the decoder answers %v", cut.outputs)
			}
			// Without its head the decoder answers the head's input, and
			// the head is the model's: E × d weights, E biases.
			headless, err := splitModel(data, true)
			if err != nil {
				t.Fatal(err)
			}
			h := headless.head
			if h == nil || len(headless.outputs) != 1 || headless.outputs[0] == "logits" || !bytes.Equal(headless.encoder, cut.encoder) {
				t.Fatalf("cut before the head: outputs %v, head %v", headless.outputs, h != nil)
			}
			if h.d < 8 || len(h.w) != len(h.b)*h.d || len(h.b) < 5 {
				t.Errorf("head: d %d, %d weights, %d biases", h.d, len(h.w), len(h.b))
			}
		})
	}
}

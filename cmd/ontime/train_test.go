package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// small is a training run of seconds (never a real training run in tests).
var small = []string{"--network", "twobranch", "--budgets", "0.98,1.02", "--demos", "100", "--imitation-epochs", "1",
	"--rounds", "1", "--round-episodes", "50", "--round-steps", "2", "--pg-chunks", "1", "--pg-iterations", "2",
	"--validation-size", "100", "--size", "16,1,1,2"}

// needTrainer skips (fails under CI) without PyTorch or ONNX Runtime.
func needTrainer(t *testing.T) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import torch, onnx").Run(); err != nil {
		testenv.Missing(t, "PyTorch and onnx for /usr/bin/python3 (make setup installs python3-torch python3-onnx)")
	}
	if _, err := ort.FindLibrary(); err != nil {
		testenv.Missing(t, err.Error())
	}
}

// A few seconds of the whole pipeline: spec from Go, imitation and policy
// gradient in PyTorch, ONNX export, the model loaded back in Go.
//
// 23 s: with the large cases. make test trains through the dashboard (the
// browser test's job and engine/lab's), the same trainer and spec.
func TestTrainSmoke(t *testing.T) {
	testenv.Large(t)
	needTrainer(t)
	out := filepath.Join(t.TempDir(), "tb.onnx")
	stdout, stderr, err := runCLI(t, map[string]string{"ONTIME_TRAINER": testenv.Trainer(t)}, append([]string{"train", "--out", out}, small...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"imitation checkpoint validation", "expert iteration round1:", "policy gradient pg1:", "phase:collect", "phase:fit"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "trained twobranch") {
		t.Errorf("stdout %q", stdout)
	}
	raw, err := os.ReadFile(strings.TrimSuffix(out, ".onnx") + ".card.json")
	if err != nil {
		t.Fatal(err)
	}
	var card struct {
		Fingerprint string
		Command     string
		Best        string
		Model       struct{ Parameters int }
		Rounds      []struct {
			Name   string
			Kept   bool
			Labels int
		}
		Training struct {
			TeacherChoice map[string]int `json:"teacher_choice"`
		}
	}
	if err := json.Unmarshal(raw, &card); err != nil || card.Fingerprint == "" || card.Model.Parameters == 0 ||
		!strings.HasPrefix(card.Command, "ontime train --network twobranch") || strings.Contains(card.Command, "--out") || len(card.Rounds) != 3 || card.Rounds[1].Labels == 0 ||
		card.Training.TeacherChoice["cgr"]+card.Training.TeacherChoice["cdot"] != 3 {
		t.Errorf("card %+v (%v)", card, err)
	}
	kept := ""
	for _, r := range card.Rounds {
		if r.Kept {
			kept = r.Name
		}
	}
	if kept != card.Best {
		t.Errorf("best %q, last kept round %q", card.Best, kept)
	}
	if _, err := os.Stat(strings.TrimSuffix(out, ".onnx") + ".imitation.onnx"); err != nil {
		t.Error(err)
	}
	if _, _, err := runCLI(t, nil, "train", "--network", "twobranch", "--ablation", "nope"); err == nil ||
		!strings.Contains(err.Error(), "--ablation") {
		t.Errorf("unknown ablation: %v", err)
	}
}

// The controls train through the same pipeline (a large case: three more
// training runs): the shuffled prefix and the vanilla estimator are
// trainer switches, indep changes the spec.
func TestTrainAblations(t *testing.T) {
	testenv.Large(t)
	needTrainer(t)
	for _, a := range []string{"shuffled", "vpg", "indep"} {
		out := filepath.Join(t.TempDir(), "twobranch-"+a+".onnx")
		_, stderr, err := runCLI(t, map[string]string{"ONTIME_TRAINER": testenv.Trainer(t)}, append([]string{"train", "--ablation", a, "--out", out}, small...)...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", a, err, stderr)
		}
		raw, _ := os.ReadFile(strings.TrimSuffix(out, ".onnx") + ".card.json")
		var c struct {
			Ablation    string
			Correlation string
			Model       struct {
				PrefixOrder string `json:"prefix_order"`
			}
			Training struct{ Baseline string }
		}
		json.Unmarshal(raw, &c)
		want := map[string]bool{"shuffled": c.Model.PrefixOrder == "shuffled", "vpg": c.Training.Baseline == "none",
			"indep": c.Correlation == "independent"}
		if c.Ablation != a || !want[a] {
			t.Errorf("%s card: %+v", a, c)
		}
	}
}

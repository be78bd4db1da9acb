package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/internal/testenv"
)

// A few seconds of the whole pipeline: spec from Go, imitation and policy
// gradient in PyTorch, ONNX export, the model loaded back in Go. (Never a
// real training run in tests.)
func TestTrainSmoke(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import torch, onnx").Run(); err != nil {
		testenv.Missing(t, "PyTorch and onnx for /usr/bin/python3 (make setup installs python3-torch python3-onnx)")
	}
	if _, err := ort.FindLibrary(); err != nil {
		testenv.Missing(t, err.Error())
	}
	// The trainer script is found relative to the repository root.
	wd, _ := os.Getwd()
	if err := os.Chdir(filepath.Join("..", "..")); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	out := filepath.Join(t.TempDir(), "tb.onnx")
	stdout, stderr, err := runCLI(t, nil, "train", "--network", "twobranch", "--budgets", "0.98,1.02", "--demos", "100",
		"--imitation-epochs", "1", "--minutes", "0.02", "--validation-size", "100", "--size", "16,1,1,2", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "trained twobranch") || !strings.Contains(stderr, `"phase": "imitation-done"`) {
		t.Errorf("stdout %q\nstderr %s", stdout, stderr)
	}
	raw, err := os.ReadFile(strings.TrimSuffix(out, ".onnx") + ".card.json")
	if err != nil {
		t.Fatal(err)
	}
	var card struct {
		Fingerprint string
		Command     string
		Model       struct{ Parameters int }
	}
	if err := json.Unmarshal(raw, &card); err != nil || card.Fingerprint == "" || card.Model.Parameters == 0 ||
		!strings.HasPrefix(card.Command, "ontime train --network twobranch") {
		t.Errorf("card %+v (%v)", card, err)
	}
	if _, err := os.Stat(strings.TrimSuffix(out, ".onnx") + ".imitation.onnx"); err != nil {
		t.Error(err)
	}
	// The controls train through the same pipeline: the shuffled prefix and
	// the vanilla estimator are trainer switches, indep changes the spec.
	for _, a := range []string{"shuffled", "vpg", "indep"} {
		out := filepath.Join(t.TempDir(), "twobranch-"+a+".onnx")
		_, stderr, err := runCLI(t, nil, "train", "--network", "twobranch", "--budgets", "0.98,1.02", "--demos", "50",
			"--imitation-epochs", "1", "--minutes", "0.01", "--validation-size", "50", "--size", "16,1,1,2", "--ablation", a, "--out", out)
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
	if _, _, err := runCLI(t, nil, "train", "--network", "twobranch", "--ablation", "nope"); err == nil ||
		!strings.Contains(err.Error(), "--ablation") {
		t.Errorf("unknown ablation: %v", err)
	}
}

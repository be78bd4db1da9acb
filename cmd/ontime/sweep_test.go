package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The sweep commands end to end on one machine: plan, the training phase
// and the tasks by their array indexes (as Slurm gives them), merge into the
// state directory, and the sbatch and Kubernetes files.
func TestSweepCommands(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sweep.toml")
	os.WriteFile(file, []byte("name = \"cli\"\nmethods = [\"let\", \"condrule\"]\nbudgets = [1.0]\npools = 2\npool_size = 100\nshards = 2\n[[networks]]\nname = \"twobranch\"\n"), 0o644)
	sw := filepath.Join(dir, "sw")
	state := t.TempDir()
	env := map[string]string{"ONTIME_STATE": state}
	if out, _, err := runCLI(t, env, "sweep", "plan", file, "--out", sw); err != nil || !strings.Contains(out, "1 instances, 2 tasks") {
		t.Fatalf("plan: %q %v", out, err)
	}
	if _, _, err := runCLI(t, env, "sweep", "run", sw); err == nil || !strings.Contains(err.Error(), "--task") {
		t.Errorf("run without an index: %v", err)
	}
	if _, _, err := runCLI(t, env, "sweep", "run", sw, "--task", "0"); err == nil || !strings.Contains(err.Error(), "training phase") {
		t.Errorf("run before training: %v", err)
	}
	if _, _, err := runCLI(t, map[string]string{"ONTIME_STATE": state, "SLURM_ARRAY_TASK_ID": "0"}, "sweep", "train", sw); err != nil {
		t.Fatal(err)
	}
	for _, i := range []string{"0", "1"} {
		if _, _, err := runCLI(t, map[string]string{"ONTIME_STATE": state, "JOB_COMPLETION_INDEX": i}, "sweep", "run", sw); err != nil {
			t.Fatal(err)
		}
	}
	if out, _, _ := runCLI(t, env, "sweep", "run", sw, "--task", "1"); !strings.Contains(out, "already done") {
		t.Errorf("a repeated task: %q", out)
	}
	out, _, err := runCLI(t, env, "sweep", "merge", sw)
	if err != nil || !strings.Contains(out, "stored instance 0") {
		t.Fatalf("merge: %q %v", out, err)
	}
	if out, _, _ := runCLI(t, env, "jobs", "list", "--kind", "bench"); !strings.Contains(out, "done") {
		t.Errorf("the merged report is not a stored job: %q", out)
	}
	if out, _, err := runCLI(t, env, "sweep", "slurm", sw, "--partition", "short", "--max-parallel", "3", "--cpus-per-task", "2"); err != nil || !strings.Contains(out, "eval.sbatch") {
		t.Fatalf("slurm: %q %v", out, err)
	}
	b, _ := os.ReadFile(filepath.Join(sw, "slurm", "eval.sbatch"))
	for _, want := range []string{"#SBATCH --array=0-1%3", "#SBATCH --partition=short", "#SBATCH --cpus-per-task=2", "sweep run --workers", "export ONTIME_STATE="} {
		if !strings.Contains(string(b), want) {
			t.Errorf("eval.sbatch lacks %q:\n%s", want, b)
		}
	}
	if _, _, err := runCLI(t, env, "sweep", "slurm", sw, "--missing"); err == nil || !strings.Contains(err.Error(), "nothing missing") {
		t.Errorf("--missing with nothing missing: %v", err)
	}
	if out, _, err := runCLI(t, env, "sweep", "k8s", sw, "--image", "ontime:dev", "--volume", "sweeps"); err != nil || !strings.Contains(out, "sweep.yaml") {
		t.Fatalf("k8s: %q %v", out, err)
	}
	y, _ := os.ReadFile(filepath.Join(sw, "k8s", "sweep.yaml"))
	if !strings.Contains(string(y), "completionMode: Indexed") || strings.Count(string(y), "kind: Job") != 3 {
		t.Errorf("sweep.yaml:\n%s", y)
	}
}

// A sweep takes an OpenStreetMap extract (or any network file) by its path,
// like a stored network by its name.
func TestSweepPlansAnOpenStreetMapFile(t *testing.T) {
	dir := t.TempDir()
	town := filepath.Join(dir, "town.osm")
	os.WriteFile(town, []byte(`<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6">
 <node id="1" lat="0" lon="0"/><node id="2" lat="0" lon="0.004"/><node id="3" lat="0.004" lon="0.004"/><node id="4" lat="0.004" lon="0"/>
 <way id="11"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="4"/><nd ref="1"/><tag k="highway" v="residential"/></way>
 <way id="12"><nd ref="1"/><nd ref="3"/><tag k="highway" v="primary"/><tag k="oneway" v="yes"/></way>
</osm>`), 0o644)
	file := filepath.Join(dir, "sweep.toml")
	os.WriteFile(file, []byte("name = \"osm\"\nmethods = [\"let\", \"dot\"]\nbudgets = [1.0]\npools = 2\npool_size = 50\n[[networks]]\nname = \""+town+"\"\nods = [\"1-3\"]\n"), 0o644)
	out, _, err := runCLI(t, map[string]string{"ONTIME_STATE": t.TempDir()}, "sweep", "plan", file, "--out", filepath.Join(dir, "sw"))
	if err != nil || !strings.Contains(out, "1 instances") {
		t.Fatalf("plan: %q %v", out, err)
	}
}

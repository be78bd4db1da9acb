package lab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/jobs"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/testenv"
	"github.com/ontime-routing/ontime/engine/train"
)

// tinyRequest is a training run of a few seconds (never a real one in tests).
func tinyRequest() train.Request {
	q := train.DefaultRequest()
	q.Teachers, q.Demos, q.ImitationEpochs, q.Rounds, q.RoundEpisodes, q.RoundSteps = []string{"cgr"}, 100, 1, 1, 40, 2
	q.ValidationSize, q.Size, q.Budgets = 100, [4]int{16, 1, 1, 2}, [2]float64{0.98, 1.02}
	return q
}

func waitJob(t *testing.T, l *Lab, id string, states ...string) jobs.Status {
	t.Helper()
	var st jobs.Status
	testenv.WaitFor(t, fmt.Sprintf("job %s in %v", id, states), func() bool {
		var err error
		if st, err = l.Jobs().Get(id); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(states, st.State) {
			return true
		}
		if jobs.Finished(st.State) {
			log, _ := l.Jobs().Log(id)
			t.Fatalf("job %+v, want %v; log:\n%s", st, states, log)
		}
		return false
	})
	return st
}

// A training job on a stored network runs to completion; its model is
// installed with its card, checked against the network's fingerprint and
// runs without a restart; the curve has the teacher's level and each
// validated checkpoint. A canceled job leaves no model; built-ins and bad
// requests are refused with the reason.
func TestTrainingJob(t *testing.T) {
	testenv.Large(t)
	if err := exec.Command("/usr/bin/python3", "-c", "import torch, onnx").Run(); err != nil {
		testenv.Missing(t, "PyTorch and onnx for /usr/bin/python3 (make setup installs python3-torch python3-onnx)")
	}
	if _, err := ort.FindLibrary(); err != nil {
		testenv.Missing(t, err.Error())
	}
	ctx := context.Background()
	l := New(Options{StateDir: t.TempDir(), Trainer: train.Trainer{Script: testenv.Trainer(t)}})
	defer l.Close()
	n := saveGrid(t, l)
	if _, err := n.Policy("gpght"); err == nil {
		t.Fatal("gpght runs before any model was trained")
	}
	if sfn, err := l.Open("twobranch"); err == nil {
		if _, err := l.StartTraining(sfn, tinyRequest(), ""); engine.ErrorCode(err) != engine.EINVALID {
			t.Errorf("training a built-in: %v", err)
		}
	}
	bad := tinyRequest()
	bad.Budgets = [2]float64{1.2, 1.1}
	if _, err := l.StartTraining(n, bad, ""); err == nil || !strings.Contains(err.Error(), "budgets") {
		t.Errorf("bad budgets: %v", err)
	}

	st, err := l.StartTraining(n, tinyRequest(), "")
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, l, st.ID, jobs.Done)
	var res TrainResult
	if err := l.Jobs().Result(st.ID, &res); err != nil || res.Model != "grid.onnx" {
		t.Fatalf("result %+v, %v", res, err)
	}
	for _, f := range []string{"grid.onnx", "grid.imitation.onnx", "grid.card.json"} {
		if _, err := os.Stat(filepath.Join(n.ModelsDir(), f)); err != nil {
			t.Errorf("installed model: %v", err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(n.ModelsDir(), ".train-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	card, err := n.Card()
	if err != nil || card.Fingerprint != res.Fingerprint {
		t.Fatalf("card %+v, %v", card, err)
	}
	// One episode rule across languages: the exported model in Go's
	// simulator takes the trainer's links and ends as the trainer's
	// episodes ended, on every validation episode.
	// The check plays one in Every of the Of validation episodes (all of
	// them up to train.MaxRuleCheck).
	if ch := card.EpisodeRule; ch == nil || ch.Episodes == 0 || ch.Every < 1 || ch.Episodes != (ch.Of+ch.Every-1)/ch.Every || ch.Episodes > train.MaxRuleCheck || ch.ActionsDiffer != 0 || ch.FlagsDiffer != 0 {
		t.Errorf("episode rule check: %+v", ch)
	} else {
		t.Logf("episode rule: Go and the trainer agree on %d of %d validation episodes", ch.Episodes, ch.Of)
	}
	c, err := n.Compare(ctx, CompareRequest{OD: n.Net.ODs[0], Factor: 1, Methods: []string{"let", "gpght"}})
	if err != nil || c.Rollouts[1].Err != "" {
		t.Fatalf("the new model does not run: %v %+v", err, c)
	}
	events, _ := l.Jobs().Events(st.ID, 0)
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, string(e))
	}
	curve := strings.Join(kinds, "\n")
	for _, want := range []string{`"kind":"teacher"`, `"kind":"imitation"`, `"kind":"expert iteration"`} {
		if !strings.Contains(curve, want) {
			t.Errorf("curve lacks %s:\n%s", want, curve)
		}
	}
	if log, _ := l.Jobs().Log(st.ID); !strings.Contains(log, "imitation") {
		t.Errorf("log: %.300s", log)
	}

	// A second run, canceled: the model of the first stays as it was.
	before, _ := os.ReadFile(filepath.Join(n.ModelsDir(), "grid.onnx"))
	again := tinyRequest()
	again.Seed = 1
	st2, err := l.StartTraining(n, again, "")
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, l, st2.ID, jobs.Running)
	if _, err := l.Jobs().Cancel(st2.ID); err != nil {
		t.Fatal(err)
	}
	waitJob(t, l, st2.ID, jobs.Canceled)
	after, _ := os.ReadFile(filepath.Join(n.ModelsDir(), "grid.onnx"))
	if string(before) != string(after) {
		t.Error("a canceled job changed the model")
	}
	if _, err := l.Restart(st.ID, ""); engine.ErrorCode(err) != engine.ECONFLICT {
		t.Errorf("restarting a finished job: %v", err)
	}
	re, err := l.Restart(st2.ID, "")
	if err != nil || re.ID != st2.ID || jobs.Finished(re.State) {
		t.Fatalf("restart of the canceled job: %+v, %v", re, err)
	}
	waitJob(t, l, st2.ID, jobs.Done)
}

// The learners train as a job; afterwards every request finds them built.
func TestLearnersJob(t *testing.T) {
	if testing.Short() {
		t.Skip("trains or runs many episodes; the full run (make test) covers it")
	}
	l := New(Options{StateDir: t.TempDir()})
	defer l.Close()
	n, err := l.Open(builtin.Example)
	if err != nil {
		t.Fatal(err)
	}
	st, err := l.StartLearners(n, "")
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, l, st.ID, jobs.Done)
	var res map[string]string
	if err := l.Jobs().Result(st.ID, &res); err != nil || len(res) < 3 {
		t.Fatalf("result %v, %v", res, err)
	}
	for name, state := range res {
		if state != "ready" || !n.Built(name) {
			t.Errorf("%s: %s, built %v", name, state, n.Built(name))
		}
	}
}

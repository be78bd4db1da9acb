package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/jobs"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/testenv"
	"github.com/ontime-routing/ontime/engine/train"
)

// killedTrainer stands in for the Python interpreter: it passes the
// dependency check, and as the trainer it reports progress, then dies by
// SIGKILL mid-run (what the kernel's OOM killer or a `kill -9` does).
const killedTrainer = `#!/bin/sh
if [ "$1" = "-c" ]; then exit 0; fi
echo '{"phase":"start","links":4}'
echo 'loading the spec' >&2
kill -9 $$
`

// A trainer killed mid-run fails its job with the reason, leaves the
// network's previous model as it was and no temporary files, and the lab
// goes on working: a benchmark on the same network runs to the end.
func TestTrainerKilledMidRun(t *testing.T) {
	dir := t.TempDir()
	python := filepath.Join(dir, "python")
	if err := os.WriteFile(python, []byte(killedTrainer), 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "train.py")
	os.WriteFile(script, nil, 0o644)
	l := New(Options{StateDir: t.TempDir(), Trainer: train.Trainer{Python: python, Script: script}})
	defer l.Close()
	n := saveGrid(t, l)
	// A model from an earlier run, which the failed one must not touch.
	os.MkdirAll(n.ModelsDir(), 0o755)
	earlier := map[string]string{"grid.onnx": "earlier model", "grid.card.json": `{"earlier":true}`}
	for f, body := range earlier {
		os.WriteFile(filepath.Join(n.ModelsDir(), f), []byte(body), 0o644)
	}

	st, err := l.StartTraining(n, tinyRequest(), "")
	if err != nil {
		t.Fatal(err)
	}
	st = waitJob(t, l, st.ID, jobs.Failed)
	if !strings.Contains(st.Error, "killed") || !strings.Contains(st.Error, "start the job again") {
		t.Errorf("the failure does not say the trainer was killed: %q", st.Error)
	}
	for f, body := range earlier {
		if got, _ := os.ReadFile(filepath.Join(n.ModelsDir(), f)); string(got) != body {
			t.Errorf("%s changed to %q", f, got)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(n.ModelsDir(), ".train-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if _, err := os.Stat(filepath.Join(n.ModelsDir(), "grid.imitation.onnx")); err == nil {
		t.Error("a half-trained checkpoint was installed")
	}
	if log, _ := l.Jobs().Log(st.ID); !strings.Contains(log, "loading the spec") {
		t.Errorf("the trainer's last words are not in the log: %q", log)
	}

	b, err := l.StartBench(n, BenchSpec{Methods: []string{"let", "dot"}, Budgets: []float64{1}, Pools: 2, PoolSize: 100}, "")
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, l, b.ID, jobs.Done)
}

// saveGrid stores the four-node grid (OD 1-4) as a network of the user's
// and opens it.
func saveGrid(t *testing.T, l *Lab) *Net {
	t.Helper()
	imp, err := l.ReadImport([]netfile.File{{Name: "grid.csv", Data: []byte(gridCSV)}}, netfile.ImportOptions{ODs: []string{"1-4"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Save(context.Background(), imp, "grid"); err != nil {
		t.Fatal(err)
	}
	n, err := l.Open("grid")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A stored network whose dense model takes long to build does not hold the
// requests for it: the first Open starts the build in the background and
// says so (EBUSY) without waiting for it (a build in the caller would end
// in the network, not EBUSY), as does every Open until it is ready; then
// the network opens, built once.
func TestSlowModelBuildsInTheBackground(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1,088-link dense model")
	}
	var csv strings.Builder
	csv.WriteString("From,To,Cost,Var\n")
	const w = 17
	_, streets := testenv.Grid(w, w, 100)
	for _, s := range streets {
		x, y := s[0]%w, s[0]/w
		there, back := 1+(x+y)%3, 1+(x*y)%3 // to the right
		if s[1] == s[0]+w {
			there, back = 1+(x+2*y)%3, 2 // downward
		}
		fmt.Fprintf(&csv, "%d,%d,%d,1\n%d,%d,%d,1\n", s[0]+1, s[1]+1, there, s[1]+1, s[0]+1, back)
	}
	l := New(Options{StateDir: t.TempDir(), CacheDir: t.TempDir()})
	defer l.Close()
	imp, err := l.ReadImport([]netfile.File{{Name: "big.csv", Data: []byte(csv.String())}}, netfile.ImportOptions{ODs: []string{fmt.Sprintf("1-%d", w*w)}})
	if err != nil {
		t.Fatal(err)
	}
	if !SlowModel(imp.Net) {
		t.Fatalf("%d links, %s: not a slow model", len(imp.Net.Links), imp.Net.Correlation.Model)
	}
	// The preview names the cost and the quick alternative before saving.
	prev, err := l.Preview(context.Background(), "", []netfile.File{{Name: "big.csv", Data: []byte(csv.String())}}, netfile.ImportOptions{ODs: []string{fmt.Sprintf("1-%d", w*w)}})
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(prev.Report.Notes, "\n"); !strings.Contains(notes, "random-psd is dense") || !strings.Contains(notes, "spatial-factor correlation builds in seconds") {
		t.Errorf("the preview does not name the dense model's cost: %s", notes)
	}
	if err := l.Save(context.Background(), imp, "big"); err != nil {
		t.Fatal(err)
	}
	// The network's page asks Building, which starts the build and says
	// how far it is (the page draws the map meanwhile: Graph).
	if b, ok := l.Building("big"); !ok || b.Links != len(imp.Net.Links) {
		t.Fatalf("Building: %+v, %v, want the build started", b, ok)
	}
	for i := range 3 {
		_, err := l.Open("big")
		if engine.ErrorCode(err) != engine.EBUSY {
			t.Fatalf("open %d: %v, want EBUSY while the model is built", i, err)
		}
		// The answer carries the build's progress for the page to show.
		if b, ok := AsBuilding(err); !ok || b.Links != len(imp.Net.Links) || b.Estimate <= 0 || b.Fraction() >= 1 {
			t.Fatalf("open %d: %v carries %+v, want the build's progress", i, err, b)
		}
	}
	testenv.WaitFor(t, "the model built in the background", func() bool {
		n, err := l.Open("big")
		if err == nil && len(n.Net.Links) != len(imp.Net.Links) {
			t.Fatal("a different network")
		}
		if err != nil && engine.ErrorCode(err) != engine.EBUSY {
			t.Fatal(err)
		}
		return err == nil
	})
}

// Deleting a network while its benchmark runs cancels the job and forgets
// it: nothing is stored after the rows are gone, and a new network of the
// same name shows no benchmark of the old one.
func TestDeleteNetworkDropsItsJobs(t *testing.T) {
	l := New(Options{StateDir: t.TempDir()})
	defer l.Close()
	n := saveGrid(t, l)
	b, err := l.StartBench(n, BenchSpec{Methods: []string{"let", "dot"}, Budgets: []float64{1}, Pools: 200, PoolSize: 100000}, "")
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, l, b.ID, jobs.Running)
	if err := l.DeleteNetwork(context.Background(), "grid"); err != nil {
		t.Fatal(err)
	}
	l.Jobs().Wait() // ends only if the delete canceled the job: run whole, it would take hours
	saveGrid(t, l)
	if st, _, _, ok := l.LatestBench("grid"); ok {
		t.Errorf("the new grid shows the old benchmark: %+v", st)
	}
	if _, err := l.Jobs().Get(b.ID); err == nil {
		t.Error("the deleted network's job is still listed")
	}
}

package sweep

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/testenv"
)

func opener(data string) Opener {
	return func(name string) (*engine.Network, error) { return builtin.Load(name, data) }
}

// comparable is a report's JSON without its timings.
func comparable(t *testing.T, rep *bench.Report) string {
	t.Helper()
	b, err := json.Marshal(rep.WithoutTimings())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runAll plans f into a new directory and runs its training phase and every
// task, tasks in a shuffled order (as a cluster would), then merges.
func runAll(t *testing.T, f *File, open Opener) (string, []Result) {
	t.Helper()
	dir := t.TempDir()
	m, err := Plan(f, open, "test", "abc")
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o := Options{Open: open, Workers: 2, Version: "test", Commit: "abc"}
	if _, err := Train(ctx, dir, 0, Options{Open: open, Version: "test", Commit: "other"}); err == nil || !strings.Contains(err.Error(), "same ontime") {
		t.Errorf("another ontime's task: %v", err)
	}
	for i := range m.Instances {
		if _, err := Train(ctx, dir, i, o); err != nil {
			t.Fatal(err)
		}
	}
	order := rand.New(rand.NewPCG(1, uint64(len(m.Tasks)))).Perm(len(m.Tasks))
	for _, i := range order {
		if _, err := RunTask(ctx, dir, i, o); err != nil {
			t.Fatal(err)
		}
	}
	res, c, err := Merge(dir, open, false)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Complete() || len(res) != len(m.Instances) {
		t.Fatalf("merge: %s, %d results", c.Summary(), len(res))
	}
	return dir, res
}

// unsharded is `ontime bench` on an instance.
func unsharded(t *testing.T, f *File, open Opener, inst Instance) *bench.Report {
	t.Helper()
	m := &Manifest{Methods: f.Methods, Focus: f.Methods[0], Budgets: f.Budgets, Pools: f.Pools, PoolSize: f.PoolSize, Version: "test", Commit: "abc"}
	cfg, err := m.Config(inst, open)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = 2
	rep, err := bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// Sharded any way, a sweep's merged report is the unsharded bench's, every
// number of the JSON (timings aside): 1, 2 and 7 shards, and more shards
// than pools (one pool a task), on four instances (two correlations × two
// seeds) of the five-node example with a learner among the methods.
func TestMergedEqualsUnsharded(t *testing.T) {
	seed := uint64(3)
	f := &File{Name: "t", Methods: []string{"let", "dot", "condrule", "ctd"}, Budgets: []float64{0.95, 1.05}, Pools: 8, PoolSize: 400,
		Seeds: []uint64{0, 1}, Networks: []NetworkSpec{{Name: "twobranch"}},
		Correlations: []CorrSpec{{}, {Model: "random-psd", Seed: &seed}}}
	open := opener("")
	var want []string
	for _, shards := range []int{1, 2, 7, 20} {
		f.Shards = shards
		_, res := runAll(t, f, open)
		if want == nil {
			for _, r := range res {
				want = append(want, comparable(t, unsharded(t, f, open, r.Instance)))
			}
		}
		for i, r := range res {
			if got := comparable(t, r.Report); got != want[i] {
				t.Errorf("%d shards, %s: the merged report differs from the unsharded bench", shards, r.Instance.Label())
			}
		}
	}
}

// On Sioux Falls with the benchmark data (a learner among the methods).
func TestMergedEqualsUnshardedSFN(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	open := opener(testenv.DataDir(t))
	f := &File{Name: "sfn", Methods: []string{"cgr", "dot", "pql"}, Budgets: []float64{1}, Pools: 4, PoolSize: 300, Shards: 3,
		Seeds: []uint64{0}, Networks: []NetworkSpec{{Name: "sfn", ODs: []string{"1-20", "13-2"}}}, Correlations: []CorrSpec{{}}}
	_, res := runAll(t, f, open)
	if got, want := comparable(t, res[0].Report), comparable(t, unsharded(t, f, open, res[0].Instance)); got != want {
		t.Error("sfn: the merged report differs from the unsharded bench")
	}
}

// A truncated part, a part of another sweep and a part edited after it was
// written are each found and named; a task whose part verifies is not run
// again; a corrupt one is, and the merge then succeeds.
func TestBadPartsAreFound(t *testing.T) {
	f := &File{Name: "t", Methods: []string{"let", "cgr"}, Budgets: []float64{1}, Pools: 4, PoolSize: 50, Shards: 4,
		Seeds: []uint64{0}, Networks: []NetworkSpec{{Name: "twobranch"}}, Correlations: []CorrSpec{{}}}
	open := opener("")
	dir, _ := runAll(t, f, open)
	other := *f
	other.PoolSize = 60
	odir, _ := runAll(t, &other, open)

	part := func(d string, i int) string { return partPath(d, i) }
	b, _ := os.ReadFile(part(dir, 0))
	os.WriteFile(part(dir, 0), b[:len(b)/2], 0o644) // truncated
	copyFile(t, part(odir, 1), part(dir, 1))        // another sweep's
	_, c, err := Merge(dir, open, false)
	if err == nil || !reflect.DeepEqual(c.Corrupt, []int{0, 1}) || !strings.Contains(err.Error(), "tasks corrupt: 0-1") {
		t.Fatalf("merge: %v; corrupt %v", err, c.Corrupt)
	}
	if !strings.Contains(c.Why["task 0"], "not a whole part") || !strings.Contains(c.Why["task 1"], "of sweep") {
		t.Errorf("why: %v", c.Why)
	}
	// Merged partially, the report says what is missing.
	if _, _, err := Merge(dir, open, true); err != nil {
		t.Fatal(err)
	}
	if md, _ := os.ReadFile(filepath.Join(dir, resultsDir, "report.md")); !strings.Contains(string(md), "**Partial**: tasks corrupt: 0-1") {
		t.Errorf("partial report: %.300s", md)
	}
	// An edited part fails its checksum.
	b, _ = os.ReadFile(part(dir, 2))
	os.WriteFile(part(dir, 2), []byte(strings.Replace(string(b), `"on_time":[[[`, `"on_time":[[[1`, 1)), 0o644)
	if _, c, _ := Merge(dir, open, false); !strings.Contains(c.Why["task 2"], "checksum") {
		t.Errorf("edited part: %v", c.Why)
	}
	// Rerun: verified parts are kept, the bad ones recomputed.
	o := Options{Open: open, Workers: 2, Version: "test", Commit: "abc"}
	for i := range 4 {
		done, err := RunTask(context.Background(), dir, i, o)
		if err != nil || done != (i == 3) {
			t.Errorf("task %d: done %v, %v", i, done, err)
		}
	}
	if _, _, err := Merge(dir, open, false); err != nil {
		t.Error(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A sweep file's mistakes are named with the file, the line and the field.
func TestReadFileErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"methods = [\"let\"]\nbudgets = [1.0]\npools = 4\nwhat = 1\n[[networks]]\nname = \"twobranch\"\n", "sweep.toml:4: what: unknown field"},
		{"methods = [\"let\", \"nope\"]\nbudgets = [1.0]\n[[networks]]\nname = \"twobranch\"\n", `sweep.toml:1: methods: unknown method "nope"`},
		{"methods = [\"let\"]\nbudgets = [1.0]\n[[networks]]\nname = \"twobranch\"\n[[correlations]]\n[[correlations]]\nmodel = \"weird\"\n", `sweep.toml:7: correlations[1].model: "weird"`},
		{"methods = [\"let\"]\nbudgets = [1.0]\npools = \"ten\"\n[[networks]]\nname = \"twobranch\"\n", "sweep.toml:3:"},
		{"methods = [\"let\"]\nbudgets = [1.0]\npools = 1\n[[networks]]\nname = \"twobranch\"\n", "sweep.toml:3: pools: 1: the paired tests need at least 2 pools"},
		{"methods = [\"let\"]\nbudgets = [1.0]\n", "networks: give at least one"},
	} {
		path := filepath.Join(t.TempDir(), "sweep.toml")
		os.WriteFile(path, []byte(tc.text), 0o644)
		_, err := ReadFile(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
	// An OD pair the network does not have fails the plan, naming it.
	f := &File{Methods: []string{"let"}, Budgets: []float64{1}, Pools: 2, PoolSize: 10, Shards: 1, Seeds: []uint64{0},
		Networks: []NetworkSpec{{Name: "twobranch", ODs: []string{"A-Q"}}}, Correlations: []CorrSpec{{}}}
	if _, err := Plan(f, opener(""), "", ""); err == nil || !strings.Contains(err.Error(), "networks[0].ods") {
		t.Errorf("plan with a bad OD: %v", err)
	}
}

// A network that changed after planning is refused, not mixed in.
func TestChangedNetworkIsRefused(t *testing.T) {
	f := &File{Methods: []string{"let"}, Budgets: []float64{1}, Pools: 2, PoolSize: 10, Shards: 1, Seeds: []uint64{0},
		Networks: []NetworkSpec{{Name: "twobranch"}}, Correlations: []CorrSpec{{}}}
	m, err := Plan(f, opener(""), "", "")
	if err != nil {
		t.Fatal(err)
	}
	changed := func(name string) (*engine.Network, error) {
		net, err := builtin.Load(name, "")
		if err == nil {
			net.Links[0].Mean += 1
		}
		return net, err
	}
	if _, err := m.Config(m.Instances[0], changed); err == nil || !strings.Contains(err.Error(), "not the one the sweep was planned on") {
		t.Errorf("changed network: %v", err)
	}
}

package lab

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/netfile"
)

const gridCSV = "From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n"

// A stored network survives a restart, opens like a built-in one, runs
// every method, and keeps its benchmark results; a rejected file stores
// nothing.
func TestStoredNetworkLifecycle(t *testing.T) {
	ctx := context.Background()
	state := t.TempDir()
	l := New(Options{StateDir: state, Version: "1.2.3", Commit: "abc123"})
	imp, err := l.ReadImport([]netfile.File{{Name: "grid.csv", Data: []byte(gridCSV)}}, netfile.ImportOptions{ODs: []string{"1-4"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Save(ctx, imp, "sfn"); engine.ErrorCode(err) != engine.EINVALID {
		t.Fatalf("a built-in's name was taken: %v", err)
	}
	if err := l.Save(ctx, imp, "grid"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.ReadImport([]netfile.File{{Name: "bad.csv", Data: []byte("From,To,Cost,Var\n1,1,x,1\n")}}, netfile.ImportOptions{}); err == nil {
		t.Fatal("a bad file was accepted")
	}
	n, err := l.Open("grid")
	if err != nil {
		t.Fatal(err)
	}
	spec := BenchSpec{Methods: []string{"let", "dot", "cgr"}, Budgets: []float64{1}, Pools: 2, PoolSize: 200}
	st, err := l.StartBench(n, spec, "")
	if err != nil {
		t.Fatal(err)
	}
	for st.State == "queued" || st.State == "running" {
		time.Sleep(10 * time.Millisecond)
		st, _, _, _ = l.Job(st.ID)
	}
	if st.State != "done" {
		t.Fatalf("job %+v", st)
	}
	l.Close()

	l = New(Options{StateDir: state})
	defer l.Close()
	var names []string
	for _, info := range l.Networks() {
		if info.Stored {
			names = append(names, info.Name)
		}
	}
	if strings.Join(names, ",") != "grid" {
		t.Fatalf("stored after restart: %v", names)
	}
	got, rep, jspec, ok := l.LatestBench("grid")
	if !ok || got.State != "done" || rep == nil || len(rep.Summary) != 3 || jspec.PoolSize != 200 {
		t.Fatalf("latest job after restart: %+v %v %+v", got, rep, jspec)
	}
	if p := rep.Provenance; p.Version != "1.2.3" || p.Commit != "abc123" {
		t.Errorf("a job's report records version %q, commit %q; want the lab's build", p.Version, p.Commit)
	}
	n, err = l.Open("grid")
	if err != nil {
		t.Fatal(err)
	}
	c, err := n.Compare(ctx, CompareRequest{OD: n.Net.ODs[0], Factor: 1, Methods: []string{"let", "dot", "cdot", "cgr", "fma", "mlr", "bestpath", "condrule", "clairvoyant"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ro := range c.Rollouts {
		if ro.Err != "" {
			t.Errorf("%s: %s", ro.Method, ro.Err)
		}
	}
	// Pools are keyed by the network's fingerprint, not its name: the same
	// network under the benchmark's name would not share its pools.
	if n.Net.PoolKey() == "grid" || !strings.HasPrefix(n.Net.PoolKey(), "fp:") {
		t.Errorf("pool key %q", n.Net.PoolKey())
	}
	if err := l.RenameNetwork(ctx, "grid", "grid2"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Open("grid"); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Errorf("old name still opens: %v", err)
	}
	if _, files, err := l.ExportNetwork(ctx, "grid2", ""); err != nil || len(files) != 1 || !strings.Contains(string(files[0].Data), `"name": "grid2"`) {
		t.Errorf("export: %v %v", err, files)
	}
	if _, files, err := l.ExportNetwork(ctx, "grid2", "gmns"); err != nil || len(files) != 2 || files[1].Name != "link.csv" {
		t.Errorf("GMNS export: %v %v", err, files)
	}
	if _, _, err := l.ExportNetwork(ctx, "grid2", "shp"); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("unknown format: %v", err)
	}
	if _, _, _, ok := l.LatestBench("grid2"); !ok {
		t.Error("the job did not follow its network's new name")
	}
	if err := l.DeleteNetwork(ctx, "grid2"); err != nil {
		t.Fatal(err)
	}
	if err := l.DeleteNetwork(ctx, "sfn"); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("a built-in could be deleted: %v", err)
	}
}

// Stopping the lab (SIGTERM on the dashboard) while a benchmark runs
// returns (Close waits for jobs at most closeWait) and leaves the job
// recorded as stopped, never as running or done.
func TestCloseStopsRunningJobs(t *testing.T) {
	state := t.TempDir()
	l := New(Options{StateDir: state})
	n, err := l.Open("twobranch")
	if err != nil {
		t.Fatal(err)
	}
	spec := BenchSpec{Methods: []string{"let", "condrule"}, Budgets: []float64{0.9, 1, 1.1}, Pools: 10, PoolSize: 20000}
	st, err := l.StartBench(n, spec, "")
	if err != nil {
		t.Fatal(err)
	}
	for st.State == "queued" {
		time.Sleep(10 * time.Millisecond)
		st, _, _, _ = l.Job(st.ID)
	}
	l.Close()
	l = New(Options{StateDir: state})
	defer l.Close()
	l.Jobs().Recover() // what the dashboard does at start
	st, _, _, err = l.Job(st.ID)
	if err != nil || st.State == "running" || st.State == "queued" || st.State == "done" {
		t.Fatalf("after the stop: %+v %v", st, err)
	}
}

// Previews are kept per client: one client's many uploads drop only its own
// oldest preview, never another client's (50 concurrent previews once
// expired 42 others' saves).
func TestPreviewsPerClient(t *testing.T) {
	l := New(Options{StateDir: t.TempDir()})
	defer l.Close()
	file := []netfile.File{{Name: "grid.csv", Data: []byte(gridCSV)}}
	other, err := l.Preview(context.Background(), "10.0.0.2", file, netfile.ImportOptions{ODs: []string{"1-4"}})
	if err != nil {
		t.Fatal(err)
	}
	var mine []string
	for range maxPendingPerClient + 2 {
		imp, err := l.Preview(context.Background(), "10.0.0.1", file, netfile.ImportOptions{ODs: []string{"1-4"}})
		if err != nil {
			t.Fatal(err)
		}
		mine = append(mine, imp.Token)
	}
	if _, err := l.Pending(other.Token); err != nil {
		t.Errorf("another client's preview was dropped: %v", err)
	}
	for i, tok := range mine {
		_, err := l.Pending(tok)
		if kept := i >= len(mine)-maxPendingPerClient; kept != (err == nil) {
			t.Errorf("preview %d of %d: kept %v, err %v", i+1, len(mine), kept, err)
		}
	}
}

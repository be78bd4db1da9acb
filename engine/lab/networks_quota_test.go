package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/testenv"
	"github.com/ontime-routing/ontime/engine/worker"
)

// The quota's counts and bytes are refused at the next save (507), naming
// the limit, and what was stored is all still there; a model over the
// model quota is refused before it is tried.
func TestQuota(t *testing.T) {
	ctx := context.Background()
	l := New(Options{StateDir: t.TempDir(), Quota: Quota{Networks: 2, Models: 1, Bytes: -1}})
	defer l.Close()
	imp, err := l.ReadImport([]netfile.File{{Name: "grid.csv", Data: []byte(gridCSV)}}, netfile.ImportOptions{ODs: []string{"1-4"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		err := l.Save(ctx, imp, fmt.Sprintf("grid%d", i))
		if i < 2 && err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
		if i == 2 && (engine.ErrorCode(err) != engine.ESTORAGE || !contains(err, "--max-networks")) {
			t.Fatalf("a third network past a quota of 2: %v", err)
		}
	}
	u, err := l.Usage(ctx)
	if err != nil || u.Networks != 2 {
		t.Fatalf("usage %+v %v", u, err)
	}
	for _, name := range []string{"grid0", "grid1"} {
		if _, err := l.LoadNetwork(ctx, name); err != nil {
			t.Errorf("%s after the refusal: %v", name, err)
		}
	}
	// Bytes: a quota just over what is stored refuses the next network.
	l.opts.Quota = Quota{Networks: -1, Models: -1, Bytes: u.Bytes + 10}
	if err := l.Save(ctx, imp, "grid2"); engine.ErrorCode(err) != engine.ESTORAGE || !contains(err, "--max-stored-mb") {
		t.Fatalf("a network past the byte quota: %v", err)
	}
	// Models: one already there fills a quota of one.
	l.opts.Quota = Quota{Networks: -1, Models: 1, Bytes: -1}
	st, _ := l.store()
	dir := filepath.Join(st.Dir, "models", "user", "grid0")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "first.onnx"), []byte("x"), 0o644)
	n, err := l.OpenWait(ctx, "grid0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.AddUserModel(ctx, n, "second", "second.onnx", []byte("not tried")); engine.ErrorCode(err) != engine.ESTORAGE || !contains(err, "--max-models") {
		t.Fatalf("a model past the model quota: %v", err)
	}
}

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

// One client has at most one dense model being built: saving a second
// network that needs one is refused (429) while the first is built, and
// allowed once it is done; another client is not held up.
func TestDenseBuildsPerClient(t *testing.T) {
	ctx := context.Background()
	// A worker that is never started here: only the bound is tested.
	l := New(Options{StateDir: t.TempDir(), CacheDir: t.TempDir(), Worker: &worker.Command{Path: "/bin/false"}})
	defer l.Close()
	links, nodes := testenv.Ring(520)
	imp, err := l.ReadImport([]netfile.File{{Name: "ring.csv", Data: []byte(links)}, {Name: "ring_node.tntp", Data: []byte(nodes)}},
		netfile.ImportOptions{ODs: []string{"1-260"}, Corr: engine.Correlation{Model: linktime.RandomPSD}})
	if err != nil {
		t.Fatal(err)
	}
	if !SlowModel(imp.Net) {
		t.Fatalf("a ring of %d links with %s is not a slow model", len(imp.Net.Links), imp.Net.Correlation.Model)
	}
	l.mu.Lock()
	l.denseBy["first"] = "10.0.0.1" // being built, saved by that client
	l.mu.Unlock()
	imp.owner = "10.0.0.1"
	if err := l.Save(ctx, imp, "second"); engine.ErrorCode(err) != engine.ETOOMANY || !contains(err, "first") {
		t.Fatalf("a second dense network from the same client: %v", err)
	}
	imp.owner = "10.0.0.2"
	if err := l.denseAllowed(imp.owner); err != nil {
		t.Errorf("another client: %v", err)
	}
	l.denseDone("first")
	if err := l.denseAllowed("10.0.0.1"); err != nil {
		t.Errorf("the first client once its model is built: %v", err)
	}
}

// Issue 71, cause 10: a client stores at most its share of the networks
// (507 saying so), others still store theirs; and the quota a server kept
// in its state directory holds for a process started without one (the
// command line), which stored 7 networks under --max-networks 3.
func TestQuotaShareAndKept(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	server := New(Options{StateDir: dir, Quota: Quota{Networks: 5, Models: -1, Bytes: -1, NetworksPerClient: 2}})
	defer server.Close()
	if err := server.KeepQuota(ctx); err != nil {
		t.Fatal(err)
	}
	preview := func(owner string) *Import {
		imp, err := server.Preview(ctx, owner, []netfile.File{{Name: "grid.csv", Data: []byte(gridCSV)}}, netfile.ImportOptions{ODs: []string{"1-4"}})
		if err != nil {
			t.Fatal(err)
		}
		return imp
	}
	for i := range 3 {
		err := server.Save(ctx, preview("10.0.0.1"), fmt.Sprintf("a%d", i))
		if i < 2 && err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
		if i == 2 && (engine.ErrorCode(err) != engine.ESTORAGE || !contains(err, "you have stored 2 networks on this dashboard, the share of one address (2 of its 5")) {
			t.Fatalf("past a client's share: %v", err)
		}
	}
	if err := server.Save(ctx, preview("10.0.0.2"), "b0"); err != nil {
		t.Fatalf("another client's network: %v", err)
	}
	// The command line: no quota of its own, the directory's holds.
	cli := New(Options{StateDir: dir})
	defer cli.Close()
	imp, err := cli.ReadImport([]netfile.File{{Name: "grid.csv", Data: []byte(gridCSV)}}, netfile.ImportOptions{ODs: []string{"1-4"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"c0", "c1"} { // the command line has no share: its own count is 2
		if err := cli.Save(ctx, imp, name); err != nil {
			t.Fatalf("network %s, within the quota: %v", name, err)
		}
	}
	if err := cli.Save(ctx, imp, "c2"); engine.ErrorCode(err) != engine.ESTORAGE || !contains(err, "stores 5 networks, its limit") {
		t.Fatalf("the command line past the kept quota of 5: %v", err)
	}
	if u, _ := cli.Usage(ctx); u.Networks != 5 {
		t.Errorf("%d networks stored, the quota is 5", u.Networks)
	}
}

package store

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine"
)

func TestRestartKeepsNetworksAndJobs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Version(); v != len(migrations) {
		t.Fatalf("schema version %d, want %d", v, len(migrations))
	}
	n := Network{Name: "berlin", Created: time.Now(), Nodes: 3, Links: 2, Settings: []byte(`{}`), Report: []byte(`{}`), Data: []byte(`{"x":1}`)}
	if err := s.PutNetwork(ctx, n); err != nil {
		t.Fatal(err)
	}
	if err := s.PutNetwork(ctx, n); engine.ErrorCode(err) != engine.EINVALID {
		t.Fatalf("second put of the same name: %v", err)
	}
	for _, j := range []Job{
		{ID: "a", Kind: "bench", Network: "berlin", State: "done", Spec: []byte(`{}`), Started: time.Now().Add(-time.Minute), Result: []byte(`{"r":1}`)},
		{ID: "b", Kind: "bench", Network: "berlin", State: "running", Spec: []byte(`{}`), Started: time.Now()},
		{ID: "c", Kind: "train", Network: "berlin", State: "running", Spec: []byte(`{}`), Started: time.Now(), Runner: "cli"},
	} {
		if err := s.PutJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	s.Close() // the process stops with job b running

	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Network(ctx, "berlin")
	if err != nil || string(got.Data) != `{"x":1}` || got.Links != 2 {
		t.Fatalf("after restart: %+v, %v", got, err)
	}
	// what a page says of it: everything but the data
	info, err := s.NetworkInfo(ctx, "berlin")
	if err != nil || len(info.Data) != 0 || info.Name != got.Name || info.Links != got.Links || string(info.Report) != string(got.Report) || !info.Created.Equal(got.Created) {
		t.Fatalf("info %+v, %v; the network %+v", info, err, got)
	}
	if _, err := s.NetworkInfo(ctx, "nowhere"); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Fatalf("info of no network: %v", err)
	}
	if j, _ := s.Job(ctx, "b"); j.State != "running" {
		t.Fatalf("opening the store (the CLI beside a server) changed a running job: %+v", j)
	}
	// A command line's job still running beside the new process stays.
	if n, err := s.MarkInterrupted(ctx, func(runner string) bool { return runner == "cli" }); err != nil || n != 1 {
		t.Fatalf("marked %d, %v", n, err)
	}
	if j, _ := s.Job(ctx, "c"); j.State != "running" {
		t.Fatalf("a live runner's job was marked: %+v", j)
	}
	// Another process asks to cancel it; the runner's own writes keep the ask.
	if asked, err := s.RequestCancel(ctx, "c"); err != nil || !asked {
		t.Fatalf("cancel of a running job: %v, %v", asked, err)
	}
	c, _ := s.Job(ctx, "c")
	c.Log = "still going"
	if err := s.PutJob(ctx, *c); err != nil {
		t.Fatal(err)
	}
	if asked, err := s.CancelRequested(ctx, "c"); err != nil || !asked {
		t.Fatalf("the ask did not survive the runner's write: %v, %v", asked, err)
	}
	if asked, _ := s.RequestCancel(ctx, "a"); asked {
		t.Fatal("a finished job was asked to cancel")
	}
	// The runner ends the job; started again under its id, it is unasked.
	c.State = "canceled"
	if err := s.PutJob(ctx, *c); err != nil {
		t.Fatal(err)
	}
	c.State = "queued"
	if err := s.PutJob(ctx, *c); err != nil {
		t.Fatal(err)
	}
	if asked, _ := s.CancelRequested(ctx, "c"); asked {
		t.Fatal("a job started again inherited the cancel asked of its last run")
	}
	if j, err := s.Job(ctx, "b"); err != nil || j.State != "interrupted" {
		t.Fatalf("running job after restart: %+v, %v", j, err)
	}
	if err := s.RenameNetwork(ctx, "berlin", "mitte", []byte(`{"x":2}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Network(ctx, "berlin"); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Fatalf("old name still there: %v", err)
	}
	if j, _ := s.Job(ctx, "a"); j.Network != "mitte" {
		t.Fatalf("job not renamed with its network: %+v", j)
	}
	if err := s.DeleteNetwork(ctx, "mitte"); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.Networks(ctx); len(list) != 0 {
		t.Fatalf("after delete: %v", list)
	}
	if _, err := s.Job(ctx, "a"); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Fatalf("jobs of a deleted network remain: %v", err)
	}
	if err := s.DeleteNetwork(ctx, "nope"); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Fatalf("delete of an unknown network: %v", err)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.db.Exec(`PRAGMA user_version = 99`)
	s.Close()
	if _, err := Open(dir); err == nil {
		t.Fatal("a database from a newer ontime was opened")
	}
}

// A process killed in the middle of writing loses nothing it had
// committed, and leaves a database that opens and passes SQLite's
// integrity check.
func TestCrashKeepsCommittedWrites(t *testing.T) {
	if os.Getenv("ONTIME_STORE_WRITER") != "" {
		writer(os.Getenv("ONTIME_STORE_WRITER"))
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestCrashKeepsCommittedWrites$")
	cmd.Env = append(os.Environ(), "ONTIME_STORE_WRITER="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Read committed names until 40 are acknowledged, then kill mid-stream.
	var committed []string
	sc := bufio.NewScanner(out)
	for sc.Scan() && len(committed) < 40 {
		if name, ok := strings.CutPrefix(sc.Text(), "committed "); ok {
			committed = append(committed, name)
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if len(committed) < 40 {
		t.Fatalf("the writer acknowledged only %d commits", len(committed))
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ok string
	if err := s.db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity check: %q %v", ok, err)
	}
	for _, name := range committed {
		if _, err := s.Network(context.Background(), name); err != nil {
			t.Errorf("committed network %s lost: %v", name, err)
		}
	}
}

// writer stores networks with a large payload as fast as it can, saying
// each commit on stdout, until it is killed.
func writer(dir string) {
	s, err := Open(dir)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	payload := bytes.Repeat([]byte("x"), 256<<10)
	for i := 0; ; i++ {
		name := fmt.Sprintf("n%d", i)
		if err := s.PutNetwork(context.Background(), Network{Name: name, Created: time.Now(), Settings: []byte("{}"), Report: []byte("{}"), Data: payload}); err != nil {
			fmt.Println("error", err)
			return
		}
		fmt.Println("committed", name)
	}
}

// Old finished jobs of a kind go beyond the newest keep; queued and running
// ones and other kinds stay; events and log survive a round trip.
func TestEvictJobs(t *testing.T) {
	ctx := context.Background()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Now()
	put := func(id, kind, state string, age int) {
		j := Job{ID: id, Kind: kind, Network: "n", State: state, Spec: []byte(`{}`), Started: t0.Add(-time.Duration(age) * time.Minute),
			Events: []byte("{\"i\":1}\n"), Log: "line\n"}
		if err := s.PutJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		put(fmt.Sprint("d", i), "train", "done", i)
	}
	put("q", "train", "queued", 10)
	put("b", "bench", "done", 20)
	n, err := s.EvictJobs(ctx, "train", 2)
	if err != nil || n != 3 {
		t.Fatalf("evicted %d, %v; want 3", n, err)
	}
	list, err := s.Jobs(ctx, "", "n", 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, j := range list {
		ids = append(ids, j.ID)
	}
	if strings.Join(ids, ",") != "d0,d1,q,b" {
		t.Errorf("left %v, want d0,d1,q,b (newest first)", ids)
	}
	if j, _ := s.Job(ctx, "d0"); string(j.Events) != "{\"i\":1}\n" || j.Log != "line\n" {
		t.Errorf("events %q, log %q", j.Events, j.Log)
	}
}

// One process at a time runs jobs on a state directory: a second claim is
// refused naming the holder, and closing the store releases it.
func TestClaimIsExclusive(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := a.Claim(); err != nil {
		t.Fatal(err)
	}
	err = b.Claim()
	if engine.ErrorCode(err) != engine.ECONFLICT || !strings.Contains(err.Error(), "in use by another ontime serve") {
		t.Fatalf("second claim: %v", err)
	}
	a.Close()
	if err := b.Claim(); err != nil {
		t.Errorf("claim after the holder closed: %v", err)
	}
}

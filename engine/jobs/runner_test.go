package jobs

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine/store"
)

// The Jobs page cancels a command line's job: two services on one state
// directory (the dashboard's and a command line's); the one that does not
// run the job asks through the store, the runner cancels it, and the
// dashboard's restart (Recover) leaves a live runner's job alone.
func TestCancelAJobOfAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	open := func() *store.Store {
		st, err := store.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	fast := Options{CancelPoll: 20 * time.Millisecond}
	cli := New(ctx, open(), fast)
	if _, err := cli.Submit(blocker("cli-job", make(chan struct{}))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, cli, "cli-job", Running)

	dash := New(ctx, open(), fast)
	if st, err := dash.Cancel("cli-job"); err != nil || st.State != Running {
		t.Fatalf("asking to cancel: %+v, %v", st, err)
	}
	end, err := cli.Await(context.Background(), "cli-job")
	if err != nil || end.State != Canceled {
		t.Fatalf("the runner's job after the ask: %+v, %v", end, err)
	}
	if got := waitFor(t, dash, "cli-job", Canceled); got.State != Canceled {
		t.Fatalf("the dashboard sees %s", got.State)
	}
	if _, err := dash.Cancel("cli-job"); err == nil {
		t.Error("canceling a finished job was accepted")
	}
}

// A runner is alive while its process runs on this host, and never when it
// is this process (a previous one with the same pid), unnamed or elsewhere.
func TestRunnerAlive(t *testing.T) {
	host, _ := os.Hostname()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep to start: %v", err)
	}
	other := fmt.Sprintf("%s:%d", host, cmd.Process.Pid)
	if !runnerAlive(other) {
		t.Errorf("a running process %s is not alive", other)
	}
	for _, r := range []string{thisRunner, "", "garbage", "elsewhere:1", host + ":x"} {
		if runnerAlive(r) {
			t.Errorf("runner %q alive", r)
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if runnerAlive(other) {
		t.Errorf("a stopped process %s still alive", other)
	}
}

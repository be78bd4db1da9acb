package jobs

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine/store"
	"github.com/ontime-routing/ontime/engine/testenv"
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

// A runner is alive while its process holds its lock, and never when it
// is this process (a previous one with the same pid), unnamed or elsewhere;
// a killed runner is gone at once, even as a zombie nobody reaped (kill(pid,
// 0) still succeeds for it), and so is a record of its pid with another
// nonce (a reused pid).
func TestRunnerAlive(t *testing.T) {
	if dir := os.Getenv("ONTIME_RUNNER_CHILD"); dir != "" {
		if err := holdRunnerLock(dir); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(thisRunner)
		select {} // until killed
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestRunnerAlive$")
	cmd.Env = append(os.Environ(), "ONTIME_RUNNER_CHILD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	sc := bufio.NewScanner(out)
	if !sc.Scan() || strings.HasPrefix(sc.Text(), "error") {
		t.Fatalf("the child runner: %q", sc.Text())
	}
	other := sc.Text()
	if !runnerAlive(dir, other) {
		t.Errorf("a running runner %s is not alive", other)
	}
	host, _ := os.Hostname()
	pid := cmd.Process.Pid
	reused := fmt.Sprintf("%s:%d:000000000000", host, pid)
	for _, r := range []string{thisRunner, "", "garbage", "elsewhere:1", host + ":x", reused} {
		if runnerAlive(dir, r) {
			t.Errorf("runner %q alive", r)
		}
	}
	// A record from before the locks (host:pid) is asked by pid.
	if !runnerAlive(dir, fmt.Sprintf("%s:%d", host, pid)) {
		t.Errorf("a running process %d named without a nonce is not alive", pid)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	testenv.WaitFor(t, "the killed runner to be a zombie", func() bool { return testenv.Zombie(pid) })
	if runnerAlive(dir, other) {
		t.Errorf("a killed, unreaped runner %s still alive", other)
	}
	if runnerAlive(dir, fmt.Sprintf("%s:%d", host, pid)) {
		t.Errorf("a killed, unreaped process %d named without a nonce still alive", pid)
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/ontime-routing/ontime/engine/store"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// serveChild is a test binary run as `ontime serve` on a state directory
// (this test re-executed with ONTIME_SERVE_CHILD set: it calls
// beServeChild first): it exits when SIGTERM arrives, as main does. It
// returns the child and its address.
func serveChild(t *testing.T, state string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^"+t.Name()+"$")
	cmd.Env = append(os.Environ(), "ONTIME_SERVE_CHILD="+state)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "dashboard on "); ok {
			go func() { // keep the pipe drained
				for sc.Scan() {
				}
			}()
			return cmd, strings.TrimSuffix(strings.Fields(rest)[0], "/")
		}
	}
	t.Fatal("the dashboard did not say its address")
	return nil, ""
}

// beServeChild runs the dashboard when this process is a serveChild, and
// exits; otherwise it returns.
func beServeChild() {
	dir := os.Getenv("ONTIME_SERVE_CHILD")
	if dir == "" {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM) // as main does
	defer stop()
	err := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--state", dir, "--warm=false", "--data", ""},
		func(string) string { return "" }, os.Stdout, os.Stderr)
	if err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// startRunningBench starts a benchmark that would take minutes on the
// dashboard at base and waits until it runs; it returns the job's id.
func startRunningBench(t *testing.T, base string) string {
	t.Helper()
	res, err := http.PostForm(base+"/api/bench", url.Values{"net": {"twobranch"}, "m": {"let,condrule,dot"}, "pools": {"10"}, "size": {"20000"}})
	if err != nil {
		t.Fatal(err)
	}
	var st struct{ ID, State string }
	json.NewDecoder(res.Body).Decode(&st)
	res.Body.Close()
	testenv.WaitFor(t, "the benchmark running", func() bool {
		if st.State != "" && st.State != "queued" && st.State != "running" {
			t.Fatalf("job %+v", st)
		}
		res, err := http.Get(base + "/api/jobs/" + st.ID)
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(res.Body).Decode(&st)
		res.Body.Close()
		return st.State == "running"
	})
	return st.ID
}

// SIGTERM while a benchmark runs: the dashboard process exits cleanly (it
// waits at most the jobs' 10 s and the server's 5 s; the benchmark run
// whole would take minutes), and the job is recorded as interrupted (its
// page offers to start it again), never left running.
func TestSIGTERMDuringWork(t *testing.T) {
	beServeChild()
	state := t.TempDir()
	cmd, base := serveChild(t, state)
	id := startRunningBench(t, base)
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("the dashboard's exit after SIGTERM: %v", err)
	}
	s, err := store.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	job, err := s.Job(context.Background(), id)
	if err != nil || job.State != "interrupted" {
		t.Fatalf("the job after SIGTERM: %+v %v", job, err)
	}
}

// A dashboard killed (SIGKILL) while a job runs, and a new one started on
// its state directory while the first is a zombie nobody has reaped (its
// pid still answers kill(pid, 0)): the new one sees the job interrupted,
// and restarting it is accepted. The liveness of a job's runner is its
// lock, which the kernel drops when the process dies.
func TestSIGKILLedServerUnreaped(t *testing.T) {
	beServeChild()
	state := t.TempDir()
	cmd, base := serveChild(t, state)
	id := startRunningBench(t, base)
	cmd.Process.Signal(syscall.SIGKILL)
	// Not reaped: the child stays a zombie until the test's cleanup waits.
	testenv.WaitFor(t, "the killed dashboard to be a zombie", func() bool { return testenv.Zombie(cmd.Process.Pid) })
	if cmd.Process.Signal(syscall.Signal(0)) != nil {
		t.Log("the killed child was reaped already (no zombie to test with)")
	}
	second := serveInProcess(t, "--state", state)
	res, err := http.Get(second + "/api/jobs/" + id)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var st struct{ Status struct{ State string } }
	json.Unmarshal(body, &st)
	if st.Status.State != "interrupted" {
		t.Fatalf("the killed dashboard's job, seen by the next: %d %.300s, want interrupted", res.StatusCode, body)
	}
	res, err = http.Post(second+"/api/jobs/"+id+"/restart", "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode >= 300 {
		t.Errorf("restarting the interrupted job: %d", res.StatusCode)
	}
}

// serveInProcess starts the dashboard on a free port and returns its base
// address; it stops when the test ends.
func serveInProcess(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw, _ := os.Pipe()
	done := make(chan struct{})
	var logs syncBuffer // the server's log, shown when the test fails
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the dashboard's log:\n%s", logs.String())
		}
	})
	go func() {
		defer close(done)
		err := run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--warm=false", "--data", ""}, args...),
			func(string) string { return "" }, pw, &logs)
		if err != nil {
			fmt.Fprintln(pw, "serve:", err)
		}
		pw.Close()
	}()
	t.Cleanup(func() { cancel(); <-done })
	sc := bufio.NewScanner(pr)
	var said []string
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "dashboard on "); ok {
			go io.Copy(io.Discard, pr)
			return strings.TrimSuffix(strings.Fields(rest)[0], "/")
		}
		said = append(said, sc.Text())
	}
	t.Fatalf("the dashboard did not say its address; it said %q", said)
	return ""
}

// One server per state directory: a second is refused at start, naming the
// first, and touches none of its jobs. The running one answers only to its
// addresses, localhost and its --host names (DNS rebinding).
func TestServeClaimsItsStateAndChecksHosts(t *testing.T) {
	state := t.TempDir()
	base := serveInProcess(t, "--state", state, "--host", "class.example")
	err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--warm=false", "--data", "", "--state", state},
		func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "in use by another ontime serve") {
		t.Fatalf("a second server on the same state directory: %v", err)
	}
	port := base[strings.LastIndex(base, ":"):]
	for host, want := range map[string]int{"evil.example" + port: 403, "localhost" + port: 200, "class.example": 200, "CLASS.example.": 200} {
		req, _ := http.NewRequest("GET", base+"/", nil)
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, res.StatusCode, want)
		}
	}
}

// A client that sends its body slowly is cut off at --read-timeout: a
// hundred of them cannot hold the server's connections.
func TestSlowBodiesAreCutOff(t *testing.T) {
	base := serveInProcess(t, "--read-timeout", "500ms")
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/bench HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nnet=")
	// Ends when the server closes the connection; a server that held it
	// would hold this read until the test binary's timeout.
	if _, err := io.ReadAll(conn); err != nil {
		t.Errorf("the connection ended with %v, want the server's close", err)
	}
}

// A tile URL that cannot be used stops serve at once, naming the flag's
// value (ONTIME_TILES too); a good one reaches the pages.
func TestServeChecksTheTileURL(t *testing.T) {
	for _, env := range []bool{false, true} {
		args := []string{"serve", "--addr", "127.0.0.1:0", "--warm=false", "--data", "", "--state", t.TempDir()}
		getenv := func(string) string { return "" }
		if env {
			getenv = func(k string) string {
				return map[string]string{"ONTIME_TILES": "https://tiles.example/{z}/{x}.png"}[k]
			}
		} else {
			args = append(args, "--tiles", "https://tiles.example/{z}/{x}.png")
		}
		err := run(context.Background(), args, getenv, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), `tile URL "https://tiles.example/{z}/{x}.png": it has no {y}`) {
			t.Errorf("env %v: %v", env, err)
		}
	}
	base := serveInProcess(t, "--tiles", "https://tiles.example/{z}/{x}/{y}.png", "--tiles-attribution", "© tiles.example")
	res, err := http.Get(base + "/networks/twobranch")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(b), `data-tiles="https://tiles.example/{z}/{x}/{y}.png"`) || !strings.Contains(res.Header.Get("Content-Security-Policy"), "https://tiles.example;") {
		t.Error("the tile setting did not reach the page and its policy")
	}
}

// syncBuffer is a bytes.Buffer that a server's goroutines may write while
// a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Issue 71, cause 11: an address other machines reach is served only with
// a token, or with --no-token said plainly (and a warning in the log); a
// loopback address needs neither.
func TestServeOtherMachinesNeedsATokenOrNoToken(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), []string{"serve", "--addr", addr, "--warm=false", "--data", "", "--state", t.TempDir()},
			func(string) string { return "" }, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), "without --token (or $ONTIME_TOKEN) anyone who reaches it may upload") {
			t.Errorf("%s without a token: %v", addr, err)
		}
	}
	for addr, want := range map[string]bool{"127.0.0.1:80": true, "localhost:80": true, "[::1]:80": true, "0.0.0.0:80": false, ":80": false, "10.1.2.3:80": false, "example.org:80": false} {
		if loopback(addr) != want {
			t.Errorf("loopback(%s) = %v", addr, !want)
		}
	}
	// --no-token serves, and warns.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs syncBuffer
	pr, pw, _ := os.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "0.0.0.0:0", "--no-token", "--warm=false", "--data", "", "--state", t.TempDir()},
			func(string) string { return "" }, pw, &logs)
		pw.Close()
	}()
	line, _ := bufio.NewReader(pr).ReadString('\n')
	if !strings.Contains(line, "dashboard on") {
		t.Fatalf("--no-token: %q", line)
	}
	testenv.WaitFor(t, "the warning", func() bool { return strings.Contains(logs.String(), "serving other machines without an access token") })
	cancel()
	<-done
}

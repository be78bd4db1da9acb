package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine/testenv"
	"github.com/ontime-routing/ontime/engine/worker"
)

// observations writes days of skewed times for the four links of the
// two-route grid (node ids 1..4).
func observations(t *testing.T, path string, days int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("from,to,observation,time\n")
	for d := range days {
		for i, l := range [][2]int{{1, 2}, {2, 4}, {1, 3}, {3, 4}} {
			fmt.Fprintf(&b, "%d,%d,%d,%.4f\n", l[0], l[1], d, 9+3*math.Exp(math.Sin(float64(d*(i+2)+i))))
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// networks add --observations imports under the fitted law; networks fit
// stores a new version and keeps the old; bad observations name file,
// line and field and store nothing; the fitted law cannot be named.
func TestNetworksFit(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"ONTIME_STATE": filepath.Join(dir, "state")}
	net := filepath.Join(dir, "grid.csv")
	os.WriteFile(net, []byte("From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n"), 0o644)
	obs := filepath.Join(dir, "obs.csv")
	observations(t, obs, 80)

	_, errOut, err := runCLI(t, env, "networks", "add", net, "--observations", obs, "--ods", "1-4")
	if err != nil || !strings.Contains(errOut, "fitted to obs.csv (320 rows, 80 observations): 4 links observed") {
		t.Fatalf("add with observations: %v\n%s", err, errOut)
	}
	out, _, err := runCLI(t, env, "networks", "show", "--network", "grid")
	if err != nil || !strings.Contains(out, "fitted") {
		t.Errorf("show: %v %s", err, out)
	}
	out, _, err = runCLI(t, env, "networks", "fit", "grid", obs)
	if err != nil || !strings.Contains(out, `stored as "grid-v2" (grid is kept as it was)`) {
		t.Fatalf("fit: %v %s", err, out)
	}
	out, _, _ = runCLI(t, env, "networks", "list")
	if !strings.Contains(out, "grid       stored") || !strings.Contains(out, "grid-v2") {
		t.Errorf("list after fit: %s", out)
	}
	os.WriteFile(obs, []byte("from,to,observation,time\n1,2,a,9\n1,2,b,0\n"), 0o644)
	if _, _, err := runCLI(t, env, "networks", "fit", "grid", obs, "--as", "grid-bad"); err == nil || !strings.Contains(err.Error(), "obs.csv:3: field time") {
		t.Errorf("bad observations: %v", err)
	}
	out, _, _ = runCLI(t, env, "networks", "list")
	if strings.Contains(out, "grid-bad") {
		t.Errorf("a failed fit stored a network: %s", out)
	}
	if _, _, err := runCLI(t, env, "networks", "add", net, "--name", "g2", "--law", "fitted"); err == nil || !strings.Contains(err.Error(), "comes from observed times") {
		t.Errorf("--law fitted: %v", err)
	}
	if _, _, err := runCLI(t, env, "networks", "add", net, "--name", "g3", "--period", "07:00-09:00"); err == nil || !strings.Contains(err.Error(), "observation file") {
		t.Errorf("--period without observations: %v", err)
	}
}

// lonelyDays writes a grid network of w×w nodes and observations in which
// every link is seen on two days of its own (the probe's 190 KB file that
// took 2.4 GB and 10 CPU-minutes).
func lonelyDays(t *testing.T, dir string, w int) (net, obs string) {
	t.Helper()
	var nb, ob strings.Builder
	nb.WriteString("From,To,Cost,Var\n")
	ob.WriteString("from,to,observation,time\n")
	day := 0
	_, streets := testenv.Grid(w, w, 100)
	for _, s := range streets {
		for _, l := range [][2]int{s, {s[1], s[0]}} {
			fmt.Fprintf(&nb, "%d,%d,10,4\n", l[0]+1, l[1]+1)
			for k := range 2 {
				fmt.Fprintf(&ob, "%d,%d,d%d,%d\n", l[0]+1, l[1]+1, day, 9+k)
				day++
			}
		}
	}
	net, obs = filepath.Join(dir, "lonely.csv"), filepath.Join(dir, "lonely-obs.csv")
	os.WriteFile(net, []byte(nb.String()), 0o644)
	os.WriteFile(obs, []byte(ob.String()), 0o644)
	return net, obs
}

// Issue 71, cause 5: the command line's fit is bounded as an upload's is.
// The network is checked before the file is read; the file is streamed by
// a child process whose memory is limited (--fit-memory) and which ends
// when the command is interrupted (its context: Ctrl-C, SIGTERM).
func TestNetworksFitIsBounded(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"ONTIME_STATE": filepath.Join(dir, "state")}
	if _, _, err := runCLI(t, env, "networks", "fit", "nosuch", filepath.Join(dir, "missing.csv")); err == nil || !strings.Contains(err.Error(), `no network "nosuch"`) {
		t.Errorf("an unknown network with a missing file: %v", err)
	}
	net, obs := lonelyDays(t, dir, 30)
	if _, _, err := runCLI(t, env, "networks", "add", net, "--ods", "1-900"); err != nil {
		t.Fatal(err)
	}
	// Under a small memory limit the child ends, saying so; nothing is stored.
	_, _, err := runCLI(t, env, "networks", "fit", "lonely", obs, "--fit-memory", "48")
	if err == nil || !strings.Contains(err.Error(), "more than 48 MB of memory, the limit for a fit (--fit-memory") {
		t.Errorf("past --fit-memory: %v", err)
	}
	// Interrupted, the command ends and its child with it.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		var out, errOut bytes.Buffer
		done <- run(ctx, []string{"networks", "fit", "lonely", obs}, func(k string) string { return env[k] }, &out, &errOut)
	}()
	testenv.WaitFor(t, "the fit's child process", func() bool { return len(workers(t)) > 0 })
	t0 := time.Now()
	cancel()
	select {
	case err := <-done:
		t.Logf("ended %v after the interrupt: %v", time.Since(t0), err)
		if err == nil {
			t.Error("an interrupted fit stored its network")
		}
	case <-time.After(time.Minute):
		t.Fatal("the fit went on after its interrupt")
	}
	testenv.WaitFor(t, "no child process left", func() bool { return len(workers(t)) == 0 })
	// The metrics count both ends by their outcome (ontime_worker_runs_total).
	for _, outcome := range []string{worker.Memory, worker.Stopped} {
		if !slices.ContainsFunc(worker.Counts(), func(c worker.Count) bool { return c.Kind == "fit" && c.Outcome == outcome && c.N > 0 }) {
			t.Errorf("no fit counted %s: %+v", outcome, worker.Counts())
		}
	}
	out, _, _ := runCLI(t, env, "networks", "list")
	if strings.Contains(out, "lonely-v2") {
		t.Errorf("a refused or interrupted fit stored a network: %s", out)
	}
}

// Traversals with their clock times fit a law over the day end to end:
// networks add stores it (the report says so), networks show gives the
// day and its FIFO check, plan answers the commuter's question on it; a
// time of day that is not HH:MM names its line and stores nothing.
func TestNetworksAddTraversalsOverTheDay(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"ONTIME_STATE": filepath.Join(dir, "state")}
	net := filepath.Join(dir, "grid.csv")
	os.WriteFile(net, []byte("From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n"), 0o644)
	var b strings.Builder
	b.WriteString("from,to,day,time,time_of_day\n")
	for d := range 200 {
		slow := 1 + 0.3*math.Sin(float64(d)) // the day's draw, held all day
		for i, l := range [][2]int{{1, 2}, {2, 4}, {1, 3}, {3, 4}} {
			for k := range 6 {
				at := (d*37 + i*101 + k*233) % 1440
				rush := 1 + 0.8*math.Exp(-math.Pow(float64(at-480)/45, 2)/2)
				fmt.Fprintf(&b, "%d,%d,d%d,%.4f,%02d:%02d\n", l[0], l[1], d, 9*rush*(slow+0.05*float64(i)), at/60, at%60)
			}
		}
	}
	obs := filepath.Join(dir, "obs.csv")
	os.WriteFile(obs, []byte(b.String()), 0o644)
	_, errOut, err := runCLI(t, env, "networks", "add", net, "--observations", obs, "--ods", "1-4")
	if err != nil || !strings.Contains(errOut, "a law over the day") {
		t.Fatalf("add: %v\n%s", err, errOut)
	}
	out, _, err := runCLI(t, env, "networks", "show", "--network", "grid")
	if err != nil || !strings.Contains(out, "law over the day (fitted from obs.csv") || !strings.Contains(out, "FIFO in expectation") {
		t.Fatalf("show: %v\n%s", err, out)
	}
	out, stderr, err := runCLI(t, env, "plan", "--network", "grid", "--arrive-by", "09:00", "--depart", "08:00", "--methods", "let,clairvoyant", "--episodes", "200", "--format", "csv")
	if err != nil || !strings.HasPrefix(strings.Split(out, "\n")[1], "let,08:00,09:00,") {
		t.Fatalf("plan: %v %s %s", err, out, stderr)
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("from,to,day,time,time_of_day\n1,2,d1,9,07:00\n1,2,d1,9,7h30\n"), 0o644)
	if _, errOut, err := runCLI(t, env, "networks", "add", net, "--observations", bad, "--name", "bad"); err == nil || !strings.Contains(err.Error()+errOut, "bad.csv:3") {
		t.Errorf("a bad time of day: %v %s", err, errOut)
	}
	if out, _, _ := runCLI(t, env, "networks", "list"); strings.Contains(out, "bad ") {
		t.Errorf("a refused file was stored: %s", out)
	}
}

package main

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine/store"
)

// ontime jobs reads the state directory a server writes: list, show with
// the curve and log; restart asks the server and says when none runs;
// cancel refuses a finished job.
func TestJobsCLI(t *testing.T) {
	state := t.TempDir()
	st, err := store.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	err = st.PutJob(context.Background(), store.Job{ID: "t1", Kind: "train", Network: "grid", State: "done", Started: time.Now(), Seconds: 12,
		Spec:   []byte(`{"command":"ontime train --network grid --rounds 1"}`),
		Events: []byte(`{"kind":"imitation","name":"imitation","rates":[0.5,0.6],"mean":0.55,"elapsed":3}` + "\n"), Log: "[ 3 s] imitation\n"})
	if err == nil { // a command line's training, running in another process
		err = st.PutJob(context.Background(), store.Job{ID: "t2", Kind: "train", Network: "grid", State: "running", Started: time.Now().Add(-90 * time.Second), Spec: []byte(`{}`)})
	}
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ONTIME_STATE": state}
	out, _, err := runCLI(t, env, "jobs", "list")
	if err != nil || !strings.Contains(out, "t1") || !strings.Contains(out, "done") {
		t.Errorf("list: %v\n%s", err, out)
	}
	// A job another process runs has run since it started (its record says
	// 0 s until it ends).
	if m := regexp.MustCompile(`t2 .* (\d+) s`).FindStringSubmatch(out); m == nil {
		t.Errorf("list: no running job t2:\n%s", out)
	} else if secs, _ := strconv.Atoi(m[1]); secs < 90 {
		t.Errorf("list: the running job has run %d s, want at least 90:\n%s", secs, out)
	}
	if _, _, err := runCLI(t, env, "jobs", "list", "--server", "http://127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "--server is for jobs restart") {
		t.Errorf("list --server: %v", err)
	}
	out, _, err = runCLI(t, env, "jobs", "show", "t1")
	for _, want := range []string{"ontime train --network grid --rounds 1", "validation [0.5000 0.6000]", "[ 3 s] imitation"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("show lacks %q: %v\n%s", want, err, out)
		}
	}
	if _, _, err := runCLI(t, env, "jobs", "show", "nope"); err == nil {
		t.Error("show of an unknown job succeeded")
	}
	if _, _, err := runCLI(t, env, "jobs", "restart", "t1", "--server", "http://127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "is it running") {
		t.Errorf("restart without a server: %v", err)
	}
	if out, _, err := runCLI(t, env, "jobs", "cancel", "t2"); err != nil || !strings.Contains(out, "cancel asked of the process running it") {
		t.Errorf("cancel of a running job: %v\n%s", err, out)
	}
	if _, _, err := runCLI(t, env, "jobs", "cancel", "t1"); err == nil || !strings.Contains(err.Error(), "only a queued or running job") {
		t.Errorf("cancel of a finished job: %v", err)
	}
	// The kinds come from the lab's table.
	if _, _, err := runCLI(t, env, "jobs", "list", "--kind", "nope"); err == nil || !strings.Contains(err.Error(), "bench") || !strings.Contains(err.Error(), "learners") {
		t.Errorf("list --kind nope: %v", err)
	}
}

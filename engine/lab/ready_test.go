package lab

import (
	"context"
	"strings"
	"testing"
)

// Ready is the conjunction of its parts: the state directory, a finished
// (or unasked) warm-up, and every built-in model that exists loading; a
// warm-up stopped before its end leaves the lab not ready.
func TestReady(t *testing.T) {
	l := New(Options{StateDir: t.TempDir()})
	defer l.Close()
	r := l.Ready()
	if r.Warm.Asked || !r.Warm.Done || r.State != "ok" || len(r.Networks) == 0 {
		t.Fatalf("fresh lab: %+v", r)
	}
	models := true
	for _, n := range r.Networks {
		for m, s := range n.Models {
			if s != "ready" && !strings.HasPrefix(s, "none: ") {
				models = false
				t.Logf("%s %s: %s", n.Name, m, s)
			}
		}
	}
	if r.Ready != models {
		t.Errorf("ready %v with models loading %v", r.Ready, models)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l.Warm(ctx, 1.2)
	if r := l.Ready(); !r.Warm.Asked || r.Warm.Done || r.Ready || r.Warm.Pairs == 0 || r.Warm.Finished != 0 {
		t.Errorf("warm-up stopped at once: %+v", r.Warm)
	}
}

package testenv

import (
	"testing"
	"time"
)

// WaitFor polls cond until it holds: a test waits for an event (a job
// reached a state, a worker exited, a log line came), never for a clock of
// its own. A busy machine makes the wait longer, never a failure; a wait
// that never ends (the event never comes) fails, naming what it waited
// for, shortly before the test binary's own deadline (go test -timeout)
// would kill the run without saying which wait hung.
func WaitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	limit, bounded := deadline(tb)
	pause := time.Millisecond
	for !cond() {
		if bounded && time.Now().After(limit) {
			tb.Fatalf("still waiting for %s when the test binary's deadline came near", what)
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// deadline is when a wait gives up: a little before the test binary's
// deadline, keeping a tenth of what is left then (at most 30 s) to fail
// with a message and run the test's cleanups.
func deadline(tb testing.TB) (time.Time, bool) {
	t, ok := tb.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return time.Time{}, false
	}
	d, ok := t.Deadline()
	if !ok {
		return time.Time{}, false
	}
	margin := min(time.Until(d)/10, 30*time.Second)
	return d.Add(-margin), true
}

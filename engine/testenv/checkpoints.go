package testenv

import (
	"context"
	"sync/atomic"
)

// Checkpoints is a context that counts how often its Err is asked (the
// checks a long computation makes between units of work: a learner's
// sweep, a solver's level) and cancels itself when the count reaches a set
// number. A test then states, by counting instead of timing, that a
// cancellation is observed: the work returns the cancellation, and makes
// only a few more checks after it (one more unit of work each, at most).
type Checkpoints struct {
	context.Context
	cancel context.CancelFunc
	at     int64
	checks atomic.Int64
}

// CancelAtCheck returns a context canceled by its nth check (0: never; the
// count alone, to learn how many checks a whole run makes).
func CancelAtCheck(n int) *Checkpoints {
	ctx, cancel := context.WithCancel(context.Background())
	return &Checkpoints{Context: ctx, cancel: cancel, at: int64(n)}
}

// Err counts the check; the nth one cancels first, so it already answers
// context.Canceled.
func (c *Checkpoints) Err() error {
	if c.checks.Add(1) == c.at {
		c.cancel()
	}
	return c.Context.Err()
}

// Checks is how many checks were made.
func (c *Checkpoints) Checks() int { return int(c.checks.Load()) }

// AfterCancel is how many checks were made after the canceling one.
func (c *Checkpoints) AfterCancel() int {
	if c.at == 0 {
		return 0
	}
	return max(0, int(c.checks.Load()-c.at))
}

// Stop releases the context's resources.
func (c *Checkpoints) Stop() { c.cancel() }

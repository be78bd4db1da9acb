package split

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ontime-routing/ontime/engine"
)

// Every index is done exactly once, by a worker in range, for counts below,
// at and above the workers (and none at all).
func TestEachDoesEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 5, 100} {
		for _, workers := range []int{0, 1, 3, 8} {
			done := make([]atomic.Int32, n)
			err := Each(context.Background(), n, workers, "test", func(w, i int) error {
				if w < 0 || w >= max(1, workers) {
					t.Errorf("n %d, %d workers: worker %d", n, workers, w)
				}
				done[i].Add(1)
				return nil
			})
			if err != nil {
				t.Fatalf("n %d, %d workers: %v", n, workers, err)
			}
			for i := range done {
				if c := done[i].Load(); c != 1 {
					t.Fatalf("n %d, %d workers: index %d done %d times", n, workers, i, c)
				}
			}
		}
	}
}

// The first error stops the queue: no index is started after it on one
// worker, and it is what Each returns.
func TestEachStopsAtTheFirstError(t *testing.T) {
	boom := errors.New("boom")
	var started atomic.Int32
	err := Each(context.Background(), 100, 1, "test", func(_, i int) error {
		started.Add(1)
		if i == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if s := started.Load(); s != 11 {
		t.Fatalf("%d items started, want 11 (none after the error)", s)
	}
}

// A panic is an internal error naming where it happened; a context already
// ended starts nothing and is the error.
func TestEachTurnsPanicsAndCancelsIntoErrors(t *testing.T) {
	err := Each(context.Background(), 10, 2, "the widget", func(_, i int) error {
		if i == 3 {
			panic("bug")
		}
		return nil
	})
	if engine.ErrorCode(err) != engine.EINTERNAL || !strings.Contains(err.Error(), "the widget") || !strings.Contains(err.Error(), "bug") {
		t.Fatalf("a panic gave %v, want an internal error naming the widget and the bug", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var started atomic.Int32
	err = Each(ctx, 10, 2, "test", func(int, int) error { started.Add(1); return nil })
	if !errors.Is(err, context.Canceled) || started.Load() != 0 {
		t.Fatalf("a canceled context gave %v after %d items, want context.Canceled after none", err, started.Load())
	}
}

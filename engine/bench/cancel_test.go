package bench

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/internal/testenv"
)

// A benchmark canceled while a learner trains stops within a second (a
// canceled job on the dashboard, or a server shutting down), and reports
// the cancellation, not a result.
func TestCancelStopsLearnerTraining(t *testing.T) {
	net, model := testenv.Network(t, "ringtown", "")
	for _, method := range []string{"segac", "pql", "ctd"} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		t0 := time.Now()
		_, err := Run(ctx, Config{Net: net, Model: model, Methods: []string{method}, Budgets: []float64{1}, ODs: net.ODs, Pools: 2, PoolSize: 50})
		stopped := time.Since(t0) - 300*time.Millisecond
		if err == nil && stopped < 0 {
			continue // trained before the cancel (ctd on ringtown: 50 ms)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v after %v, want the cancellation", method, err, time.Since(t0))
		} else if stopped > time.Second {
			t.Errorf("%s: stopped %v after the cancel", method, stopped)
		}
		cancel()
	}
}

package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// A panic in a pool worker (a policy's bug) fails the run with an internal
// error naming it; the process, and the other workers, go on.
func TestWorkerPanicIsAnError(t *testing.T) {
	net, model := testenv.Network(t, "twobranch", "")
	cfg := Config{Net: net, Model: model, Pools: 4, PoolSize: 10, Workers: 2}
	// One unit a pool (the history control's shape).
	err := forEachUnit(context.Background(), cfg, units{pools: indexes(cfg.Pools), methods: []int{0}, tasks: 1}, func(pool *sim.Pool, _ unit, _ *sim.Runner, _ []sim.Result) error {
		if pool.Index == 2 {
			panic("policy bug")
		}
		return nil
	})
	if engine.ErrorCode(err) != engine.EINTERNAL || !strings.Contains(err.Error(), "policy bug") {
		t.Fatalf("err %v", err)
	}
	// Count's units: (pool, method, task), holding a core each as Run's
	// evaluation beside the builds does: the panicking unit gives its core
	// back.
	c := make(cores, 1)
	err = forEachUnit(context.Background(), cfg, units{pools: indexes(cfg.Pools), methods: []int{0, 1, 2}, tasks: 2, cores: c}, func(pool *sim.Pool, u unit, _ *sim.Runner, _ []sim.Result) error {
		if pool.Index == 1 && u.method == 2 {
			panic("policy bug in a unit")
		}
		return nil
	})
	if engine.ErrorCode(err) != engine.EINTERNAL || !strings.Contains(err.Error(), "policy bug in a unit") {
		t.Fatalf("units: err %v", err)
	}
	if len(c) != 0 {
		t.Errorf("%d cores still held after the panic", len(c))
	}
}

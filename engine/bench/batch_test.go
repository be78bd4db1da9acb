package bench

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// A batch draws one pool a worker while they are small, and fewer when
// they are large: never more realizations at once than the budget holds,
// never less than one pool.
func TestPoolsAtOnce(t *testing.T) {
	net, model := testenv.Network(t, "twobranch", "")
	pool := 8 * model.Dim() // bytes of one realization
	for _, c := range []struct {
		workers, size, budget, want int
	}{
		{2, 1000, 0, 2},               // the default budget: small pools, one a worker
		{4, 1000, 4 * 1000 * pool, 4}, // exactly four pools fit
		{4, 1000, 4*1000*pool - 1, 3}, // a byte short of four
		{4, 1000, 1000 * pool, 1},     // one pool fits
		{2, 1000, 1, 1},               // not even one: still one
		{1, 1000, 1 << 40, 1},         // never more than the workers
	} {
		cfg := Config{Net: net, Model: model, PoolSize: c.size, Workers: c.workers, poolBytes: c.budget}
		if got := cfg.poolsAtOnce(); got != c.want {
			t.Errorf("%d workers, pools of %d, budget %d bytes: %d pools at once, want %d", c.workers, c.size, c.budget, got, c.want)
		}
	}
}

// Pools too large to hold one a worker are evaluated one at a time, each
// pool's units shared by every worker; the counts are the same as two at
// once, since a unit reads only its own pool. The run that holds two must
// hold two (or the test would pass for a batch that never grew).
func TestLargePoolsOneAtATimeChangeNothing(t *testing.T) {
	net, model := testenv.Network(t, "twobranch", "")
	run := func(budget int) ([]Counts, int) {
		cfg := Config{Net: net, Model: model, Methods: []string{"let", "dot", "cgr"}, Budgets: []float64{0.95, 1.05}, ODs: net.ODs,
			Pools: 4, PoolSize: 200, Workers: 2, poolBytes: budget}
		p, err := Prepare(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var (
			mu       sync.Mutex
			inFlight = map[int]int{} // pool index → units running on it
			most     int             // the most distinct pools seen at once
		)
		err = forEachUnit(context.Background(), cfg, units{pools: indexes(cfg.Pools), methods: indexes(len(cfg.Methods)), tasks: len(p.tasks)},
			func(pool *sim.Pool, _ unit, _ *sim.Runner, _ []sim.Result) error {
				mu.Lock()
				inFlight[pool.Index]++
				most = max(most, len(inFlight))
				mu.Unlock()
				defer func() {
					mu.Lock()
					if inFlight[pool.Index]--; inFlight[pool.Index] == 0 {
						delete(inFlight, pool.Index)
					}
					mu.Unlock()
				}()
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		counts, err := p.Count(context.Background(), nil, indexes(cfg.Pools))
		if err != nil {
			t.Fatal(err)
		}
		return counts, most
	}
	small := 200 * 8 * model.Dim() // one pool's realizations
	one, mostOne := run(small)
	two, _ := run(0)
	if mostOne != 1 {
		t.Errorf("a budget of one pool held %d pools at once", mostOne)
	}
	cfg := Config{Net: net, Model: model, PoolSize: 200, Workers: 2, poolBytes: small}
	if cfg.poolsAtOnce() != 1 || (&Config{Net: net, Model: model, PoolSize: 200, Workers: 2}).poolsAtOnce() != 2 {
		t.Fatal("the two runs do not differ in pools at once")
	}
	if len(one) != len(net.ODs) || len(one[0].OnTime) != 3 || len(one[0].OnTime[0]) != 2 || len(one[0].OnTime[0][0]) != 4 {
		t.Fatalf("counts %v: want every OD pair, method, budget and pool", one)
	}
	if !reflect.DeepEqual(one, two) {
		t.Errorf("on-time counts one pool at a time %v, two at once %v", one, two)
	}
}

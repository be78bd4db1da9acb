package lab

import (
	"context"
	"fmt"
	"math"
	"sync"

	"golang.org/x/sync/singleflight"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/sim"
)

// RateSize is how many common test realizations a method's on-time rate
// is estimated on for the compare page (test pool 0: every method the same
// ones). Above the dense models' size the estimate is skipped: a city's
// thousand episodes are a benchmark, not a page.
const RateSize = 1000

// rateKey identifies an estimate.
type rateKey struct {
	method string
	od     engine.OD
	factor float64
}

// rates caches a network's on-time estimates and their pool. Concurrent
// requests for one estimate share its computation (a class opening the
// same comparison at once computes it once, not once per student).
type rates struct {
	poolOnce sync.Once
	pool     *sim.Pool
	mu       sync.Mutex
	done     map[rateKey]float64
	flight   singleflight.Group
}

// OnTimeRate estimates method's probability of arriving on time on od at
// factor × the LET time over RateSize common test realizations (cached);
// ok is false where the network is too large to estimate it on a page.
func (n *Net) OnTimeRate(ctx context.Context, method string, od engine.OD, factor float64) (rate float64, ok bool, err error) {
	if len(n.Net.Links) > linktime.DenseLinkLimit {
		return 0, false, nil
	}
	key := rateKey{method, od, math.Round(factor*1e6) / 1e6}
	n.rates.mu.Lock()
	if r, hit := n.rates.done[key]; hit {
		n.rates.mu.Unlock()
		return r, true, nil
	}
	n.rates.mu.Unlock()
	v, err, _ := n.rates.flight.Do(fmt.Sprintf("%s|%d|%d|%g", key.method, od.Origin, od.Destination, key.factor), func() (any, error) {
		return n.estimate(ctx, key)
	})
	if err != nil {
		return 0, false, err
	}
	return v.(float64), true, nil
}

// estimate computes one on-time estimate and caches it.
func (n *Net) estimate(ctx context.Context, key rateKey) (float64, error) {
	method, od, factor := key.method, key.od, key.factor
	let, err := n.Validate(od, factor)
	if err != nil {
		return 0, err
	}
	p, err := n.Policy(method)
	if err != nil {
		return 0, err
	}
	n.rates.poolOnce.Do(func() { n.rates.pool = sim.NewPool(n.Model, n.Net.PoolKey(), sim.Test, 0, RateSize, 0, nil) })
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	res := make([]sim.Result, RateSize)
	if err := (&sim.Runner{Net: n.Net}).Run(p, sim.Task{OD: od, Budget: factor * let, Cap: n.Net.StepCap}, n.rates.pool, res); err != nil {
		return 0, err
	}
	k := 0
	for _, x := range res {
		if x.OnTime {
			k++
		}
	}
	rate := float64(k) / RateSize
	n.rates.mu.Lock()
	if n.rates.done == nil {
		n.rates.done = map[rateKey]float64{}
	}
	n.rates.done[key] = rate
	n.rates.mu.Unlock()
	return rate, nil
}

// OpeningFactor is the budget factor the compare and live pages open at:
// where, on the network's first OD pair, the route most likely on time is
// not the fastest on average (the story's factor), so that the methods
// visibly differ; 1 where they never do or the network is too large.
func (n *Net) OpeningFactor() float64 {
	n.openOnce.Do(func() {
		n.opening = 1
		if len(n.Net.ODs) == 0 || len(n.Net.Links) > linktime.DenseLinkLimit {
			return
		}
		if s, err := n.Story(n.Net.ODs[0]); err == nil {
			n.opening = s.Factor
		}
	})
	return n.opening
}

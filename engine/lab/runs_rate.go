package lab

import (
	"context"
	"fmt"
	"math"
	"sync"

	"golang.org/x/sync/singleflight"

	"github.com/ontime-routing/ontime/engine"
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
	done     map[rateKey]Trips
	flight   singleflight.Group
}

// Trips are a method's outcomes on the RateSize common test realizations
// of an estimate: Times[i] is day i's arrival time, NaN where the trip
// did not arrive (a dead end or the step cap: late at any budget).
type Trips struct {
	Rate  float64
	Times []float64
}

// RateLinkLimit is the largest network whose pages estimate P(on time)
// (OnTimeRate). Above it RateSize days of every link's time (2 GB at
// 250,000 links) and RateSize drives of each method would keep a page
// waiting for minutes (cgr re-plans at each of a city trip's hundred
// decisions); the benchmark, a job, estimates it there. The methods' own
// city rules begin at the same size (cgr's LET continuation, bestpath's
// corridor).
const RateLinkLimit = 4000

// RatesOnPages says whether n's pages estimate P(on time).
func (n *Net) RatesOnPages() bool { return len(n.Net.Links) <= RateLinkLimit }

// OnTimeRate estimates method's probability of arriving on time on od at
// factor × the LET time over RateSize common test realizations (cached);
// ok is false where the network is too large to estimate it on a page.
func (n *Net) OnTimeRate(ctx context.Context, method string, od engine.OD, factor float64) (rate float64, ok bool, err error) {
	t, ok, err := n.OnTimeTrips(ctx, method, od, factor)
	return t.Rate, ok, err
}

// OnTimeTrips is OnTimeRate with the trips it counts: the arrival times
// the compare page drives one at a time (the same days for every method).
func (n *Net) OnTimeTrips(ctx context.Context, method string, od engine.OD, factor float64) (trips Trips, ok bool, err error) {
	if !n.RatesOnPages() {
		return Trips{}, false, nil
	}
	key := rateKey{method, od, math.Round(factor*1e6) / 1e6}
	n.rates.mu.Lock()
	if t, hit := n.rates.done[key]; hit {
		n.rates.mu.Unlock()
		return t, true, nil
	}
	n.rates.mu.Unlock()
	v, err, _ := n.rates.flight.Do(fmt.Sprintf("%s|%d|%d|%g", key.method, od.Origin, od.Destination, key.factor), func() (any, error) {
		return n.estimate(ctx, key)
	})
	if err != nil {
		return Trips{}, false, err
	}
	return v.(Trips), true, nil
}

// estimate computes one on-time estimate and caches it.
func (n *Net) estimate(ctx context.Context, key rateKey) (Trips, error) {
	method, od, factor := key.method, key.od, key.factor
	let, err := n.Validate(od, factor)
	if err != nil {
		return Trips{}, err
	}
	p, err := n.Policy(method)
	if err != nil {
		return Trips{}, err
	}
	n.rates.poolOnce.Do(func() { n.rates.pool = sim.NewPool(n.Model, n.Net.PoolKey(), sim.Test, 0, RateSize, 0, nil) })
	if err := ctx.Err(); err != nil {
		return Trips{}, err
	}
	res := make([]sim.Result, RateSize)
	if err := n.crew().Run(p, sim.Task{OD: od, Budget: factor * let, Cap: n.Net.StepCap, Depart: n.departure()}, n.rates.pool, res); err != nil {
		return Trips{}, err
	}
	t := Trips{Times: make([]float64, RateSize)}
	k := 0
	for i, x := range res {
		t.Times[i] = math.NaN()
		if x.End == sim.Arrived {
			t.Times[i] = x.Time
		}
		if x.OnTime {
			k++
		}
	}
	t.Rate = float64(k) / RateSize
	n.rates.mu.Lock()
	if n.rates.done == nil {
		n.rates.done = map[rateKey]Trips{}
	}
	n.rates.done[key] = t
	n.rates.mu.Unlock()
	return t, nil
}

// Opening is the pair and budget factor the compare and live pages open
// at: the first benchmark pair on which the route most likely on time is
// not the fastest on average, at the story's factor there (the first
// factor where they differ), so that the methods visibly differ; the first
// pair at 1 where they never do or the network is too large. (The first
// pair alone made an imported network open where every method took the
// same route.)
func (n *Net) Opening() (engine.OD, float64) {
	n.openOnce.Do(func() {
		n.opening = 1
		if len(n.Net.ODs) == 0 {
			return
		}
		n.openingOD = n.Net.ODs[0]
		if !n.RatesOnPages() { // the story counts on-time rates
			return
		}
		for _, od := range n.Net.ODs {
			if s, err := n.Story(od); err == nil && len(s.Routes) > 1 {
				n.openingOD, n.opening = od, s.Factor
				return
			}
		}
	})
	return n.openingOD, n.opening
}

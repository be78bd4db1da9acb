package lab

import (
	"context"
	"fmt"
	"runtime"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/stats"
)

// LiveRequest streams episodes of the common test pools for some methods.
type LiveRequest struct {
	OD       engine.OD
	Factor   float64
	Methods  []string
	Episodes int // from test pool 0 onwards, 2000 realizations a pool
	Chunk    int // episodes between updates (default 100)
	// Curve lists budget factors at which the on-time rate is also
	// computed at the end (same episodes); nil for none.
	Curve []float64
}

// Rate is a method's running on-time rate with a 95% Wilson interval.
type Rate struct {
	Method string
	OnTime int
	N      int
	Rate   float64
	Lo, Hi float64
	// Outside says why the request lies outside what the method was
	// trained for (Scope; "" inside): the rate is not its own. HandedOver
	// counts the days it handed to its fallback (engine.HandsOver).
	Outside    string
	HandedOver int
	Err        string
}

// Said is what a rate's note says: why it is not the method's own number
// ("" when it is).
func (r Rate) Said() string {
	s := r.Outside
	if r.HandedOver > 0 {
		s += fmt.Sprintf("; on %d of %d days it could no longer arrive within the step cap and the LET path drove the rest", r.HandedOver, r.N)
	}
	return s
}

// LiveUpdate is sent after every chunk of episodes, then after every
// budget factor of the on-time curve on each pool (the curve replays the
// episodes: with 7 factors it is most of the work, so a bar that counted
// episodes only stood at 100% long before the end).
type LiveUpdate struct {
	Done, Total int // episodes played
	Rates       []Rate
	// Fraction is the share of all the run's work done: episodes and the
	// curve's replays, counted alike.
	Fraction float64
	Curve    bool // the update comes from the curve's replays
}

// LiveResult is what the plots are drawn from.
type LiveResult struct {
	Budget  float64
	LETTime float64
	// Depart is the departure on a network whose law changes over the
	// day ("" on a static one).
	Depart string
	Rates  []Rate
	Times  map[string][]float64 // arrival (or abandonment) time of each episode
	Curve  map[string][]float64 // on-time rate at each factor of the request's Curve
	// CurveCI is each curve point's 95% Wilson interval (lo, hi).
	CurveCI map[string][][2]float64
	Factors []float64
	// Note says why fewer days were played than the Asked (Days); "" when
	// they were not.
	Note  string
	Asked int
}

// PoolSize is the size of the common test pools (as `ontime bench`).
const PoolSize = 2000

// Live plays the episodes chunk by chunk, calling emit after each; it stops
// when ctx ends.
func (n *Net) Live(ctx context.Context, req LiveRequest, emit func(LiveUpdate) error) (*LiveResult, error) {
	let, err := n.Validate(req.OD, req.Factor)
	if err != nil {
		return nil, err
	}
	if req.Episodes <= 0 || req.Episodes > 100*PoolSize {
		return nil, engine.Errorf(engine.EINVALID, "episodes %d: give 1 to %d", req.Episodes, 100*PoolSize)
	}
	asked, note := req.Episodes, ""
	if req.Episodes, note, err = n.Days(req.Episodes); err != nil {
		return nil, err
	}
	chunk := req.Chunk
	if chunk <= 0 {
		chunk = 100
	}
	res := &LiveResult{Depart: n.departureText(), Note: note, Asked: asked, Budget: req.Factor * let, LETTime: let, Times: map[string][]float64{}, Curve: map[string][]float64{}, CurveCI: map[string][][2]float64{}, Factors: req.Curve}
	run := &liveRun{n: n, req: req, res: res, let: let, emit: emit, crew: n.crew(),
		pools: &livePools{n: n, kept: map[int]*sim.Pool{}, days: req.Episodes},
		work:  float64(req.Episodes * (1 + len(req.Curve))), // episode replays, each for every method
	}
	run.policies()
	if err := run.playDays(ctx, chunk); err != nil {
		return nil, err
	}
	res.Rates = run.rates
	if err := run.curve(ctx); err != nil {
		return nil, err
	}
	return res, nil
}

// liveRun is one Live run's state: its methods' policies and rates, the
// days' pools and what it reports as it goes.
type liveRun struct {
	n     *Net
	req   LiveRequest
	res   *LiveResult
	let   float64
	emit  func(LiveUpdate) error
	crew  *sim.Crew
	pools *livePools
	work  float64 // episode replays in all, for the fraction done
	rates []Rate
	pols  []engine.Policy // nil for a method that cannot run (its rate says why)
}

// policies makes each method's policy, or says in its rate why it cannot
// run on the pair.
func (r *liveRun) policies() {
	r.rates = make([]Rate, len(r.req.Methods))
	r.pols = make([]engine.Policy, len(r.req.Methods))
	for i, m := range r.req.Methods {
		r.rates[i].Method, r.rates[i].Outside = m, r.n.Scope(m, r.req.OD, r.req.Factor)
		if !r.n.Runnable(m, r.req.OD) {
			r.rates[i].Err = r.n.Scope(m, r.req.OD, r.req.Factor)
			continue
		}
		var err error
		if r.pols[i], err = r.n.Policy(m); err != nil {
			r.rates[i].Err = err.Error()
		}
	}
}

// playDays plays every method on the days, chunk days at a time, counting
// each method's on-time days and arrival times and reporting the rates
// after each chunk.
func (r *liveRun) playDays(ctx context.Context, chunk int) error {
	task := sim.Task{OD: r.req.OD, Budget: r.res.Budget, Cap: r.n.Net.StepCap, Depart: r.n.departure()}
	out := make([]sim.Result, chunk)
	for done := 0; done < r.req.Episodes; {
		if err := ctx.Err(); err != nil {
			return err
		}
		size := min(chunk, r.req.Episodes-done, PoolSize-done%PoolSize)
		p := r.pools.get(done / PoolSize)
		off := done % PoolSize
		sub := &sim.Pool{Purpose: p.Purpose, Index: p.Index, Size: size, Dim: p.Dim, X: p.X[off*p.Dim : (off+size)*p.Dim]}
		for i, pol := range r.pols {
			if pol == nil {
				continue
			}
			rate := &r.rates[i]
			if err := r.crew.Run(pol, task, sub, out[:size]); err != nil {
				rate.Err, r.pols[i] = err.Error(), nil
				continue
			}
			for _, o := range out[:size] {
				rate.N++
				if o.OnTime {
					rate.OnTime++
				}
				if o.HandedOver {
					rate.HandedOver++
				}
				r.res.Times[rate.Method] = append(r.res.Times[rate.Method], o.Time)
			}
			rate.Rate = float64(rate.OnTime) / float64(rate.N)
			rate.Lo, rate.Hi = stats.Wilson(rate.OnTime, rate.N)
		}
		done += size
		if r.emit != nil {
			if err := r.emit(LiveUpdate{Done: done, Total: r.req.Episodes, Rates: append([]Rate(nil), r.rates...), Fraction: float64(done) / r.work}); err != nil {
				return err
			}
		}
	}
	return nil
}

// curve is the on-time rate over the budget factors, on the same
// realizations: pool by pool, so a pool that was not kept is drawn once
// more, not once per factor and method.
func (r *liveRun) curve(ctx context.Context) error {
	all := make([]sim.Result, min(PoolSize, r.req.Episodes))
	onTime := make([][]int, len(r.req.Curve))
	for k := range onTime {
		onTime[k] = make([]int, len(r.pols))
	}
	total := 0
	err := r.pools.each(r.req.Episodes, func(pi int, sub *sim.Pool) error {
		size := sub.Size
		tasks := make([]sim.Task, len(r.req.Curve))
		for k, f := range r.req.Curve {
			tasks[k] = sim.Task{OD: r.req.OD, Budget: f * r.let, Cap: r.n.Net.StepCap, Depart: r.n.departure()}
		}
		if err := r.curveTogether(tasks, sub, onTime); err != nil {
			return err
		}
		for k, t := range tasks {
			for i, pol := range r.pols {
				if pol == nil || sim.StepsTogether(pol) {
					continue
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := r.crew.Run(pol, t, sub, all[:size]); err != nil {
					return err
				}
				for _, o := range all[:size] {
					if o.OnTime {
						onTime[k][i]++
					}
				}
			}
			if r.emit != nil {
				replayed := r.req.Episodes + (pi*PoolSize)*len(r.req.Curve) + (k+1)*size
				if err := r.emit(LiveUpdate{Done: r.req.Episodes, Total: r.req.Episodes, Rates: append([]Rate(nil), r.rates...), Fraction: float64(replayed) / r.work, Curve: true}); err != nil {
					return err
				}
			}
		}
		total += size
		return nil
	})
	if err != nil {
		return err
	}
	for k := range r.req.Curve {
		for i, pol := range r.pols {
			if pol != nil {
				m := r.req.Methods[i]
				r.res.Curve[m] = append(r.res.Curve[m], float64(onTime[k][i])/float64(max(total, 1)))
				lo, hi := stats.Wilson(onTime[k][i], total)
				r.res.CurveCI[m] = append(r.res.CurveCI[m], [2]float64{lo, hi})
			}
		}
	}
	return nil
}

// curveTogether replays every factor at once for a batch policy (a learned
// model): it encodes a route prefix several budgets drove once
// (sim.RunTasks; each episode's result is the one a factor alone gives).
func (r *liveRun) curveTogether(tasks []sim.Task, sub *sim.Pool, onTime [][]int) error {
	for i, pol := range r.pols {
		if !sim.StepsTogether(pol) {
			continue
		}
		outs := make([][]sim.Result, len(tasks))
		for k := range outs {
			outs[k] = make([]sim.Result, sub.Size)
		}
		if err := r.crew.Runner().RunTasks(pol, tasks, sub, outs); err != nil {
			return err
		}
		for k := range outs {
			for _, o := range outs[k] {
				if o.OnTime {
					onTime[k][i]++
				}
			}
		}
	}
	return nil
}

// pagePoolBytes bounds the test realizations a live run or a plan holds
// (days × every link's time). On the 249,000-link grid a pool of PoolSize
// days is 3.7 GB, and a plan of LET alone held the server at 4.5 GB for
// 47 s, for whoever else it was serving too. Over it a run plays the first
// days of test pool 0 that fit, and says so (Days). Chicago Regional's
// pool (624 MB) fits whole; Delaware's (1.8 GB) does not.
var pagePoolBytes = 1 << 30 // a variable so a test can bound a small network

// minDays is the fewest days a run plays: below it an on-time rate's 95%
// interval is wider than ±5 points, and a network that needs fewer (over
// 1.3 million links) is refused.
const minDays = 400

// english writes numbers as the messages' prose does (4,000 links).
var english = message.NewPrinter(language.English)

// Days is how many days of the common test realizations a live run or a
// plan that asks for asked plays on n: asked, or on a network where they
// would not fit in pagePoolBytes, the first days of test pool 0 that do,
// with a note saying so. A pool's first days are those of the whole pool:
// independent and factor models draw day by day (TestRunsPlayTheDaysThatFit);
// only they are too large to hold (a dense model has at most 4,000 links).
func (n *Net) Days(asked int) (days int, note string, err error) {
	if asked <= 0 || n.poolFitsWhole() {
		return asked, "", nil
	}
	dim := n.Model.Dim()
	fit := pagePoolBytes / (dim * 8)
	if fit < minDays {
		return 0, "", engine.Errorf(engine.EINVALID, "%s", english.Sprintf("%s is too large for a run of many days here: %d days of its %d links' times are %.1f GB, over the %.0f GB such a run may hold. Compare drives one day on it; the benchmark (Benchmarks, or ontime bench) estimates its on-time rates with pools it can hold",
			n.Net.Name, minDays, dim, float64(minDays*dim*8)/(1<<30), float64(pagePoolBytes)/(1<<30)))
	}
	if asked <= fit {
		return asked, "", nil
	}
	return fit, english.Sprintf("%s plays %d days, not the %d asked: a day holds all %d links' times, and %d days are what fit in the %.0f GB a run may hold (the first days of test pool 0)",
		n.Net.Name, fit, asked, dim, fit, float64(pagePoolBytes)/(1<<30)), nil
}

// poolFitsWhole says whether a test pool of PoolSize days of n fits in
// pagePoolBytes (Days' rule, and what a run's pools draw).
func (n *Net) poolFitsWhole() bool { return PoolSize*n.Model.Dim()*8 <= pagePoolBytes }

// livePoolBytes is how much of the test pools a live run keeps in memory;
// past it, a pool is drawn again when the curve reads it (Chicago Regional's
// pool of 2,000 is 624 MB, and a run may read 100 pools).
var livePoolBytes = 512 << 20 // a variable so a test can force the redraw

// each hands fn the first episodes common test realizations pool by pool:
// pool pi's rows in use, as a pool of their own.
func (lp *livePools) each(episodes int, fn func(pi int, sub *sim.Pool) error) error {
	for pi := 0; pi*PoolSize < episodes; pi++ {
		p := lp.get(pi)
		size := min(PoolSize, episodes-pi*PoolSize)
		if err := fn(pi, &sim.Pool{Purpose: p.Purpose, Index: p.Index, Size: size, Dim: p.Dim, X: p.X[:size*p.Dim]}); err != nil {
			return err
		}
	}
	return nil
}

// crew plays a run's episodes on every core (sim.Crew: each episode's
// result is one Runner's).
func (n *Net) crew() *sim.Crew { return sim.NewCrew(n.Net, runtime.GOMAXPROCS(0)) }

// livePools hands out test pools by index: the last one drawn, and those
// kept while they fit in livePoolBytes.
type livePools struct {
	n     *Net
	days  int // the days the run plays (Days): where PoolSize do not fit, all it draws
	kept  map[int]*sim.Pool
	bytes int
	last  *sim.Pool
}

func (lp *livePools) get(i int) *sim.Pool {
	if p, ok := lp.kept[i]; ok {
		return p
	}
	if lp.last != nil && lp.last.Index == i {
		return lp.last
	}
	size := PoolSize
	if !lp.n.poolFitsWhole() {
		size = min(lp.days, PoolSize) // the first days of pool 0 (Days)
	}
	p := sim.NewPool(lp.n.Model, lp.n.Net.PoolKey(), sim.Test, i, size, 0, nil)
	if b := len(p.X) * 8; lp.bytes+b <= livePoolBytes {
		lp.kept[i] = p
		lp.bytes += b
	}
	lp.last = p
	return p
}

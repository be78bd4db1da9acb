package lab

import (
	"context"
	"math"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/sim"
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
	Err    string
}

// LiveUpdate is sent after every chunk.
type LiveUpdate struct {
	Done, Total int
	Rates       []Rate
}

// LiveResult is what the plots are drawn from.
type LiveResult struct {
	Budget  float64
	LETTime float64
	Rates   []Rate
	Times   map[string][]float64 // arrival (or abandonment) time of each episode
	Curve   map[string][]float64 // on-time rate at each factor of the request's Curve
	Factors []float64
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
	chunk := req.Chunk
	if chunk <= 0 {
		chunk = 100
	}
	res := &LiveResult{Budget: req.Factor * let, LETTime: let, Times: map[string][]float64{}, Curve: map[string][]float64{}, Factors: req.Curve}
	rates := make([]Rate, len(req.Methods))
	pols := make([]engine.Policy, len(req.Methods))
	for i, m := range req.Methods {
		rates[i].Method = m
		if !n.Runnable(m, req.OD) {
			rates[i].Err = n.Scope(m, req.OD, req.Factor)
			continue
		}
		if pols[i], err = n.Policy(m); err != nil {
			rates[i].Err = err.Error()
		}
	}
	r := &sim.Runner{Net: n.Net}
	task := sim.Task{OD: req.OD, Budget: res.Budget, Cap: n.Net.StepCap}
	var pools []*sim.Pool
	out := make([]sim.Result, chunk)
	for done := 0; done < req.Episodes; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		size := min(chunk, req.Episodes-done, PoolSize-done%PoolSize)
		pi := done / PoolSize
		if pi == len(pools) {
			pools = append(pools, sim.NewPool(n.Model, n.Net.PoolKey(), sim.Test, pi, PoolSize, 0, nil))
		}
		p := pools[pi]
		off := done % PoolSize
		sub := &sim.Pool{Purpose: p.Purpose, Index: p.Index, Size: size, Dim: p.Dim, X: p.X[off*p.Dim : (off+size)*p.Dim]}
		for i, pol := range pols {
			if pol == nil {
				continue
			}
			if err := r.Run(pol, task, sub, out[:size]); err != nil {
				rates[i].Err, pols[i] = err.Error(), nil
				continue
			}
			for _, o := range out[:size] {
				rates[i].N++
				if o.OnTime {
					rates[i].OnTime++
				}
				res.Times[rates[i].Method] = append(res.Times[rates[i].Method], o.Time)
			}
			rates[i].Rate = float64(rates[i].OnTime) / float64(rates[i].N)
			rates[i].Lo, rates[i].Hi = Wilson(rates[i].OnTime, rates[i].N)
		}
		done += size
		if emit != nil {
			if err := emit(LiveUpdate{Done: done, Total: req.Episodes, Rates: append([]Rate(nil), rates...)}); err != nil {
				return nil, err
			}
		}
	}
	res.Rates = rates
	// The on-time curve over budget factors, on the same realizations.
	all := make([]sim.Result, min(PoolSize, req.Episodes))
	for _, f := range req.Curve {
		t := sim.Task{OD: req.OD, Budget: f * let, Cap: n.Net.StepCap}
		for i, pol := range pols {
			if pol == nil {
				continue
			}
			ok, total := 0, 0
			for _, p := range pools {
				size := min(PoolSize, req.Episodes-p.Index*PoolSize)
				sub := &sim.Pool{Purpose: p.Purpose, Index: p.Index, Size: size, Dim: p.Dim, X: p.X[:size*p.Dim]}
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				if err := r.Run(pol, t, sub, all[:size]); err != nil {
					return nil, err
				}
				for _, o := range all[:size] {
					total++
					if o.OnTime {
						ok++
					}
				}
			}
			m := req.Methods[i]
			res.Curve[m] = append(res.Curve[m], float64(ok)/float64(max(total, 1)))
		}
	}
	return res, nil
}

// Wilson is the 95% Wilson score interval of k successes in n trials.
func Wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959963984540054
	p := float64(k) / float64(n)
	nf := float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return math.Max(0, mid-half), math.Min(1, mid+half)
}

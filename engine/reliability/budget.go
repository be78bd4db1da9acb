// Package reliability answers the questions people ask before the one the
// benchmark asks: how much time must I allow to be on time with
// probability α (the α-reliable budget), and how reliable is a route (the
// travel-time, buffer and planning-time indices). It knows no method and no
// network: callers hand it a method's on-time count at a budget, measured
// on the same pools for every method.
package reliability

import (
	"context"
	"fmt"
	"math"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/stats"
)

// RateAt is a method's on-time count out of n episodes at a budget (in
// minutes), on pools fixed for the whole search.
type RateAt func(ctx context.Context, budget float64) (onTime, n int, err error)

// Budget is a method's least budget for a target on-time rate α.
type Budget struct {
	Alpha float64 `json:"alpha"`
	// Budget is the least budget (to Tol) whose observed rate reaches α.
	Budget float64 `json:"budget"`
	// Lo and Hi bound it at 95%: the least budgets at which the upper and
	// the lower end of the rate's Wilson interval reach α. Hi is +Inf
	// (JSON: null) when the lower end does not reach α within the range.
	Lo float64  `json:"lo"`
	Hi *float64 `json:"hi"`
	// Rate is the observed rate at Budget, of N episodes.
	Rate float64 `json:"rate"`
	N    int     `json:"n"`
	// Tol is the search's resolution in minutes; Evaluations the budgets
	// tried (each a run of the method over the pools).
	Tol         float64 `json:"tol"`
	Evaluations int     `json:"evaluations"`
	// Floor is the search range's low end when it is not 0 (a learned
	// policy's trained range); AtFloor: the rate already reaches α there,
	// so the least budget is at most Floor, not found below it.
	Floor   float64 `json:"floor,omitempty"`
	AtFloor bool    `json:"at_floor,omitempty"`
}

// OutOfReach is the cause of Search's error (an engine.Error, EINVALID)
// when the rate does not reach α by the range's top: K of N episodes on
// time at Max minutes.
type OutOfReach struct {
	Alpha, Max float64
	K, N       int
}

func (e *OutOfReach) Error() string {
	return fmt.Sprintf("an on-time rate of %v is out of reach within %.4g min: the rate there is %.4f (%d of %d episodes); allow a larger budget range",
		e.Alpha, e.Max, e.Rate(), e.K, e.N)
}

// Rate is the rate at the range's top.
func (e *OutOfReach) Rate() float64 { return float64(e.K) / float64(e.N) }

// Search finds the least budget whose rate reaches alpha, and its
// interval, by bisection on [0, max]: the rate of a policy on fixed pools
// grows with the budget (a fixed route's exactly; an adaptive policy's
// nearly, since more time never forces a worse plan), so the least budget
// meeting each of the three criteria (observed rate, the interval's upper
// end, its lower end) is found to within tol. Budgets already tried are
// not run again. An alpha the rate does not reach by max is an error that
// says how far it got (*OutOfReach).
func Search(ctx context.Context, rate RateAt, alpha, max, tol float64) (Budget, error) {
	return SearchIn(ctx, rate, alpha, 0, max, tol)
}

// SearchIn is Search on [floor, max]: a learned policy's budgets are
// searched only within the range it was trained for. Where the rate
// already reaches alpha at floor, the answer is floor, marked AtFloor.
func SearchIn(ctx context.Context, rate RateAt, alpha, floor, max, tol float64) (Budget, error) {
	if !(alpha > 0 && alpha < 1) {
		return Budget{}, engine.Errorf(engine.EINVALID, "target on-time rate %v: give a probability between 0 and 1 (exclusive), such as 0.95", alpha)
	}
	if !(max > 0) || !(tol > 0) || math.IsInf(max, 0) || !(floor >= 0 && floor < max) {
		return Budget{}, engine.Errorf(engine.EINVALID, "budget range %v to %v min, resolution %v: the high end and the resolution must be positive and finite, the low end at least 0 and below the high end", floor, max, tol)
	}
	type count struct{ k, n int }
	seen := map[float64]count{}
	at := func(b float64) (count, error) {
		if c, ok := seen[b]; ok {
			return c, nil
		}
		if err := ctx.Err(); err != nil {
			return count{}, err
		}
		k, n, err := rate(ctx, b)
		if err != nil {
			return count{}, err
		}
		if n <= 0 {
			return count{}, fmt.Errorf("no episodes at budget %g", b)
		}
		seen[b] = count{k, n}
		return seen[b], nil
	}
	observed := func(c count) bool { return float64(c.k) >= alpha*float64(c.n) }
	upper := func(c count) bool { _, hi := stats.Wilson(c.k, c.n); return hi >= alpha }
	lower := func(c count) bool { lo, _ := stats.Wilson(c.k, c.n); return lo >= alpha }
	// least is the least budget in (0, max] meeting ok, to within tol (ok
	// must hold at max).
	least := func(ok func(count) bool) (float64, error) {
		lo, hi := floor, max
		for hi-lo > tol {
			mid := lo + (hi-lo)/2
			c, err := at(mid)
			if err != nil {
				return 0, err
			}
			if ok(c) {
				hi = mid
			} else {
				lo = mid
			}
		}
		return hi, nil
	}
	top, err := at(max)
	if err != nil {
		return Budget{}, err
	}
	if !observed(top) {
		far := &OutOfReach{Alpha: alpha, Max: max, K: top.k, N: top.n}
		return Budget{}, &engine.Error{Code: engine.EINVALID, Message: far.Error(), Err: far}
	}
	out := Budget{Alpha: alpha, Tol: tol, Floor: floor}
	if floor > 0 {
		c, err := at(floor)
		if err != nil {
			return Budget{}, err
		}
		out.AtFloor = observed(c)
	}
	if out.Budget, err = least(observed); err != nil {
		return Budget{}, err
	}
	if out.Lo, err = least(upper); err != nil {
		return Budget{}, err
	}
	if lower(top) {
		hi, err := least(lower)
		if err != nil {
			return Budget{}, err
		}
		out.Hi = &hi
	}
	// Bisection assumes the rate grows with the budget; where an adaptive
	// policy's dips, the bounds are kept on either side of the budget.
	out.Lo = math.Min(out.Lo, out.Budget)
	if out.Hi != nil && *out.Hi < out.Budget {
		*out.Hi = out.Budget
	}
	c := seen[out.Budget]
	out.Rate, out.N, out.Evaluations = float64(c.k)/float64(c.n), c.n, len(seen)
	return out, nil
}

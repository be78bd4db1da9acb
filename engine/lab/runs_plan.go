package lab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/reliability"
	"github.com/ontime-routing/ontime/engine/sim"
)

// PlanRequest asks each method's least budget for a target on-time rate on
// one OD pair.
type PlanRequest struct {
	OD      engine.OD
	Alpha   float64
	Methods []string
	// Episodes are the common test realizations every method is run on
	// (from test pool 0 onwards; 0: PoolSize).
	Episodes int
	// MaxFactor bounds the search: budgets up to MaxFactor × the pair's
	// LET time (0: DefaultPlanMaxFactor).
	MaxFactor float64
	// Routes is how many of the pair's routes (the fastest on average
	// first) get their reliability indices (0: none).
	Routes int
}

// DefaultPlanMaxFactor is how far a plan searches by default: three times
// the LET time covers a 0.99 target at σ/μ = 0.3 on every shared network.
const DefaultPlanMaxFactor = 3.0

// Plan is each method's least budget for the request's target.
type Plan struct {
	OD      engine.OD `json:"-"`
	Pair    string    `json:"od"` // ORIGIN-DEST by node ids
	Alpha   float64   `json:"alpha"`
	LETTime float64   `json:"let_time"`
	Max     float64   `json:"max_budget"` // the largest budget searched, minutes
	// Depart is the departure on a network whose law changes over the
	// day (LETTime is then the time-dependent LET time leaving then).
	Depart string    `json:"depart,omitempty"`
	Rows   []PlanRow `json:"methods"`
	// Days are the common test realizations each budget was tried on,
	// fewer than the Asked on a network too large to hold them (Note says
	// so; Days).
	Days  int    `json:"days"`
	Asked int    `json:"days_asked"`
	Note  string `json:"note,omitempty"`
	// Routes are the pair's fastest routes on average with their
	// reliability indices, on the same realizations.
	Routes []RouteReliability `json:"routes,omitempty"`
}

// RouteReliability is one route's reliability indices.
type RouteReliability struct {
	Nodes []string `json:"nodes"` // the route's node ids, origin first
	Links []int    `json:"-"`     // its links (indices)
	// Numbers are its links' numbers (1-based, engine.LinkNumbers): what a
	// reader of the answer meets on the map and in every file.
	Numbers []int `json:"links"`
	reliability.Indices
}

// TableBudget is a method's least budget from its own tables (DOT's value
// table: exact for the links' marginal laws, correlation ignored).
type TableBudget struct {
	Budget float64 `json:"budget"`
	Step   float64 `json:"step"`            // the tables' step: the budget is a multiple of it
	Err    string  `json:"error,omitempty"` // why there is none (out of the tables' reach)
}

// PlanRow is one method's least budget, found by bisection on the common
// realizations, or why it has none; and its tables' answer where it has one.
type PlanRow struct {
	Method string `json:"method"`
	// Range is the budget factors a trained model was trained for, the
	// only ones its search tries (nil: 0 to the plan's largest budget).
	Range []float64 `json:"trained_range,omitempty"`
	// SearchedTo is the largest budget the search tried (minutes); Note
	// says how a trained model's search was kept to its range (RangeNote).
	SearchedTo float64 `json:"searched_to,omitempty"`
	Note       string  `json:"note,omitempty"`
	reliability.Budget
	Err   string       `json:"error,omitempty"`
	Table *TableBudget `json:"table,omitempty"`
}

// RangeNote says, for a trained model's row, that its search kept to the
// budgets it was trained for, and where the rate already met the target at
// their low end, that the budget is an upper bound ("" for other rows).
func (r PlanRow) RangeNote() string {
	if r.Range == nil {
		return ""
	}
	if r.AtFloor {
		return fmt.Sprintf("at most this: the rate reaches the target already at %.2f × LET, the low end of %s's training range (budgets below it are outside its training)", r.Range[0], r.Method)
	}
	return fmt.Sprintf("searched within %s's training range only (%.2f–%.2f × LET)", r.Method, r.Range[0], r.Range[1])
}

// PlanPoolBytes bounds the test realizations one plan holds: a plan of
// 200,000 days on Anaheim held 1.2 GB (its pools, drawn once and read by
// every step of every method's search). A few plans run at once (the
// server's bound), so the server's memory stays bounded too.
var PlanPoolBytes = 256 << 20 // a variable so a test can bound a small network

// planDays is how many days a plan of n plays at most: those that fit in
// PlanPoolBytes, and never fewer than minDays (Days refuses a network too
// large for them).
func (n *Net) planDays() int { return max(minDays, PlanPoolBytes/(n.Model.Dim()*8)) }

// Plan finds each method's least budget reaching req.Alpha: by bisection on
// the same realizations for every method (so the budgets are paired), and
// from DOT's value table.
func (n *Net) Plan(ctx context.Context, req PlanRequest) (*Plan, error) {
	let, err := n.Validate(req.OD, 1)
	if err != nil {
		return nil, err
	}
	if !(req.Alpha > 0 && req.Alpha < 1) {
		e := engine.Errorf(engine.EINVALID, "target on-time rate %v: give a probability between 0 and 1 (exclusive), such as 0.95", req.Alpha)
		e.Field = "reliability"
		return nil, e
	}
	episodes := req.Episodes
	if episodes == 0 {
		episodes = PoolSize
	}
	if episodes < 100 || episodes > 100*PoolSize {
		return nil, engine.Errorf(engine.EINVALID, "episodes %d: give 100 to %d", episodes, 100*PoolSize)
	}
	asked := episodes
	episodes, note, err := n.Days(episodes)
	if err != nil {
		return nil, err
	}
	if most := n.planDays(); episodes > most {
		note = english.Sprintf("%s plans on %d days, not the %d asked: a plan holds at most %d MB of link times (%d links a day), so that a few plans at once leave the server its memory", n.Net.Name, most, asked, PlanPoolBytes>>20, n.Model.Dim())
		episodes = most
	}
	maxFactor := req.MaxFactor
	if maxFactor == 0 {
		maxFactor = DefaultPlanMaxFactor
	}
	if !(maxFactor > 1 && maxFactor <= 20) {
		return nil, engine.Errorf(engine.EINVALID, "largest budget factor %v: give a factor in (1, 20]", maxFactor)
	}
	p := &Plan{OD: req.OD, Pair: n.Net.ODString(req.OD), Alpha: req.Alpha, LETTime: let, Max: maxFactor * let, Days: episodes, Asked: asked, Note: note, Depart: n.departureText()}
	pools := &livePools{n: n, kept: map[int]*sim.Pool{}, days: episodes}
	tol := math.Max(1e-3*let, 1e-3) // a thousandth of the LET time
	crew := n.crew()
	for _, m := range req.Methods {
		row := PlanRow{Method: m}
		p.Rows = append(p.Rows, row)
		r := &p.Rows[len(p.Rows)-1]
		if !n.Runnable(m, req.OD) {
			r.Err = n.Scope(m, req.OD, 1)
			continue
		}
		// A trained model is searched within its training only: a pair it
		// was not trained for is refused, its budgets kept to its range.
		floor, top := 0.0, p.Max
		cover := n.Cover(m)
		if cover != nil {
			if why := cover.OutsidePair(n.Net, req.OD); why != "" {
				r.Err = why
				continue
			}
			if lo, hi, ok := cover.Range(); ok {
				floor, top = lo*let, math.Min(hi*let, p.Max)
				r.Range = []float64{lo, hi}
			}
		}
		pol, err := n.Policy(m)
		if err != nil {
			r.Err = err.Error()
			continue
		}
		r.Table = n.tableBudget(m, req.OD, req.Alpha, p.Max)
		rate := func(ctx context.Context, budget float64) (int, int, error) {
			return onTimeOn(ctx, crew, pol, sim.Task{OD: req.OD, Budget: budget, Cap: n.Net.StepCap, Depart: n.departure()}, pools, episodes)
		}
		r.SearchedTo = top
		b, err := reliability.SearchIn(ctx, rate, req.Alpha, floor, top, tol)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			r.Err = engine.ErrorMessage(err)
			var far *reliability.OutOfReach
			if errors.As(err, &far) && r.Range != nil {
				r.Err = fmt.Sprintf("outside %s's training range: within the budgets it was trained for (%.2f–%.2f × LET, up to %.4g min) its rate reaches %.4f (%d of %d days), short of %v",
					m, r.Range[0], r.Range[1], top, far.Rate(), far.K, far.N, req.Alpha)
			}
			continue
		}
		r.Budget = b
		r.Note = r.RangeNote()
	}
	if req.Routes > 0 && n.Net.Timed() {
		// the routes' indices sum static draws; over the day each link's
		// time depends on when it is entered (ontime plan --by-hour)
		p.Note = strings.TrimPrefix(p.Note+"; the routes' indices are not computed on a law over the day: ask for them by departure hour (ontime plan --by-hour)", "; ")
	} else if req.Routes > 0 {
		if p.Routes, err = n.routeReliability(ctx, req.OD, req.Routes, pools, episodes); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// routeReliability is the indices of the pair's k fastest routes on
// average over the first episodes common test realizations.
func (n *Net) routeReliability(ctx context.Context, od engine.OD, k int, pools *livePools, episodes int) ([]RouteReliability, error) {
	var out []RouteReliability
	for _, links := range policy.CandidatePaths(n.Net, od.Origin, od.Destination, k) {
		times := make([]float64, 0, episodes)
		err := pools.each(episodes, func(_ int, p *sim.Pool) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			for i := range p.Size {
				row, t := p.Row(i), 0.0
				for _, e := range links {
					t += row[e]
				}
				times = append(times, t)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		nodes := []string{n.Net.Nodes[od.Origin].ID}
		for _, e := range links {
			nodes = append(nodes, n.Net.Nodes[n.Net.Links[e].To].ID)
		}
		out = append(out, RouteReliability{Nodes: nodes, Links: links, Numbers: engine.LinkNumbers(links), Indices: reliability.RouteIndices(times)})
	}
	return out, nil
}

// tableBudget is method's answer from its own tables, where it has one.
func (n *Net) tableBudget(method string, od engine.OD, alpha, max float64) *TableBudget {
	m, err := policy.Lookup(method)
	if err != nil || m.LeastBudget == nil || n.Net.Timed() {
		return nil // a static table's budget would ignore the hour
	}
	b, step, ok := m.LeastBudget(n.env, od, alpha, max)
	if !ok {
		return &TableBudget{Step: step, Err: "its tables' value stays below the target within the range"}
	}
	return &TableBudget{Budget: b, Step: step}
}

// onTimeOn counts pol's on-time episodes of task on the first episodes
// common test realizations.
func onTimeOn(ctx context.Context, crew *sim.Crew, pol engine.Policy, task sim.Task, pools *livePools, episodes int) (int, int, error) {
	out := make([]sim.Result, min(PoolSize, episodes))
	k := 0
	err := pools.each(episodes, func(_ int, sub *sim.Pool) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := crew.Run(pol, task, sub, out[:sub.Size]); err != nil {
			return err
		}
		for _, o := range out[:sub.Size] {
			if o.OnTime {
				k++
			}
		}
		return nil
	})
	return k, episodes, err
}

package lab

import (
	"math"
	"slices"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
)

// The story's budget grid (factors of the LET time), its candidate paths
// and the realizations its arrival-time distributions are drawn from.
const (
	storyLo, storyHi, storyStep = 0.85, 1.55, 0.01 // to 1.55: the spread route's 95% budget (1.45 × on ringtown) lies inside
	storyCandidates             = 12
	storySamples                = 2000
	storyQuantiles              = 200
	// storyTrips are the sampled trips the page drives one at a time: the
	// arrival times of the first realizations of the same pool, in pool
	// order, paired across routes (trip k is one day for every route).
	storyTrips = 1000
)

// StoryRoute is one fixed route of the story.
type StoryRoute struct {
	Links []int    `json:"links"`
	Nodes []string `json:"nodes"`
	Mean  float64  `json:"mean"`
	SD    float64  `json:"sd"`
	// Fastest: the route fastest on average (the LET path).
	Fastest bool `json:"fastest"`
	// OnTime is the exact on-time probability at each factor of the grid.
	OnTime []float64 `json:"on_time"`
	// Times are quantiles of its arrival time over the common test pool's
	// realizations (storyQuantiles of them, in order): the distribution
	// the page draws.
	Times []float64 `json:"times"`
	// Drive is realization 0's time on each link, for the animation.
	Drive []float64 `json:"drive"`
	// Trips are the route's arrival times on the first storyTrips
	// realizations of the pool, in pool order.
	Trips []float64 `json:"trips"`
}

// Story is the home page's first lesson on one OD pair: the route fastest
// on average against the route most likely on time, as the budget moves.
type Story struct {
	Network string       `json:"network"`
	OD      string       `json:"od"`
	Origin  string       `json:"origin"`
	Dest    string       `json:"destination"`
	LETTime float64      `json:"let_time"`
	Factors []float64    `json:"factors"`
	Routes  []StoryRoute `json:"routes"`
	// Best is the index of the most reliable route at each factor.
	Best []int `json:"best"`
	// Other is the route shown beside the fastest where the fastest is
	// also the most reliable, so the page always compares two routes: the
	// most reliable at the opening factor (else the first other route).
	Other int `json:"other"`
	// Factor is where the page opens: the first of the network's benchmark
	// factors at which the two answers differ (else 1).
	Factor float64 `json:"factor"`
}

// DefaultStory is the story the home page tells: on the first benchmark
// pair whose most reliable route changes with the budget, else on the
// first pair.
func (n *Net) DefaultStory() (*Story, error) {
	if len(n.Net.ODs) == 0 {
		return nil, engine.Errorf(engine.EINVALID, "network %s has no OD pairs: give ?o= and ?d=", n.Net.Name)
	}
	var first *Story
	for _, od := range n.Net.ODs {
		s, err := n.Story(od)
		if err == nil && len(s.Routes) > 1 {
			return s, nil
		}
		if first == nil {
			first = s
		}
	}
	if first == nil {
		return n.Story(n.Net.ODs[0]) // its error
	}
	return first, nil
}

// Story computes the story for od.
func (n *Net) Story(od engine.OD) (*Story, error) {
	let, err := n.Validate(od, 1)
	if err != nil {
		return nil, err
	}
	s := &Story{Network: n.Net.Name, OD: n.Net.ODString(od), Origin: n.Net.Nodes[od.Origin].ID, Dest: n.Net.Nodes[od.Destination].ID, LETTime: let}
	for f := storyLo; f <= storyHi+1e-9; f += storyStep {
		s.Factors = append(s.Factors, math.Round(f*100)/100)
	}
	fastest := n.Net.LET(od.Destination).Path(od.Origin, n.Net)
	cands := policy.CandidatePaths(n.Net, od.Origin, od.Destination, storyCandidates)
	// The routes shown: the fastest, then each path that is the most
	// reliable somewhere on the grid, in the order the grid meets them.
	routes := [][]int{fastest}
	for _, f := range s.Factors {
		best, bestP := fastest, policy.PathOnTime(n.Model, fastest, f*let)
		for _, c := range cands {
			if p := policy.PathOnTime(n.Model, c, f*let); p > bestP+1e-9 {
				best, bestP = c, p
			}
		}
		i := slices.IndexFunc(routes, func(r []int) bool { return slices.Equal(r, best) })
		if i < 0 {
			routes = append(routes, best)
			i = len(routes) - 1
		}
		s.Best = append(s.Best, i)
	}
	pool := sim.NewPool(n.Model, n.Net.PoolKey(), sim.Test, 0, storySamples, 0, nil)
	drive := n.Realization(0)
	for i, links := range routes {
		r := StoryRoute{Links: links, Nodes: n.Net.PathNodes(links), Fastest: i == 0}
		for _, l := range links {
			r.Mean += n.Net.Links[l].Mean
			r.Drive = append(r.Drive, drive[l])
		}
		_, r.SD = n.Model.Condition(nil, nil).Sum(links)
		for _, f := range s.Factors {
			r.OnTime = append(r.OnTime, policy.PathOnTime(n.Model, links, f*let))
		}
		times := make([]float64, pool.Size)
		for k := range pool.Size {
			x := pool.Row(k)
			for _, l := range links {
				times[k] += x[l]
			}
		}
		r.Trips = slices.Clone(times[:min(storyTrips, len(times))])
		slices.Sort(times)
		for q := range storyQuantiles {
			r.Times = append(r.Times, times[(2*q+1)*len(times)/(2*storyQuantiles)])
		}
		s.Routes = append(s.Routes, r)
	}
	s.Factor = 1
	for _, f := range n.Net.BudgetFactors() {
		if k := slices.Index(s.Factors, math.Round(f*100)/100); k >= 0 && s.Best[k] != 0 {
			s.Factor = s.Factors[k]
			break
		}
	}
	if k := slices.Index(s.Factors, s.Factor); k >= 0 && s.Best[k] != 0 {
		s.Other = s.Best[k]
	} else if len(s.Routes) > 1 {
		s.Other = 1
	}
	return s, nil
}

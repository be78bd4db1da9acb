package reliability

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Indices are a route's travel-time reliability indices over sampled days
// (FHWA, "Travel Time Reliability: Making It There On Time, All The Time",
// 2006, and the Urban Mobility Report's definitions):
//
//	travel time index   TTI = mean / reference
//	buffer index        BI  = (95th percentile − mean) / mean
//	planning time index PTI = 95th percentile / reference
//
// The reference ("free-flow") time is the route's 15th-percentile time:
// ontime's laws have no separate free-flow speed, and the 15th percentile
// time is the reference that probe-data practice uses (the 85th-percentile
// speed of the National Performance Management Research Data Set).
type Indices struct {
	N         int     `json:"n"`
	Mean      float64 `json:"mean"`
	P95       float64 `json:"p95"`       // the planning time
	Reference float64 `json:"reference"` // the 15th percentile
	TTI       float64 `json:"travel_time_index"`
	BI        float64 `json:"buffer_index"`
	PTI       float64 `json:"planning_time_index"`
}

// ReferenceQuantile is the quantile that stands for the free-flow time.
const ReferenceQuantile = 0.15

// RouteIndices are the indices of a route's times on sampled days (all of
// them known: a fixed route's time is the sum of its links' on that day,
// whatever the budget).
func RouteIndices(times []float64) Indices {
	s := slices.Clone(times)
	slices.Sort(s)
	ix := Indices{N: len(s)}
	if len(s) == 0 {
		nan := math.NaN()
		return Indices{Mean: nan, P95: nan, Reference: nan, TTI: nan, BI: nan, PTI: nan}
	}
	ix.Mean = stat.Mean(s, nil)
	ix.P95 = stat.Quantile(0.95, stat.Empirical, s, nil)
	ix.Reference = stat.Quantile(ReferenceQuantile, stat.Empirical, s, nil)
	ix.TTI = ix.Mean / ix.Reference
	ix.BI = (ix.P95 - ix.Mean) / ix.Mean
	ix.PTI = ix.P95 / ix.Reference
	return ix
}

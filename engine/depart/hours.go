package depart

import (
	"context"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/reliability"
	"github.com/ontime-routing/ontime/engine/sim"
)

// Hour is the travel time leaving at one clock time by the route a
// commuter would take then (the time-dependent LET path): its mean, its
// 95th percentile (the planning time) and the FHWA indices on the pool's
// days.
type Hour struct {
	Depart string   `json:"depart"`
	Route  []string `json:"route"`
	reliability.Indices
}

// Hours is the dual of the curve: at each departure, the travel time one
// must plan for, on the same days for every departure.
func Hours(ctx context.Context, net *engine.Network, model *linktime.Gaussian, od engine.OD, departs []float64, days int) ([]Hour, error) {
	if !net.Timed() {
		return nil, engine.Errorf(engine.EINVALID, "%s has no law over the day (its law is the same at every hour): its travel times do not depend on the departure", net.Name)
	}
	pool := sim.NewPool(model, net.PoolKey(), sim.Test, 0, days, 0, nil)
	w := net.MeanTimeAt()
	var out []Hour
	times := make([]float64, pool.Size)
	for _, t := range departs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		route, _ := net.EarliestArrival(od.Origin, od.Destination, t, w)
		if len(route) == 0 && od.Origin != od.Destination {
			return nil, engine.Errorf(engine.EINVALID, "OD %s: the destination cannot be reached", net.ODString(od))
		}
		for i := range pool.Size {
			x := pool.Row(i)
			c := t
			for _, e := range route {
				c += net.Clock.Time(e, c, x[e], net.Links[e].Mean)
			}
			times[i] = c - t
		}
		out = append(out, Hour{Depart: engine.FormatClock(t), Route: net.PathNodes(route), Indices: reliability.RouteIndices(times)})
	}
	return out, nil
}

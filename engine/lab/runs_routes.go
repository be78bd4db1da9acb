package lab

import (
	"fmt"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// RoutesFile is routes written in a route format, ready to download.
type RoutesFile struct {
	Data      []byte
	MediaType string
	Name      string // a file name: network, pair and what the routes are
}

// RouteFormatChoice is a route format a network can be written in, for a
// page's download links.
type RouteFormatChoice struct{ Name, Label string }

// RouteFormats are the route formats this network can be written in (GPX
// only on the globe).
func (n *Net) RouteFormats() []RouteFormatChoice {
	var out []RouteFormatChoice
	for _, f := range netfile.RouteFormats {
		if _, err := netfile.RouteFormatByName(f.Name, n.Net); err == nil {
			out = append(out, RouteFormatChoice{f.Name, f.Label})
		}
	}
	return out
}

// ComparisonRoutes writes each method's drive of a comparison: its links,
// the minutes on each, and the budget, arrival and on-time flag. A method
// that could not run has no course and is left out.
func (n *Net) ComparisonRoutes(c *Comparison, format string) (*RoutesFile, error) {
	var routes []netfile.Route
	for _, ro := range c.Rollouts {
		if ro.Err != "" || len(ro.Steps) == 0 {
			continue
		}
		r := netfile.Route{Name: ro.Method, Props: map[string]any{
			"method": ro.Method, "od": n.Net.ODString(c.OD), "realization": c.Realization,
			"budget_min": c.Budget, "arrival_min": ro.Result.Time, "on_time": ro.Result.OnTime, "end": endNames[ro.Result.End],
		}}
		r.Links, r.Times = ro.Route()
		routes = append(routes, r)
	}
	return n.writeRoutes(routes, format, fmt.Sprintf("%s-%s-r%d-drives", n.Net.Name, odFileName(n.Net, c.OD), c.Realization))
}

// PlanRoutes writes a plan's routes with their reliability indices.
func (n *Net) PlanRoutes(p *Plan, format string) (*RoutesFile, error) {
	var routes []netfile.Route
	for k, rr := range p.Routes {
		routes = append(routes, netfile.Route{Name: fmt.Sprintf("route %d", k+1), Links: rr.Links, Props: map[string]any{
			"od": p.Pair, "mean_min": rr.Mean, "p95_min": rr.P95, "reference_min": rr.Reference,
			"travel_time_index": rr.TTI, "buffer_index": rr.BI, "planning_time_index": rr.PTI,
		}})
	}
	return n.writeRoutes(routes, format, fmt.Sprintf("%s-%s-routes", n.Net.Name, odFileName(n.Net, p.OD)))
}

// CheckRouteFormat refuses a route format this network cannot be written
// in, before any work is done.
func (n *Net) CheckRouteFormat(format string) error {
	_, err := netfile.RouteFormatByName(format, n.Net)
	return err
}

func (n *Net) writeRoutes(routes []netfile.Route, format, stem string) (*RoutesFile, error) {
	f, err := netfile.RouteFormatByName(format, n.Net)
	if err != nil {
		return nil, err
	}
	data, err := f.Write(n.Net, routes)
	if err != nil {
		return nil, err
	}
	return &RoutesFile{Data: data, MediaType: f.MediaType, Name: stem + f.Ending}, nil
}

// odFileName is a pair for a file name: node ids kept to safe characters.
func odFileName(net *engine.Network, od engine.OD) string {
	safe := func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}
	return strings.Map(safe, net.Nodes[od.Origin].ID) + "-" + strings.Map(safe, net.Nodes[od.Destination].ID)
}

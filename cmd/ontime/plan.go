package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
)

// runPlan answers "how much time must I allow": each method's least budget
// for a target on-time rate on one OD pair, with its 95% interval, found on
// the same test realizations for every method; and DOT's exact answer from
// its value table.
func runPlan(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var rf runFlags
	rf.register(fs, "let,dot,cdot", "common test realizations each budget is tried on", " (csv: the methods' table only; json: the whole plan, as /api/plan answers)")
	alpha := fs.Float64("reliability", 0.95, "target on-time rate, in (0, 1)")
	maxFactor := fs.Float64("max-factor", lab.DefaultPlanMaxFactor, "search budgets up to this × the pair's LET time")
	routes := fs.Int("routes", 3, "also the reliability indices of the pair's N fastest routes on average (0: none)")
	routesOut := fs.String("routes-out", "", "also write the routes with their indices to this file: .geojson, .csv, or .gpx for a network on the globe")
	var q clockQuestion
	fs.StringVar(&q.arriveBy, "arrive-by", "", "on a network whose law changes over the day: arrive by this time of day (HH:MM); alone, the latest departure for --reliability per method")
	fs.StringVar(&q.depart, "depart", "", "with --arrive-by: leave at this time of day (HH:MM) and give each method's P(on time)")
	fs.Float64Var(&q.window, "window", 180, "with --arrive-by alone: try departures this many minutes before the deadline")
	fs.Float64Var(&q.every, "every", 5, "with --arrive-by alone: minutes between the departures tried")
	fs.StringVar(&q.curveOut, "curve-out", "", "with --arrive-by: also write the departure-time curve (P(on time) per method and departure) to this CSV file")
	byHour := fs.Bool("by-hour", false, "on a network whose law changes over the day: the travel time to plan for leaving at each hour of the day (the time-dependent LET route's mean, 95th percentile and FHWA indices, on the same days)")
	o, err := rf.open(ctx, fs, args, getenv, stderr, func() error {
		if *routes < 0 || *routes > 20 {
			return engine.Errorf(engine.EINVALID, "--routes %d: give 0 to 20", *routes)
		}
		if !(*alpha > 0 && *alpha < 1) {
			return engine.Errorf(engine.EINVALID, "--reliability %v: give a target on-time rate between 0 and 1 (exclusive), such as 0.95", *alpha)
		}
		return nil
	})
	if err != nil || o == nil {
		return err
	}
	defer o.close(&err)
	n := o.net
	if *byHour {
		return runPlanHours(ctx, o, *rf.episodes, rf.format.String(), stdout)
	}
	if q.asked() {
		return runPlanClock(ctx, o, &q, engine.SplitList(*rf.methods), *rf.episodes, *alpha, rf.format.String(), stdout)
	}
	req := lab.PlanRequest{OD: o.od, Alpha: *alpha, Methods: engine.SplitList(*rf.methods), Episodes: *rf.episodes, MaxFactor: *maxFactor, Routes: *routes}
	routesFormat := strings.TrimPrefix(filepath.Ext(*routesOut), ".")
	if *routesOut != "" {
		if *routes == 0 {
			return engine.Errorf(engine.EINVALID, "--routes-out %s: give --routes 1 or more", *routesOut)
		}
		if err := n.CheckRouteFormat(routesFormat); err != nil {
			return fmt.Errorf("--routes-out %s: %w", *routesOut, err)
		}
	}
	p, err := n.Plan(ctx, req)
	if err != nil {
		return err
	}
	if p.Note != "" {
		fmt.Fprintf(stderr, "ontime plan: %s.\n", p.Note)
	}
	if *routesOut != "" {
		f, err := n.PlanRoutes(p, routesFormat)
		if err != nil {
			return err
		}
		if err := os.WriteFile(*routesOut, f.Data, 0o644); err != nil {
			return err
		}
	}
	return printPlan(stdout, n.Net.ODString(req.OD), p, rf.format.String())
}

// printPlan prints each method's budget (minutes and × the LET time), its
// interval, the rate observed there, and its tables' answer.
func printPlan(w io.Writer, od string, p *lab.Plan, format string) error {
	if format == "json" {
		return writeJSON(w, p)
	}
	ff := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	rows := [][]string{{"method", "budget_min", "factor", "lo95_min", "hi95_min", "rate", "episodes", "table_budget_min", "note"}}
	for _, r := range p.Rows {
		table := ""
		if r.Table != nil && r.Table.Err == "" {
			table = ff(r.Table.Budget)
		}
		if r.Err != "" {
			rows = append(rows, []string{r.Method, "", "", "", "", "", "", table, r.Err})
			continue
		}
		hi := fmt.Sprintf("> %s", ff(r.SearchedTo))
		if r.Hi != nil {
			hi = ff(*r.Hi)
		}
		note := r.Note
		if r.Table != nil {
			note = fmt.Sprintf("table: step %.3g min, links' own laws, correlation ignored", r.Table.Step)
			if r.Table.Err != "" {
				note = "table: " + r.Table.Err
			}
		}
		rows = append(rows, []string{r.Method, ff(r.Budget.Budget), strconv.FormatFloat(r.Budget.Budget/p.LETTime, 'f', 3, 64),
			ff(r.Lo), hi, strconv.FormatFloat(r.Rate, 'f', 4, 64), fmt.Sprint(r.N), table, note})
	}
	if format == "csv" {
		return writeCSV(w, rows)
	}
	if p.Depart != "" {
		od += " leaving at " + p.Depart + " (time-dependent LET)"
	}
	fmt.Fprintf(w, "OD %s: the least budget with P(on time) ≥ %v (LET time %.2f min; searched up to %.2f min)\n\n", od, p.Alpha, p.LETTime, p.Max)
	writeMarkdown(w, rows)
	if len(p.Routes) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nThe fastest routes on average, on the same %d days: travel-time index TTI = mean / reference, buffer index BI = (95th percentile − mean) / mean, planning-time index PTI = 95th percentile / reference (FHWA 2006); the reference (free-flow) time is the route's 15th percentile.\n\n", p.Routes[0].N)
	rr := [][]string{{"route", "mean_min", "p95_min", "reference_min", "TTI", "BI", "PTI"}}
	f3 := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	for _, r := range p.Routes {
		rr = append(rr, []string{strings.Join(r.Nodes, "-"), ff(r.Mean), ff(r.P95), ff(r.Reference), f3(r.TTI), f3(r.BI), f3(r.PTI)})
	}
	writeMarkdown(w, rr)
	return nil
}

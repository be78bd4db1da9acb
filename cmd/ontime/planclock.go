package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/depart"
)

// clockQuestion is plan's clock form: arrive by a time of day, leaving at
// one time (the chances of each method) or at any time over a window (the
// latest departure for the reliability, and the curve).
type clockQuestion struct {
	arriveBy, depart string
	window, every    float64
	curveOut         string
}

// asked reports whether the clock form was asked for.
func (q *clockQuestion) asked() bool { return q.arriveBy != "" || q.depart != "" }

// check reads the times: a deadline, and a departure before it.
func (q *clockQuestion) check() (deadline, leave float64, err error) {
	if q.arriveBy == "" {
		return 0, 0, engine.Errorf(engine.EINVALID, "--depart %s: give --arrive-by too (the deadline whose chances are asked)", q.depart)
	}
	if deadline, err = engine.ParseClock(q.arriveBy); err != nil {
		return 0, 0, fmt.Errorf("--arrive-by: %w", err)
	}
	leave = -1
	if q.depart != "" {
		if leave, err = engine.ParseClock(q.depart); err != nil {
			return 0, 0, fmt.Errorf("--depart: %w", err)
		}
		if leave >= deadline {
			return 0, 0, engine.Errorf(engine.EINVALID, "--depart %s is not before --arrive-by %s", q.depart, q.arriveBy)
		}
	}
	if !(q.every >= 1 && q.every <= 60) {
		return 0, 0, engine.Errorf(engine.EINVALID, "--every %v: give minutes between departures, from 1 to 60 (departures are told to the minute)", q.every)
	}
	if !(q.window > 0 && q.window <= 12*60) {
		return 0, 0, engine.Errorf(engine.EINVALID, "--window %v: give minutes before the deadline, above 0 and at most 720", q.window)
	}
	return deadline, leave, nil
}

// runPlanClock answers the clock form on o's pair.
func runPlanClock(ctx context.Context, o *opened, q *clockQuestion, methods []string, days int, alpha float64, format string, w io.Writer) error {
	deadline, leave, err := q.check()
	if err != nil {
		return err
	}
	departs := []float64{leave}
	if leave < 0 {
		departs = depart.Grid(deadline-q.window, deadline-q.every, q.every)
	}
	n := o.net
	curves, err := depart.Curves(ctx, depart.Request{Net: n.Net, Model: n.Model, OD: o.od, Methods: methods, Deadline: deadline, Departs: departs, Days: days})
	if err != nil {
		return err
	}
	if q.curveOut != "" {
		rows := [][]string{{"method", "depart", "arrive_by", "on_time", "days", "rate", "lo95", "hi95"}}
		for _, c := range curves {
			for i, t := range c.Depart {
				rows = append(rows, []string{c.Method, engine.FormatClock(t), q.arriveBy, fmt.Sprint(c.OnTime[i]), fmt.Sprint(c.Days), f4(c.Rate[i]), f4(c.Lo[i]), f4(c.Hi[i])})
			}
		}
		f, err := os.Create(q.curveOut)
		if err != nil {
			return err
		}
		if err := writeCSV(f, rows); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	od := n.Net.ODString(o.od)
	if leave >= 0 {
		if format == "json" {
			return writeJSON(w, curves)
		}
		rows := [][]string{{"method", "depart", "arrive_by", "rate", "lo95", "hi95", "on_time", "days"}}
		for _, c := range curves {
			rows = append(rows, []string{c.Method, q.depart, q.arriveBy, f4(c.Rate[0]), f4(c.Lo[0]), f4(c.Hi[0]), fmt.Sprint(c.OnTime[0]), fmt.Sprint(c.Days)})
		}
		if format == "csv" {
			return writeCSV(w, rows)
		}
		fmt.Fprintf(w, "OD %s leaving at %s: P(arriving by %s), on the same %d days for every method (95%% Wilson intervals)\n\n", od, q.depart, q.arriveBy, days)
		writeMarkdown(w, rows)
		return nil
	}
	type latest struct {
		Method string  `json:"method"`
		Latest *string `json:"latest"`
		Lo95   *string `json:"lo95"`
		Hi95   *string `json:"hi95"`
		Rate   float64 `json:"rate"`
	}
	var out []latest
	rows := [][]string{{"method", "latest_departure", "lo95", "hi95", "rate_there", "note"}}
	for _, c := range curves {
		at, lo, hi, ok := c.Latest(alpha)
		l := latest{Method: c.Method}
		clock := func(t float64) *string {
			if t != t { // NaN: none on the grid
				return nil
			}
			s := engine.FormatClock(t)
			return &s
		}
		note := ""
		if c.Bound {
			note = "an upper bound (knows the day's times), not a way to drive"
		}
		if !ok {
			rows = append(rows, []string{c.Method, "", "", "", "", fmt.Sprintf("no departure from %s reaches %v", engine.FormatClock(departs[0]), alpha)})
			out = append(out, l)
			continue
		}
		i := slices.Index(c.Depart, at)
		l.Latest, l.Lo95, l.Hi95, l.Rate = clock(at), clock(lo), clock(hi), c.Rate[i]
		str := func(s *string) string {
			if s == nil {
				return "none"
			}
			return *s
		}
		rows = append(rows, []string{c.Method, *l.Latest, str(l.Lo95), str(l.Hi95), f4(c.Rate[i]), note})
		out = append(out, l)
	}
	switch format {
	case "json":
		return writeJSON(w, map[string]any{"od": od, "arrive_by": q.arriveBy, "reliability": alpha, "every_min": q.every, "latest": out, "curves": curves})
	case "csv":
		return writeCSV(w, rows)
	}
	fmt.Fprintf(w, "OD %s: the latest departure to arrive by %s with P(on time) ≥ %v, tried every %v min from %s on the same %d days (interval: the latest departure whose 95%% Wilson interval's low end, and high end, reaches %v)\n\n",
		od, q.arriveBy, alpha, q.every, engine.FormatClock(departs[0]), days, alpha)
	writeMarkdown(w, rows)
	return nil
}

func f4(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

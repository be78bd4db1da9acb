package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

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

// question reads the flags' times into the engine's question; the engine
// checks the rest (the window, the step, the reliability), and an error
// names the flag.
func (q *clockQuestion) question() (depart.Question, error) {
	var dq depart.Question
	if q.arriveBy == "" {
		return dq, engine.Errorf(engine.EINVALID, "--depart %s: give --arrive-by too (the deadline whose chances are asked)", q.depart)
	}
	var err error
	if dq.ArriveBy, err = engine.ParseClock(q.arriveBy); err != nil {
		return dq, fmt.Errorf("--arrive-by: %w", err)
	}
	if q.depart != "" {
		t, err := engine.ParseClock(q.depart)
		if err != nil {
			return dq, fmt.Errorf("--depart: %w", err)
		}
		dq.Depart = &t
	}
	// NaN and 0 are asked, not defaults: the engine refuses them
	dq.Window, dq.Every = orBad(q.window), orBad(q.every)
	return dq, nil
}

// orBad keeps a flag's value, with 0 (the engine's default) as a value
// outside every range.
func orBad(v float64) float64 {
	if v == 0 {
		return -1
	}
	return v
}

// runPlanClock answers the clock form on o's pair.
func runPlanClock(ctx context.Context, o *opened, q *clockQuestion, methods []string, days int, alpha float64, format string, w io.Writer) error {
	dq, err := q.question()
	if err != nil {
		return err
	}
	n := o.net
	dq.Net, dq.Model, dq.OD, dq.Methods, dq.Days, dq.Reliability = n.Net, n.Model, o.od, methods, days, alpha
	a, err := depart.Ask(ctx, dq)
	if err != nil {
		var e *engine.Error
		if errors.As(err, &e) && e.Field != "" && e.Field != "n" {
			// the engine names its field ("every 1e-09: …"); here it is a flag
			flag := "--" + strings.ReplaceAll(e.Field, "_", "-")
			if rest, ok := strings.CutPrefix(e.Message, e.Field+" "); ok {
				return engine.Errorf(engine.EINVALID, "%s %s", flag, rest)
			}
			return engine.Errorf(engine.EINVALID, "%s: %s", flag, e.Message)
		}
		return err
	}
	if q.curveOut != "" {
		rows := [][]string{{"method", "depart", "arrive_by", "on_time", "days", "rate", "lo95", "hi95"}}
		for _, c := range a.Curves {
			for i, t := range c.Depart {
				rows = append(rows, []string{c.Method, engine.FormatClock(t), a.ArriveBy, fmt.Sprint(c.OnTime[i]), fmt.Sprint(c.Days), f4(c.Rate[i]), f4(c.Lo[i]), f4(c.Hi[i])})
			}
		}
		if err := writeCSVFile(q.curveOut, rows); err != nil {
			return err
		}
	}
	if format == "json" {
		return writeJSON(w, a)
	}
	if a.Depart != "" {
		rows := [][]string{{"method", "depart", "arrive_by", "rate", "lo95", "hi95", "on_time", "days"}}
		for _, c := range a.Curves {
			rows = append(rows, []string{c.Method, a.Depart, a.ArriveBy, f4(c.Rate[0]), f4(c.Lo[0]), f4(c.Hi[0]), fmt.Sprint(c.OnTime[0]), fmt.Sprint(c.Days)})
		}
		if format == "csv" {
			return writeCSV(w, rows)
		}
		fmt.Fprintf(w, "OD %s leaving at %s: P(arriving by %s), on the same %d days for every method (95%% Wilson intervals)\n\n", a.OD, a.Depart, a.ArriveBy, days)
		writeMarkdown(w, rows)
		return nil
	}
	first := engine.FormatClock(a.Curves[0].Depart[0])
	rows := [][]string{{"method", "latest_departure", "lo95", "hi95", "rate_there", "note"}}
	str := func(s *string) string {
		if s == nil {
			return "none"
		}
		return *s
	}
	for _, l := range a.Latest {
		note := ""
		if l.Bound {
			note = "an upper bound (knows the day's times), not a way to drive"
		}
		if l.Latest == nil {
			rows = append(rows, []string{l.Method, "", "", "", "", fmt.Sprintf("no departure from %s reaches %v", first, alpha)})
			continue
		}
		rows = append(rows, []string{l.Method, *l.Latest, str(l.Lo95), str(l.Hi95), f4(l.Rate), note})
	}
	if format == "csv" {
		return writeCSV(w, rows)
	}
	fmt.Fprintf(w, "OD %s: the latest departure to arrive by %s with P(on time) ≥ %v, tried every %v min from %s on the same %d days (interval: the latest departure whose 95%% Wilson interval's low end, and high end, reaches %v)\n\n",
		a.OD, a.ArriveBy, alpha, a.Every, first, days, alpha)
	writeMarkdown(w, rows)
	return nil
}

// writeCSVFile writes rows to the file at path.
func writeCSVFile(path string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeCSV(f, rows); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func f4(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

// runPlanHours writes, for each hour of the day, the travel time to plan
// for leaving then on o's pair.
func runPlanHours(ctx context.Context, o *opened, days int, format string, w io.Writer) error {
	n := o.net
	hours, err := depart.Hours(ctx, n.Net, n.Model, o.od, depart.Grid(0, engine.MinutesPerDay-60, 60), days)
	if err != nil {
		return err
	}
	if format == "json" {
		return writeJSON(w, map[string]any{"od": n.Net.ODString(o.od), "days": days, "hours": hours})
	}
	rows := [][]string{{"depart", "mean", "p95", "reference", "travel_time_index", "buffer_index", "planning_time_index", "route"}}
	for _, h := range hours {
		rows = append(rows, []string{h.Depart, f4(h.Mean), f4(h.P95), f4(h.Reference), f4(h.TTI), f4(h.BI), f4(h.PTI), strings.Join(h.Route, "-")})
	}
	if format == "csv" {
		return writeCSV(w, rows)
	}
	fmt.Fprintf(w, "OD %s: the travel time leaving at each hour by that hour's time-dependent LET route, on the same %d days (minutes; reference = the 15th percentile; FHWA indices: TTI = mean/reference, BI = (p95 − mean)/mean, PTI = p95/reference)\n\n", n.Net.ODString(o.od), days)
	writeMarkdown(w, rows)
	return nil
}

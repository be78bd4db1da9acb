package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/internal/csvsafe"
)

// runLive plays the Live page's run from the command line: the same
// episodes of the common test pools, the same rates, and the same figures'
// data (the page's CSV downloads) from the same lab call.
func runLive(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("live", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var rf runFlags
	rf.register(fs, "let,dot", "episodes, from test pool 0 onwards", " (md and json: the rates; csv: the rates or a figure's data)")
	factor := fs.Float64("factor", 1.05, "budget factor (× the OD pair's LET time)")
	figure := fs.String("figure", "rates", "what to print: rates, or a figure's data: "+strings.Join(lab.FigureNames, ", "))
	o, err := rf.open(ctx, fs, args, getenv, stderr, func() error {
		if *figure != "rates" && !slices.Contains(lab.FigureNames, *figure) {
			return engine.Errorf(engine.EINVALID, "--figure %q: use rates, %s", *figure, engine.JoinOr(lab.FigureNames))
		}
		if *figure != "rates" && rf.format.String() != "csv" {
			return engine.Errorf(engine.EINVALID, "--figure %s prints the figure's data: add --format csv", *figure)
		}
		return nil
	})
	if err != nil || o == nil {
		return err
	}
	defer o.close(&err)
	n := o.net
	req := lab.LiveRequest{OD: o.od, Factor: *factor, Methods: engine.SplitList(*rf.methods), Episodes: *rf.episodes, Curve: lab.LiveCurveFactors}
	res, err := n.Live(ctx, req, func(lab.LiveUpdate) error { return nil })
	if err != nil {
		return err
	}
	if res.Note != "" {
		fmt.Fprintf(stderr, "ontime live: %s.\n", res.Note)
	}
	if *figure == "rates" {
		return printRates(stdout, n.Net.ODString(req.OD), res, rf.format.String())
	}
	fig, err := res.Figures()
	if err != nil {
		return err
	}
	rows, err := fig.CSV(*figure)
	if err != nil {
		return err
	}
	return writeCSV(stdout, rows)
}

// printRates prints each method's on-time rate with its 95% Wilson interval
// (a method that cannot run says why).
func printRates(w io.Writer, od string, res *lab.LiveResult, format string) error {
	ff := func(x float64) string { return fmt.Sprintf("%.4f", x) }
	rows := [][]string{{"method", "on_time", "episodes", "rate", "lo95", "hi95", "note"}}
	for _, r := range res.Rates {
		if r.Err != "" {
			rows = append(rows, []string{r.Method, "", "", "", "", "", r.Err})
			continue
		}
		rows = append(rows, []string{r.Method, fmt.Sprint(r.OnTime), fmt.Sprint(r.N), ff(r.Rate), ff(r.Lo), ff(r.Hi), r.Said()})
	}
	switch format {
	case "csv":
		return writeCSV(w, rows)
	case "json":
		type rate struct {
			Method   string  `json:"method"`
			OnTime   int     `json:"on_time"`
			Episodes int     `json:"episodes"`
			Rate     float64 `json:"rate"`
			Lo95     float64 `json:"lo95"`
			Hi95     float64 `json:"hi95"`
			Note     string  `json:"note,omitempty"`
		}
		var rates []rate
		for _, r := range res.Rates {
			note := r.Said()
			if r.Err != "" {
				note = r.Err
			}
			rates = append(rates, rate{r.Method, r.OnTime, r.N, r.Rate, r.Lo, r.Hi, note})
		}
		out := map[string]any{"od": od, "budget_min": res.Budget, "let_min": res.LETTime, "rates": rates}
		if res.Depart != "" {
			out["depart"] = res.Depart
		}
		return writeJSON(w, out)
	}
	if res.Depart != "" {
		fmt.Fprintf(w, "OD %s leaving at %s, budget %.2f min (time-dependent LET %.2f min at %s)\n\n", od, res.Depart, res.Budget, res.LETTime, res.Depart)
	} else {
		fmt.Fprintf(w, "OD %s, budget %.2f min (LET %.2f min)\n\n", od, res.Budget, res.LETTime)
	}
	writeMarkdown(w, rows)
	return nil
}

// writeMarkdown writes rows as a Markdown table, the first as its header.
func writeMarkdown(w io.Writer, rows [][]string) {
	for i, row := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		if i == 0 {
			fmt.Fprintln(w, "|"+strings.Repeat("---|", len(row)))
		}
	}
}

// odOrFirst is the pair --od names (ORIGIN-DEST), or the network's first
// benchmark pair when it names none.
func odOrFirst(net *engine.Network, od string) (engine.OD, error) {
	if od != "" {
		return net.ParseOD(od)
	}
	if len(net.ODs) == 0 {
		return engine.OD{}, engine.Errorf(engine.EINVALID, "network %s has no benchmark OD pairs: give --od ORIGIN-DEST", net.Name)
	}
	return net.ODs[0], nil
}

func writeCSV(w io.Writer, rows [][]string) error {
	cw := csvsafe.NewWriter(w)
	return cw.WriteAll(rows)
}

package main

import (
	"context"
	"errors"
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
	var nf netFlags
	nf.register(fs)
	od := fs.String("od", "", "OD pair ORIGIN-DEST (default: the network's first benchmark pair)")
	factor := fs.Float64("factor", 1.05, "budget factor (× the OD pair's LET time)")
	methods := fs.String("methods", "let,dot", "comma-separated methods: "+methodNames())
	episodes := fs.Int("episodes", lab.PoolSize, "episodes, from test pool 0 onwards")
	figure := fs.String("figure", "rates", "what to print: rates, or a figure's data: "+strings.Join(lab.FigureNames, ", "))
	format := fs.String("format", "md", "output format: md (rates only) or csv")
	models := fs.String("models", "", "directory of trained models (default: as bench)")
	var prof profileFlags
	prof.register(fs)
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() > 0 {
		return engine.Errorf(engine.EINVALID, "live takes no arguments, got %q", fs.Args())
	}
	if *format != "md" && *format != "csv" {
		return engine.Errorf(engine.EINVALID, "--format %q: use md or csv", *format)
	}
	if *figure != "rates" && !slices.Contains(lab.FigureNames, *figure) {
		return engine.Errorf(engine.EINVALID, "--figure %q: use rates, %s", *figure, engine.JoinOr(lab.FigureNames))
	}
	if *figure != "rates" && *format != "csv" {
		return engine.Errorf(engine.EINVALID, "--figure %s prints the figure's data: add --format csv", *figure)
	}
	stopProfile, err := prof.start()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopProfile()) }()
	l, n, err := stateLab(ctx, &nf, getenv, lab.Options{ModelsDir: *models}, stderr)
	if err != nil {
		return err
	}
	defer l.Close()
	req := lab.LiveRequest{Factor: *factor, Methods: engine.SplitList(*methods), Episodes: *episodes, Curve: lab.LiveCurveFactors}
	if req.OD, err = odOrFirst(n.Net, *od); err != nil {
		return err
	}
	res, err := n.Live(ctx, req, func(lab.LiveUpdate) error { return nil })
	if err != nil {
		return err
	}
	if res.Note != "" {
		fmt.Fprintf(stderr, "ontime live: %s.\n", res.Note)
	}
	if *figure == "rates" {
		return printRates(stdout, n.Net.ODString(req.OD), res, *format)
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
	if format == "csv" {
		return writeCSV(w, rows)
	}
	fmt.Fprintf(w, "OD %s, budget %.2f min (LET %.2f min)\n\n", od, res.Budget, res.LETTime)
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

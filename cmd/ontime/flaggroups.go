package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
)

// Flag groups that several verbs share, each declared once (the import
// settings' group is netfile's table, read in netadd.go).

// formatFlag is a verb's --format, one of the output formats it prints:
// every verb that prints a table prints md, csv and json.
type formatFlag struct {
	value   *string
	choices []string
}

func registerFormat(fs *flag.FlagSet, help string, choices ...string) formatFlag {
	return formatFlag{fs.String("format", choices[0], "output format: "+strings.Join(choices, ", ")+help), choices}
}

// check refuses a format the verb does not print.
func (f formatFlag) check() error {
	if !slices.Contains(f.choices, *f.value) {
		return engine.Errorf(engine.EINVALID, "--format %q: use %s", engine.Excerpt(*f.value), engine.JoinOr(f.choices))
	}
	return nil
}

func (f formatFlag) String() string { return *f.value }

// runFlags are the flags of a verb that runs methods on one OD pair of a
// network (live, plan): the network, the pair, the methods, the days, the
// models' directory, the output format and profiling.
type runFlags struct {
	nf       netFlags
	od       *string
	methods  *string
	episodes *int
	models   *string
	format   formatFlag
	prof     profileFlags
}

func (rf *runFlags) register(fs *flag.FlagSet, methods, episodesHelp, formatHelp string) {
	rf.nf.register(fs)
	rf.od = fs.String("od", "", "OD pair ORIGIN-DEST (default: the network's first benchmark pair)")
	rf.methods = fs.String("methods", methods, "comma-separated methods: "+methodNames())
	rf.episodes = fs.Int("episodes", lab.PoolSize, episodesHelp)
	rf.models = fs.String("models", "", "directory of trained models (default: as bench)")
	rf.format = registerFormat(fs, formatHelp, "md", "csv", "json")
	rf.prof.register(fs)
}

// opened is what a run verb works on once its flags are read.
type opened struct {
	lab *lab.Lab
	net *lab.Net
	od  engine.OD
	// close ends the profile and closes the lab; its error joins the verb's.
	close func(*error)
}

// open parses args (flags only), checks the format, starts the profile,
// opens the network in the state directory and finds the pair; check runs
// the verb's own checks after parsing, before any work. After -h it
// returns nil and no error: the help was printed, nothing is to be done.
func (rf *runFlags) open(ctx context.Context, fs *flag.FlagSet, args []string, getenv func(string) string, stderr io.Writer, check func() error) (*opened, error) {
	if err := fs.Parse(args); err != nil {
		return nil, usageErr(err)
	}
	if fs.NArg() > 0 {
		return nil, engine.Errorf(engine.EINVALID, "%s takes no arguments, got %q", fs.Name(), fs.Args())
	}
	if err := rf.format.check(); err != nil {
		return nil, err
	}
	if err := check(); err != nil {
		return nil, err
	}
	stopProfile, err := rf.prof.start()
	if err != nil {
		return nil, err
	}
	l, n, err := stateLab(ctx, &rf.nf, getenv, lab.Options{ModelsDir: *rf.models}, stderr)
	if err != nil {
		return nil, errors.Join(err, stopProfile())
	}
	o := &opened{lab: l, net: n, close: func(err *error) { l.Close(); *err = errors.Join(*err, stopProfile()) }}
	if o.od, err = odOrFirst(n.Net, *rf.od); err != nil {
		o.close(&err)
		return nil, err
	}
	return o, nil
}

// writeJSON prints v as indented JSON (--format json).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeTable prints a listing's rows under header as --format asks: md,
// csv, or json (objects keyed by the header, values as they are; nil, a
// value not known, is an empty cell and null).
func writeTable(w io.Writer, format string, header []string, rows [][]any) error {
	if format == "json" {
		out := make([]map[string]any, 0, len(rows))
		for _, r := range rows {
			o := map[string]any{}
			for i, h := range header {
				o[h] = r[i]
			}
			out = append(out, o)
		}
		return writeJSON(w, out)
	}
	text := [][]string{header}
	for _, r := range rows {
		row := make([]string, len(r))
		for i, v := range r {
			if v != nil { // unknown: an empty cell
				row[i] = fmt.Sprint(v)
			}
		}
		text = append(text, row)
	}
	if format == "csv" {
		return writeCSV(w, text)
	}
	writeMarkdown(w, text)
	return nil
}

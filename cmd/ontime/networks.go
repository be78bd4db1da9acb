package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ontime-routing/ontime/cmd/ontime/internal/fetch"
	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/internal/atomicfile"
)

// networksVerbs are the networks group's subcommands.
var networksVerbs = []string{"list", "show", "export", "add", "fit", "rm", "rename", "fetch"}

func runNetworks(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	usage := fmt.Sprintf("usage: ontime networks %s [flags]\nRun \"ontime networks VERB -h\" for a verb's flags.\n", strings.Join(networksVerbs, "|"))
	if done, err := groupUsage(args, usage, stdout, stderr); done {
		return err
	}
	fs := flag.NewFlagSet("networks "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	switch args[0] {
	case "add":
		return runNetworksAdd(ctx, fs, args[1:], getenv, stdout, stderr)
	case "fit":
		return runNetworksFit(ctx, fs, args[1:], getenv, stdout, stderr)
	case "rm", "rename":
		return runNetworksStored(ctx, args[0], fs, args[1:], getenv, stdout)
	case "list":
		data := fs.String("data", "", "benchmark data directory (default $ONTIME_DATA)")
		state := registerState(fs)
		format := registerFormat(fs, " (text: a line or two a network; md, csv or json: the table)", "text", "md", "csv", "json")
		if err := fs.Parse(args[1:]); err != nil {
			return usageErr(err)
		}
		if err := format.check(); err != nil {
			return err
		}
		dir := orEnv(*data, getenv, "ONTIME_DATA")
		var rows [][]any
		for _, name := range builtin.Names {
			state, row := "ready", []any{name, "built-in", builtin.Describe[name], "", nil, nil}
			if net, err := builtin.Load(name, dir); err != nil {
				state = "missing data: " + engine.ErrorMessage(err)
			} else {
				row[4], row[5] = len(net.Nodes), len(net.Links)
			}
			row[3] = state
			rows = append(rows, row)
			if format.String() == "text" {
				fmt.Fprintf(stdout, "%-10s %s\n           %s\n", name, builtin.Describe[name], state)
			}
		}
		l := newLab(getenv, *state, lab.Options{})
		defer l.Close()
		for _, n := range l.Networks() {
			if n.Stored {
				rows = append(rows, []any{n.Name, "stored", "", "ready", n.Nodes, n.Links})
				if format.String() == "text" {
					fmt.Fprintf(stdout, "%-10s stored: %d nodes, %d links\n", n.Name, n.Nodes, n.Links)
				}
			}
		}
		if format.String() == "text" {
			return nil
		}
		return writeTable(stdout, format.String(), []string{"name", "kind", "description", "state", "nodes", "links"}, rows)
	case "show":
		var nf netFlags
		nf.register(fs)
		if err := fs.Parse(args[1:]); err != nil {
			return usageErr(err)
		}
		net, model, err := nf.load(fs, getenv)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s\n%d nodes, %d links, coordinates %s, step cap %d\n", net.Name, net.Description,
			len(net.Nodes), len(net.Links), orDash(string(net.Coords)), net.StepCap)
		st := model.Stats
		fmt.Fprintf(stdout, "correlation %s: mean |ρ| %.4f, max |ρ| %.4f, rank %d, clipped eigenvalues %d\n",
			model.Spec.Model, st.MeanAbs, st.MaxAbs, st.Rank, st.Clipped)
		if net.Timed() {
			fmt.Fprintln(stdout, net.Clock.Summary())
			fmt.Fprintln(stdout, fifoLine(net))
			for _, od := range net.ODs {
				t := net.Clock.Depart
				path, arrive := net.EarliestArrival(od.Origin, od.Destination, t, net.MeanTimeAt())
				fmt.Fprintf(stdout, "OD %s leaving at %s: time-dependent LET %.4f min, %d links: %s\n", net.ODString(od), engine.FormatClock(t), arrive-t, len(path), strings.Join(net.PathNodes(path), "-"))
			}
		}
		for _, od := range net.ODs {
			tree := net.LET(od.Destination)
			path := tree.Path(od.Origin, net)
			static := ""
			if net.Timed() {
				static = " (the static law, without the day's factors)"
			}
			fmt.Fprintf(stdout, "OD %s: LET %.4f min%s, %d links: %s\n", net.ODString(od), tree.Time[od.Origin], static, len(path), strings.Join(net.PathNodes(path), "-"))
		}
		for _, s := range net.Sources {
			fmt.Fprintf(stdout, "source %s sha256 %s\n", s.Path, s.SHA256)
		}
		if nf.stored() {
			l := newLab(getenv, nf.state, lab.Options{})
			defer l.Close()
			if rep, _, err := l.StoredReport(ctx, nf.network); err == nil {
				for _, n := range rep.Notes {
					fmt.Fprintln(stdout, "import:", n)
				}
			}
		}
		return nil
	case "export":
		var nf netFlags
		nf.register(fs)
		out := fs.String("out", "", "write here: a file (one-file formats; default stdout), a .zip, or a directory (several files)")
		format := fs.String("format", "json", "json (ontime's, keeps everything), gmns (node.csv, link.csv) or tntp (_net.tntp, _node.tntp)")
		if err := fs.Parse(args[1:]); err != nil {
			return usageErr(err)
		}
		x, err := netfile.ExportByName(*format)
		if err != nil {
			return err
		}
		net, _, err := nf.load(fs, getenv)
		if err != nil {
			return err
		}
		files, err := x.Write(net)
		if err != nil {
			return err
		}
		return writeExport(*out, net.Name+"-"+x.Name, files, stdout)
	case "fetch":
		dest := fs.String("dest", "", "directory to fetch into (default $ONTIME_DATA, else ./data)")
		mirror := fs.String("mirror", "", "fetch from this base URL instead of the public hosts (same paths)")
		force := fs.Bool("force", false, "replace files whose content differs from the pinned sources")
		timeout := fs.Duration("timeout", 2*time.Minute, "give up after this long")
		if err := fs.Parse(args[1:]); err != nil {
			return usageErr(err)
		}
		d := orEnv(*dest, getenv, "ONTIME_DATA")
		if d == "" {
			d = "data"
		}
		ctx, cancel := context.WithTimeout(ctx, *timeout)
		defer cancel()
		fmt.Fprintf(stderr, "fetching %d benchmark files into %s\n", len(builtin.DataFiles), d)
		err := fetch.Fetch(ctx, builtin.DataFiles, fetch.Options{Dest: d, Mirror: *mirror, Force: *force,
			Client: &http.Client{Timeout: *timeout}, Progress: stderr})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "benchmark data ready in %s (use --data %s or ONTIME_DATA=%s)\n", d, d, d)
		return nil
	}
	return fmt.Errorf("unknown networks command %q (list, show, export, add, rm, rename, fetch): %w", args[0], errUsage)
}

func orEnv(v string, getenv func(string) string, key string) string {
	if v != "" {
		return v
	}
	return getenv(key)
}

func orDash(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// writeExport writes an export's files: one to stdout or a file, several
// into a .zip or a directory (created; files replaced atomically).
func writeExport(out, folder string, files []netfile.File, stdout io.Writer) error {
	switch {
	case strings.HasSuffix(strings.ToLower(out), ".zip"):
		return atomicfile.Write(out, func(w io.Writer) error { return netfile.Zip(w, folder, files) })
	case len(files) == 1 && out == "":
		_, err := stdout.Write(files[0].Data)
		return err
	case len(files) == 1:
		if st, err := os.Stat(out); err != nil || !st.IsDir() {
			return atomicfile.Write(out, func(w io.Writer) error { _, err := w.Write(files[0].Data); return err })
		}
	case out == "":
		return fmt.Errorf("this format has %d files: give --out DIR or --out FILE.zip: %w", len(files), errUsage)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		path := filepath.Join(out, f.Name)
		if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(f.Data); return err }); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "wrote", path)
	}
	return nil
}

// fifoLine says whether the law over the day is FIFO in expectation, and
// where it is not: the links and hours.
func fifoLine(net *engine.Network) string {
	means := make([]float64, len(net.Links))
	for e, l := range net.Links {
		means[e] = l.Mean
	}
	br := net.Clock.FIFOBreaks(means)
	if len(br) == 0 {
		return "FIFO in expectation: holds on every link at every hour (entering later never leaves earlier on average)"
	}
	var parts []string
	for i, b := range br {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(br)-10))
			break
		}
		l := net.Links[b.Link]
		parts = append(parts, fmt.Sprintf("%s→%s %s–%s (%.2f min earlier)", net.Nodes[l.From].ID, net.Nodes[l.To].ID, engine.FormatClock(b.From), engine.FormatClock(b.To), b.Gain))
	}
	return fmt.Sprintf("FIFO in expectation: broken on %d link-steps: %s", len(br), strings.Join(parts, "; "))
}

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/worker"
)

// runNetworksAdd imports files into the state directory's store:
// `ontime networks add FILE... [--name NAME] [settings]`. On bad input it
// prints every problem (file, line, field) and stores nothing.
func runNetworksAdd(ctx context.Context, fs *flag.FlagSet, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	name := fs.String("name", "", "name to store it under (default: from the file name)")
	// The import settings are netfile's table: the form reads the same rows.
	given := map[string]*string{}
	for _, st := range netfile.ImportSettings {
		if st.Switch {
			given[st.Name] = new(string)
			fs.Var(switchFlag{given[st.Name]}, st.Name, st.Help)
			continue
		}
		given[st.Name] = fs.String(st.Name, "", st.Help)
	}
	observations := fs.String("observations", "", "a CSV of observed link times (link or from,to; observation; time[; time_of_day]): each link's law is fitted to them (law fitted), in a child process bounded by --fit-memory and --fit-time")
	limits := fitLimitFlags(fs)
	dry := fs.Bool("dry-run", false, "check and report, store nothing")
	state := registerState(fs)
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return usageErr(err)
	}
	if len(files) == 0 {
		return fmt.Errorf("give the network's files: ontime networks add FILE... (a TNTP _net.tntp finds its _node/_flow siblings): %w", errUsage)
	}
	var o netfile.ImportOptions
	if err := netfile.ApplySettings(&o, func(st netfile.ImportSetting) string { return *given[st.Name] },
		func(st netfile.ImportSetting) string { return "--" + st.Name }); err != nil {
		return err
	}
	o.Name = *name
	read, err := netfile.ReadFiles(files...)
	if err != nil {
		return err
	}
	var bounded *worker.Command
	if *observations != "" {
		// Streamed from disk by a bounded child process, as an upload's
		// are read: a header that does not say it holds observations is
		// reported with the rows' problems.
		read = append(read, observationsFile(*observations))
		bounded = limits.command()
	}
	l := newLab(getenv, *state, lab.Options{CacheDir: learnerCache("", getenv), Worker: bounded})
	defer l.Close()
	imp, err := l.ReadImportIn(ctx, read, o)
	if imp != nil && imp.Report != nil {
		for _, n := range imp.Report.Notes {
			fmt.Fprintln(stderr, "note:", n)
		}
	}
	if err != nil {
		return err
	}
	net := imp.Net
	fmt.Fprintf(stdout, "%s: %d nodes, %d links, correlation %s, step cap %d, OD pairs %s\n", imp.Name, len(net.Nodes), len(net.Links),
		net.Correlation.Model, net.StepCap, odList(net))
	if *dry {
		fmt.Fprintln(stdout, "checked; nothing stored (--dry-run)")
		return nil
	}
	if err := l.Save(ctx, imp, imp.Name); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "stored as %q in %s: use --network %s\n", imp.Name, stateDir(*state, getenv), imp.Name)
	if lab.SlowModel(net) {
		// Built once here, so that every later run reads it in a second.
		fmt.Fprintf(stderr, "building its %s link-time model once (%d links; later runs read it from the cache)…\n", net.Correlation.Model, len(net.Links))
		t0 := time.Now()
		if _, err := l.BuildModel(net); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "built in %.1fs\n", time.Since(t0).Seconds())
	}
	return nil
}

// observationsFile is an observations file given by path: a child
// process streams it (netfile.File.Path), nothing here reads it whole.
func observationsFile(path string) netfile.File {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return netfile.File{Name: filepath.Base(path), Path: abs, Observed: true}
}

// runNetworksFit fits observed link times to a stored network and stores
// the result as a new version: `ontime networks fit NAME OBS.csv [--as NEW]`.
func runNetworksFit(ctx context.Context, fs *flag.FlagSet, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	as := fs.String("as", "", "name of the new version (default: NAME-v2, -v3, … the first free)")
	period := fs.String("period", "", "keep the rows whose time_of_day is in HH:MM-HH:MM")
	unit := fs.String("time-unit", "", "unit of the observed times: s, min or h (default min)")
	state := registerState(fs)
	data := fs.String("data", "", "benchmark data directory, for fitting a built-in network such as sfn (default $ONTIME_DATA)")
	limits := fitLimitFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) != 2 {
		return fmt.Errorf("usage: ontime networks fit NAME OBSERVATIONS.csv [--as NEW] [--period HH:MM-HH:MM] [--time-unit s|min|h] [--data DIR]: %w", errUsage)
	}
	l := newLab(getenv, *state, lab.Options{CacheDir: learnerCache("", getenv), DataDir: orEnv(*data, getenv, "ONTIME_DATA"),
		Worker: limits.command()})
	defer l.Close()
	// The network first: a name that is wrong is said before any file is
	// read.
	if _, err := l.LoadNetwork(ctx, pos[0]); err != nil {
		return err
	}
	obs := observationsFile(pos[1])
	name := *as
	if name == "" {
		name = l.NextVersion(ctx, pos[0])
	}
	imp, err := l.FitStored(ctx, pos[0], obs, lab.FitOptions{Period: *period, TimeUnit: *unit}, name)
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, "note:", imp.Report.Fit.Summary())
	fmt.Fprintf(stdout, "stored as %q (%s is kept as it was): use --network %s\n", name, pos[0], name)
	return nil
}

// switchFlag is a setting that is on or off: given alone (--skip-bad-rows)
// it is "true"; its text goes to the settings' parser like any other.
type switchFlag struct{ v *string }

func (f switchFlag) String() string {
	if f.v == nil || *f.v == "" {
		return "false"
	}
	return *f.v
}
func (f switchFlag) Set(s string) error { *f.v = s; return nil }
func (f switchFlag) IsBoolFlag() bool   { return true }

func odList(net *engine.Network) string {
	s := make([]string, len(net.ODs))
	for i, od := range net.ODs {
		s[i] = net.ODString(od)
	}
	return strings.Join(s, ", ")
}

// runNetworksStored handles rm and rename of stored networks.
func runNetworksStored(ctx context.Context, cmd string, fs *flag.FlagSet, args []string, getenv func(string) string, stdout io.Writer) error {
	state := registerState(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageErr(err)
	}
	l := newLab(getenv, *state, lab.Options{})
	defer l.Close()
	switch {
	case cmd == "rm" && len(pos) == 1:
		if err := l.DeleteNetwork(ctx, pos[0]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "deleted %s and its benchmark results\n", pos[0])
		return nil
	case cmd == "rename" && len(pos) == 2:
		if err := l.RenameNetwork(ctx, pos[0], pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "renamed %s to %s\n", pos[0], pos[1])
		return nil
	}
	return fmt.Errorf("usage: ontime networks rm NAME | rename OLD NEW [--state DIR]: %w", errUsage)
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/internal/atomicfile"
)

func runBench(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	started := time.Now() // the report's run time covers the model's build too
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var nf netFlags
	nf.register(fs)
	methods := fs.String("methods", policy.Methods[0].Name, "comma-separated methods: "+methodNames()) // the registry's first: the baseline
	focus := fs.String("focus", "", "method compared against every other in the Holm family (default: the first)")
	budgets := fs.String("budgets", "", "comma-separated budget factors (× each OD pair's LET time; default: the network's, as the Benchmarks page, the paper's "+lab.BenchSpec{Budgets: bench.Defaults.Budgets}.BudgetText()+" unless it states its own)")
	pools := fs.Int("pools", bench.Defaults.Pools, "number of test pools (1: means only; intervals and tests need 2 or more)")
	on := fs.String("on", "test", "pools to evaluate on: test, or validation (to choose settings without seeing a test result)")
	poolSize := fs.Int("pool-size", bench.Defaults.PoolSize, "joint realizations per pool")
	ods := fs.String("ods", "", "comma-separated OD pairs ORIGIN-DEST (default: the network's benchmark pairs)")
	seed := fs.Uint64("seed", 0, "benchmark instance: shifts every pool seed (0 is the published benchmark)")
	format := fs.String("format", "md", "output format: md, json or csv")
	sampled := fs.Bool("sampled", false, "evaluate learned policies by sampling instead of argmax")
	history := fs.Bool("history-control", false, "run the history-control experiment (condrule shown realized, no or shuffled history, on correlated and independent links)")
	workers := fs.Int("workers", 0, "parallel workers (default: all cores)")
	dotDelta := fs.Float64("dot-delta", 0, "DOT's grid step in minutes (default: a thousandth of the largest budget asked, halved where splitting times needs it: see --dot-rounding)")
	dotRounding := fs.String("dot-rounding", "", "how DOT bins a link's law on its grid: "+policy.DOTRoundingHelp()+" (default: up where it adds at most 2% of a pair's LET time along its LET path, else mean)")
	rolloutBase := fs.String("rollout-base", "", "rollout's base policy: "+engine.JoinOr(policy.RolloutBases())+" (default: the best of them on the validation pool)")
	rolloutZ := fs.Float64("rollout-z", -1, "evidence rollout needs to leave its base's link (McNemar's z on its draws; 0: plain argmax, ties to the base; default: the base's, dot 1, cdot and cgr 2)")
	rolloutSamples := fs.Int("rollout-samples", 0, "rollout's draws per decision (default: dot 1000, cgr 48, cdot 16)")
	cacheDir := fs.String("cache", "", "directory for trained learners (default $ONTIME_CACHE, else the user cache directory)")
	noCache := fs.Bool("no-cache", false, "train learners afresh and store nothing")
	models := fs.String("models", "", "directory of trained models (default: a stored network's in the state directory's models/, a built-in's in models/ beside or above the binary or the working directory, else the models built into the binary)")
	device := fs.String("device", "cpu", "where ONNX policies run: cpu or cuda (falls back to cpu with one log line)")
	out := fs.String("out", "", "write the report to this file instead of stdout")
	save := fs.String("save", "", "also write the full report as JSON to this file (scripts/results.sh publishes the dashboard's reports so)")
	quiet := fs.Bool("quiet", false, "no progress line on stderr")
	depart := fs.String("depart", "", "HH:MM: on a network whose law changes over the day, leave then (default: the network's departure); budgets are factors of each pair's time-dependent LET time then")
	arriveBy := fs.String("arrive-by", "", "HH:MM: on a network whose law changes over the day, arrive by then: one budget, the deadline less the departure")
	var prof profileFlags
	prof.register(fs)
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() > 0 {
		return engine.Errorf(engine.EINVALID, "bench takes no arguments, got %q", fs.Args())
	}
	stopProfile, err := prof.start()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopProfile()) }()
	net, model, err := nf.load(fs, getenv)
	if err != nil {
		return err
	}
	if *models == "" {
		*models = nf.models
	}
	cfg := bench.Config{Net: net, Model: model, Methods: engine.SplitList(*methods), Focus: *focus,
		Pools: *pools, PoolSize: *poolSize, Purpose: *on, Seed: *seed, Sampled: *sampled, Workers: *workers,
		DOTDelta: *dotDelta, DOTRounding: *dotRounding, RolloutBase: *rolloutBase, RolloutSamples: *rolloutSamples, RolloutZ: optionalZ(*rolloutZ), Device: *device, Models: *models, Logf: func(f string, a ...any) { fmt.Fprintf(stderr, f+"\n", a...) },
		Version: version, Commit: buildCommit(), Started: started}
	if *device != "cpu" && *device != "cuda" {
		return engine.Errorf(engine.EINVALID, "--device %q: use cpu or cuda", *device)
	}
	if !*noCache {
		cfg.CacheDir = learnerCache(*cacheDir, getenv)
	}
	if !*quiet {
		cfg.Progress = stderr
		if f, ok := stderr.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				cfg.ProgressTTY = true
			}
		}
	}
	cfg.Budgets = net.BudgetFactors()
	if *budgets != "" {
		if cfg.Budgets, err = parseBudgets(*budgets); err != nil {
			return err
		}
	}
	if cfg.Depart, err = optionalClock("--depart", *depart); err != nil {
		return err
	}
	if cfg.ArriveBy, err = optionalClock("--arrive-by", *arriveBy); err != nil {
		return err
	}
	cfg.ODs = net.ODs
	if *ods != "" {
		cfg.ODs = nil
		for _, s := range engine.SplitList(*ods) {
			od, err := net.ParseOD(s)
			if err != nil {
				return err
			}
			cfg.ODs = append(cfg.ODs, od)
		}
	}
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	if *history {
		rep, err := bench.HistoryControl(ctx, cfg)
		if err != nil {
			return err
		}
		return rep.Write(w, *format)
	}
	var rep *bench.Report
	if nf.stored() && jobShaped(fs) {
		rep, err = benchAsJob(ctx, &nf, lab.BenchSpec{Methods: cfg.Methods, Budgets: cfg.Budgets, Pools: cfg.Pools, PoolSize: cfg.PoolSize}, getenv, stderr, *quiet)
	} else {
		rep, err = bench.Run(ctx, cfg)
	}
	if err != nil {
		return err
	}
	if *save != "" {
		if err := saveReport(*save, rep); err != nil {
			return err
		}
	}
	return rep.Write(w, *format)
}

// saveReport writes the report's JSON through a temporary file, so a reader
// never sees half of it and an interrupted run keeps the previous one.
func saveReport(path string, rep *bench.Report) error {
	return atomicfile.Write(path, func(w io.Writer) error { return rep.Write(w, "json") })
}

func parseBudgets(s string) ([]float64, error) {
	var out []float64
	for _, f := range engine.SplitList(s) {
		v, err := engine.ParseNumber(f)
		if err != nil || !(v > 0 && v <= bench.Limits.MaxBudget) {
			return nil, engine.Errorf(engine.EINVALID, "--budgets: %q is not a positive factor (budgets are factors of the LET time, e.g. 0.95,1.00,1.05)", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func methodNames() string {
	names := make([]string, len(policy.Methods))
	for i, m := range policy.Methods {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

func usageErr(err error) error {
	if err == flag.ErrHelp {
		return nil
	}
	return fmt.Errorf("%v: %w", err, errUsage)
}

// learnerCache picks where trained learners are kept.
func learnerCache(flagValue string, getenv func(string) string) string {
	if flagValue != "" {
		return flagValue
	}
	if d := getenv("ONTIME_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "ontime")
	}
	return ""
}

// optionalZ is --rollout-z as bench reads it: nil (the base's) when negative.
func optionalZ(z float64) *float64 {
	if z < 0 {
		return nil
	}
	return &z
}

// jobFlags are the bench flags a job of the jobs service states (a
// dashboard benchmark: methods, budgets, pools, on the network's pairs);
// any other flag asks for a run the Benchmarks page cannot, which runs
// directly.
var jobFlags = map[string]bool{"network": true, "state": true, "data": true, "methods": true, "budgets": true, "pools": true,
	"pool-size": true, "format": true, "out": true, "save": true, "quiet": true}

// jobShaped reports whether every flag given is one a job states.
func jobShaped(fs *flag.FlagSet) bool {
	ok := true
	fs.Visit(func(f *flag.Flag) { ok = ok && jobFlags[f.Name] })
	return ok
}

// benchAsJob runs a stored network's benchmark as a job of the state
// directory's jobs service (see asjob.go) and returns its report.
func benchAsJob(ctx context.Context, nf *netFlags, spec lab.BenchSpec, getenv func(string) string, stderr io.Writer, quiet bool) (*bench.Report, error) {
	l, n, err := stateLab(ctx, nf, getenv, lab.Options{Version: version, Commit: buildCommit()}, stderr)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	st, err := l.StartBench(n, spec, "cli")
	if err != nil {
		return nil, err
	}
	if _, err := awaitJob(ctx, l, st.Status, stderr, quiet); err != nil {
		return nil, err
	}
	_, rep, _, err := l.Job(st.ID)
	if err != nil {
		return nil, err
	}
	if rep == nil {
		return nil, fmt.Errorf("job %s finished without a report", st.ID)
	}
	return rep, nil
}

// optionalClock reads a flag's HH:MM ("" : not given).
func optionalClock(flag, s string) (*float64, error) {
	if s == "" {
		return nil, nil
	}
	t, err := engine.ParseClock(s)
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "%s: %s", flag, engine.ErrorMessage(err))
	}
	return &t, nil
}

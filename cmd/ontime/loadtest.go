package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ontime-routing/ontime/cmd/ontime/internal/loadtest"
	"github.com/ontime-routing/ontime/server"
)

// runLoadtest drives a dashboard with concurrent browser-like sessions:
// `ontime loadtest --sessions N [--addr http://HOST:PORT]`. Without an
// address it starts its own dashboard in this process (no bound per client,
// tables solved first) and also reports its goroutines and heap before the
// sessions and after they left.
func runLoadtest(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sessions := fs.Int("sessions", 200, "concurrent sessions")
	comparisons := fs.Int("comparisons", 3, "comparisons each session opens, one after another")
	addr := fs.String("addr", "", "dashboard to drive, http://HOST:PORT (default: start one here)")
	network := fs.String("network", "sfn", "network of the comparisons")
	methods := fs.String("methods", "let,dot,cdot,gpght", "methods of each comparison")
	factor := fs.Float64("factor", 1, "budget factor")
	data := fs.String("data", "", "benchmark data directory for the own dashboard (default $ONTIME_DATA)")
	delay := fs.Duration("step-delay", server.DefaultStepDelay, "the own dashboard's pause between animated steps (its default is the dashboard's; 0 streams as fast as it computes)")
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if *sessions < 1 || *comparisons < 1 {
		return fmt.Errorf("--sessions and --comparisons must be at least 1: %w", errUsage)
	}
	cfg := loadtest.Config{Base: strings.TrimRight(*addr, "/"), Sessions: *sessions, Comparisons: *comparisons, Network: *network,
		Methods: strings.Split(*methods, ","), Factor: *factor}
	fmt.Fprintf(stderr, "loadtest: %d sessions × %d comparisons of %s on %s against %s\n", cfg.Sessions, cfg.Comparisons, *methods, *network, orOwn(cfg.Base))
	var rep *loadtest.Report
	var err error
	if *addr == "" {
		var srv *loadtest.Server
		rep, srv, err = loadtest.RunOwn(ctx, cfg, loadtest.Own{DataDir: orEnv(*data, getenv, "ONTIME_DATA"), ORTLib: getenv("ONTIME_ORT_LIB"),
			Version: version, StepDelay: *delay})
		if err != nil {
			return err
		}
		rep.Write(stdout)
		srv.Write(stdout)
	} else {
		if rep, err = loadtest.Run(ctx, cfg); err != nil {
			return err
		}
		rep.Write(stdout)
	}
	if rep.Errors > 0 {
		return fmt.Errorf("%d errors", rep.Errors)
	}
	return nil
}

func orOwn(base string) string {
	if base == "" {
		return "its own dashboard"
	}
	return base
}

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/internal/loadtest"
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
	delay := fs.Duration("step-delay", 0, "the own dashboard's pause between animated steps")
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if *sessions < 1 || *comparisons < 1 {
		return fmt.Errorf("--sessions and --comparisons must be at least 1: %w", errUsage)
	}
	cfg := loadtest.Config{Base: strings.TrimRight(*addr, "/"), Sessions: *sessions, Comparisons: *comparisons, Network: *network,
		Methods: strings.Split(*methods, ","), Factor: *factor}
	var before runtime.MemStats
	var goroutines int
	if *addr == "" {
		state, err := os.MkdirTemp("", "ontime-loadtest-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(state)
		l := lab.New(lab.Options{DataDir: orEnv(*data, getenv, "ONTIME_DATA"), StateDir: state, ORTLib: getenv("ONTIME_ORT_LIB")})
		defer l.Close()
		n, err := l.Open(*network)
		if err != nil {
			return err
		}
		for _, m := range cfg.Methods { // solve tables and load models before measuring
			if _, err := n.Policy(m); err != nil {
				return fmt.Errorf("method %s: %w", m, err)
			}
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: server.NewServer(server.Deps{Lab: l, Version: version, Assets: assets.FS, StepDelay: *delay,
			MaxStreams: -1, MaxStreamsPerClient: -1})}
		go srv.Serve(ln)
		defer srv.Close()
		cfg.Base = "http://" + ln.Addr().String()
		runtime.GC()
		runtime.ReadMemStats(&before)
		goroutines = runtime.NumGoroutine()
	}
	fmt.Fprintf(stderr, "loadtest: %d sessions × %d comparisons of %s on %s against %s\n", cfg.Sessions, cfg.Comparisons, *methods, *network, cfg.Base)
	rep, err := loadtest.Run(ctx, cfg)
	if err != nil {
		return err
	}
	rep.Write(stdout)
	if *addr == "" {
		// Streams end with their connections; give the server a moment to
		// see every close before counting what is left.
		var after runtime.MemStats
		var g int
		for range 50 {
			time.Sleep(100 * time.Millisecond)
			if g = runtime.NumGoroutine(); g <= goroutines {
				break
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		fmt.Fprintf(stdout, "server: goroutines %d before, %d after; heap %.1f MB before, %.1f MB after\n",
			goroutines, g, float64(before.HeapAlloc)/(1<<20), float64(after.HeapAlloc)/(1<<20))
	}
	if rep.Errors > 0 {
		return fmt.Errorf("%d errors", rep.Errors)
	}
	return nil
}

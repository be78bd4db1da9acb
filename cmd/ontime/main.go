// Command ontime is the SOTA routing engine and its dashboard. main only
// calls run, which tests call too.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/worker"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ontime:", err)
		if engine.ErrorCode(err) == engine.EINVALID || err == errUsage {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// command is one verb of the binary: what usage says of it, what runs it,
// and, for a group, its subcommands (each answers -h; main_test walks them).
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error
	verbs         []string
}

func commands() []command {
	return []command{
		{"serve", "start the dashboard (http://127.0.0.1:8080/)", runServe, nil},
		{"bench", "evaluate routing methods on common sample pools (paired statistics)", runBench, nil},
		{"live", "play the Live page's run: rates with intervals, or a figure's data as CSV", runLive, nil},
		{"plan", "how much time to allow: each method's least budget for a target on-time rate", runPlan, nil},
		{"train", "train a GPG-HT policy for a network (PyTorch), export it to ONNX", runTrain, nil},
		{"networks", "list, show, export, fetch, add, remove or rename networks", runNetworks, networksVerbs},
		{"jobs", "list or show the dashboard's background jobs, cancel or restart one", runJobs, jobsVerbs},
		{"sweep", "plan, run and merge a grid of benchmarks as tasks (Slurm, Kubernetes)", runSweep, sweepVerbs},
		{"loadtest", "drive a dashboard with concurrent browser-like sessions", runLoadtest, nil},
		{"perf", "measure this machine and write the performance report", runPerf, nil},
		{"verify", "check the invariants any correct implementation satisfies, on any network", runVerify, nil},
		{"image", "build the container image for a cluster (no daemon): binary, models, ONNX Runtime", runImage, nil},
		{"version", "print the version and commit", runVersion, nil},
	}
}

// run dispatches a subcommand.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr)
		return errUsage
	}
	switch args[0] {
	case "worker":
		// Internal: the dashboard's child process for work it must be able
		// to kill (engine/worker); not in the usage.
		if len(args) != 2 {
			return fmt.Errorf("worker: give one kind: %w", errUsage)
		}
		return worker.Serve(args[1], os.Stdin, stdout)
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return nil
	case "--version", "-version":
		return runVersion(ctx, nil, getenv, stdout, stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], getenv, stdout, stderr)
		}
	}
	usage(stderr)
	return fmt.Errorf("unknown command %q: %w", args[0], errUsage)
}

func runVersion(_ context.Context, _ []string, _ func(string) string, stdout, _ io.Writer) error {
	fmt.Fprintf(stdout, "ontime %s (commit %s)\n", version, buildCommit())
	return nil
}

// groupUsage answers a command group called without a verb (its usage on
// stderr, a usage error) or asked for help (its usage on stdout, no error);
// done is false when args name a verb.
func groupUsage(args []string, usage string, stdout, stderr io.Writer) (done bool, err error) {
	switch {
	case len(args) == 0:
		fmt.Fprint(stderr, usage)
		return true, errUsage
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help":
		fmt.Fprint(stdout, usage)
		return true, nil
	}
	return false, nil
}

var errUsage = fmt.Errorf("usage error")

func usage(w io.Writer) {
	fmt.Fprint(w, "ontime: stochastic on-time arrival routing\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "ontime COMMAND -h" for a command's flags. Benchmark data is read from
--data or ONTIME_DATA (layout tntp/, segac/; "ontime networks fetch" gets it).
`)
}

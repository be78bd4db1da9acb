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

// run dispatches a subcommand.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr)
		return errUsage
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], getenv, stdout, stderr)
	case "bench":
		return runBench(ctx, args[1:], getenv, stdout, stderr)
	case "train":
		return runTrain(ctx, args[1:], getenv, stdout, stderr)
	case "networks":
		return runNetworks(ctx, args[1:], getenv, stdout, stderr)
	case "jobs":
		return runJobs(ctx, args[1:], getenv, stdout, stderr)
	case "sweep":
		return runSweep(ctx, args[1:], getenv, stdout, stderr)
	case "loadtest":
		return runLoadtest(ctx, args[1:], getenv, stdout, stderr)
	case "perf":
		return runPerf(ctx, args[1:], getenv, stdout, stderr)
	case "verify":
		return runVerify(ctx, args[1:], getenv, stdout, stderr)
	case "version":
		fmt.Fprintf(stdout, "ontime %s (commit %s)\n", version, buildCommit())
		return nil
	case "worker":
		// Internal: the dashboard's child process for work it must be able
		// to kill (engine/worker); not in the usage.
		if len(args) != 2 {
			return fmt.Errorf("worker: give one kind: %w", errUsage)
		}
		return worker.Serve(args[1], os.Stdin, stdout)
	case "help", "-h", "--help":
		usage(stdout)
		return nil
	}
	usage(stderr)
	return fmt.Errorf("unknown command %q: %w", args[0], errUsage)
}

var errUsage = fmt.Errorf("usage error")

func usage(w io.Writer) {
	fmt.Fprint(w, `ontime: stochastic on-time arrival routing

Commands:
  serve      start the dashboard (http://127.0.0.1:8080/)
  bench      evaluate routing methods on common sample pools (paired statistics)
  train      train a GPG-HT policy for a network (PyTorch), export it to ONNX
  networks   list, show, export or fetch networks
  jobs       list or show the dashboard's background jobs, or cancel one
  sweep      plan, run and merge a grid of benchmarks as tasks (Slurm, Kubernetes)
  loadtest   drive a dashboard with concurrent browser-like sessions
  perf       measure this machine and write the performance report
  verify     check the invariants any correct implementation satisfies, on any network
  version    print the version and commit

Run "ontime COMMAND -h" for a command's flags. Benchmark data is read from
--data or ONTIME_DATA (layout tntp/, segac/; "ontime networks fetch" gets it).
`)
}

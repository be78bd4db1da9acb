package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/verify"
	"github.com/ontime-routing/ontime/internal/atomicfile"
)

// runVerify runs the invariant battery: `ontime verify [--network NAME]
// [--generated] [--shared] [--out FILE]`. It exits non-zero when an
// invariant is broken, after writing every result.
func runVerify(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var nf netFlags
	nf.register(fs)
	generated := fs.Bool("generated", false, "the generated adversarial networks (short links, hour units, zero variances, rank-deficient, long trips, one-way, disconnected, a series road)")
	big := fs.Bool("big", false, "with --generated: also the network over the dense models' link limit")
	builtins := fs.Bool("builtin", false, "the built-in networks (the five-node example's closed form; sfn and anaheim with the data)")
	shared := fs.Bool("shared", false, "every TNTP network of the data directory, imported with the defaults")
	clock := fs.Bool("clock", false, "the laws over the day (Rushtown, and its day on independent links): FIFO, the constant day, the clairvoyant bound, dot against let, leaving later, the latest departure")
	all := fs.Bool("all", false, "everything: --generated --big --builtin --shared --rollout --clock")
	pools := fs.Int("pools", 4, "pools per case")
	poolSize := fs.Int("pool-size", 500, "realizations per pool")
	maxODs := fs.Int("max-ods", 3, "OD pairs per case at most")
	rollout := fs.Bool("rollout", false, "also check rollout ≥ its base (slow; networks up to 300 links)")
	workers := fs.Int("workers", 0, "parallel workers (default: all cores)")
	out := fs.String("out", "", "write the Markdown report here (docs/verify.md is the committed one)")
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if *all {
		*generated, *big, *builtins, *shared, *rollout, *clock = true, true, true, true, true, true
	}
	logf := func(f string, a ...any) { fmt.Fprintf(stderr, f+"\n", a...) }
	dataDir := orEnv(nf.data, getenv, "ONTIME_DATA")
	var cases []verify.Case
	networkSet := false
	fs.Visit(func(f *flag.Flag) { networkSet = networkSet || f.Name == "network" })
	if networkSet || fs.NArg() == 1 {
		net, model, err := nf.load(fs, getenv)
		if err != nil {
			return err
		}
		cases = append(cases, verify.Case{Name: net.Name, Kind: "asked", Net: net, Model: model, Note: "named on the command line"})
	} else if fs.NArg() > 0 {
		return engine.Errorf(engine.EINVALID, "verify takes no arguments but --network NAME, got %q", fs.Args())
	}
	if *generated {
		cases = append(cases, verify.Generated(*big)...)
	}
	if *builtins {
		cases = append(cases, verify.BuiltIn(dataDir, logf)...)
	}
	if *clock {
		cases = append(cases, verify.ClockCases(logf)...)
	}
	if *shared {
		if dataDir == "" {
			return engine.Errorf(engine.EINVALID, "--shared needs the data directory (--data or ONTIME_DATA)")
		}
		cases = append(cases, verify.Shared(dataDir, logf)...)
	}
	if len(cases) == 0 {
		return fmt.Errorf("nothing to verify: give --network NAME, --generated, --builtin, --shared, --clock or --all: %w", errUsage)
	}
	t0 := time.Now()
	o := verify.Options{Pools: *pools, PoolSize: *poolSize, MaxODs: *maxODs, Workers: *workers, Rollout: *rollout,
		CacheDir: learnerCache("", getenv), Logf: logf}
	results := verify.Run(ctx, cases, o)
	header := fmt.Sprintf("`ontime verify %s` (commit %s): %d pools × %d realizations a case, budget factors 0.95, 1.00, 1.05, at most %d OD pairs a case; tolerances at Z = %g standard errors; %.0f s on this machine.",
		strings.Join(args, " "), buildCommit(), *pools, *poolSize, *maxODs, verify.Z, time.Since(t0).Seconds())
	var b strings.Builder
	verify.Markdown(&b, results, header)
	if *out != "" {
		if err := atomicfile.WriteFile(*out, []byte(b.String())); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
	} else {
		io.WriteString(stdout, b.String())
	}
	if n := verify.Violations(results); n > 0 {
		fmt.Fprintf(stderr, "verify: %d invariant violations (see the report)\n", n)
		return errViolations
	}
	return nil
}

var errViolations = fmt.Errorf("invariants violated")

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/ontime-routing/ontime/cmd/ontime/internal/perf"
	"github.com/ontime-routing/ontime/internal/atomicfile"
)

// runPerf measures this machine and writes the performance report:
// `ontime perf [--out docs/performance.md] [--sections a,b]`.
func runPerf(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("perf", flag.ContinueOnError)
	fset.SetOutput(stderr)
	out := fset.String("out", "", "write the report here, keeping the sections not measured (default: stdout)")
	sections := fset.String("sections", "", "comma-separated sections to measure, the others kept from --out (default: all): "+strings.Join(perf.Names(), ", "))
	sessions := fset.Int("sessions", 200, "load-test sessions")
	data := fset.String("data", "", "benchmark data directory (default $ONTIME_DATA)")
	models := fset.String("models", "", "directory of trained models (default: models/ found upwards)")
	if err := fset.Parse(args); err != nil {
		return usageErr(err)
	}
	c := perf.Config{DataDir: orEnv(*data, getenv, "ONTIME_DATA"), ModelsDir: *models, ORTLib: getenv("ONTIME_ORT_LIB"),
		Version: version, Commit: buildCommit(), Sessions: *sessions, Log: stderr}
	if c.DataDir == "" {
		return fmt.Errorf("perf measures the benchmark networks: set --data or ONTIME_DATA (ontime networks fetch gets the files)")
	}
	if *sections != "" {
		c.Sections = strings.Split(*sections, ",")
	}
	if *out != "" {
		prev, err := os.ReadFile(*out)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		c.Previous = prev
	}
	report, err := perf.Run(ctx, c)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(report)
		return err
	}
	return atomicfile.WriteFile(*out, report)
}

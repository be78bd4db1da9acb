// Package perf measures ontime on the machine it runs on and writes the
// performance report (docs/performance.md, `make perf`): the machine,
// sampling speed, each policy's decisions/s and latency, DOT solve times,
// full benchmark wall times, training times, the load test, and the
// largest network each correlation model handles. Every figure is measured
// by the run that writes it; a figure short of a target an issue named says
// so beside it.
package perf

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Config says what to measure.
type Config struct {
	DataDir   string // benchmark files (sfn, anaheim, the city networks)
	ModelsDir string // trained models ("" : models/ found upwards)
	ORTLib    string
	Version   string
	Commit    string
	Sessions  int // load test sessions (the target is 200)
	// Sections to measure (nil: all); the others are kept from Previous.
	Sections []string
	Previous []byte // the report being refreshed
	Log      io.Writer

	// cache holds the learners the bench section trains (afresh: it runs
	// first), so the policies section loads instead of training again.
	cache string
}

// Section is one part of the report.
type Section struct {
	Name  string
	Title string
	Run   func(ctx context.Context, c *Config, w io.Writer) error
}

// Sections lists the report's parts in order.
var Sections = []Section{
	{"machine", "The machine", machine},
	{"sampling", "Sampling link times", sampling},
	{"bench", "Full benchmarks", fullBench},
	{"policies", "Decisions: throughput and latency of each policy", policies},
	{"dot", "DOT solve times", dotSolves},
	{"training", "Training", training},
	{"loadtest", "Load test", loadTest},
	{"scale", "The largest network each correlation model handles", scale},
	{"cities", "Cities whole: networks at the size limit", citySection},
	{"sweep", "Sweeps: sharding overhead, merge time, a city on a cluster", sweepOverhead},
}

// Names lists the section names.
func Names() []string {
	out := make([]string, len(Sections))
	for i, s := range Sections {
		out[i] = s.Name
	}
	return out
}

// Run measures the sections asked for and returns the whole report.
func Run(ctx context.Context, c Config) ([]byte, error) {
	for _, s := range c.Sections {
		if !slices.Contains(Names(), s) {
			return nil, fmt.Errorf("unknown section %q (sections: %s)", s, strings.Join(Names(), ", "))
		}
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Sessions == 0 {
		c.Sessions = 200
	}
	var err error
	if c.cache, err = os.MkdirTemp("", "ontime-perf-cache-"); err != nil {
		return nil, err
	}
	defer os.RemoveAll(c.cache)
	var out bytes.Buffer
	fmt.Fprintf(&out, "# Performance\n\n")
	fmt.Fprintf(&out, "Measured by `make perf` (`ontime perf`); nothing here is typed. Each section says when and on\n")
	fmt.Fprintf(&out, "which commit it was measured: `ontime perf --sections NAME` refreshes one and keeps the others.\n")
	fmt.Fprintf(&out, "Run it on an otherwise idle machine. Each section names the host it ran on (processor family and\n")
	fmt.Fprintf(&out, "model, widest vectors) and the load when it started: sections measured on different hosts compare\n")
	fmt.Fprintf(&out, "only as hosts do.\n\n")
	where := fmt.Sprintf("%s (%s)", host(), vectors()) // one host a run; the load is each section's
	for _, s := range Sections {
		fmt.Fprintf(&out, "<!-- perf:%s -->\n", s.Name)
		if len(c.Sections) > 0 && !slices.Contains(c.Sections, s.Name) {
			if old, ok := kept(c.Previous, s.Name); ok {
				out.Write(old)
			} else {
				fmt.Fprintf(&out, "## %s\n\nNot measured yet: `make perf PERF_SECTIONS=%s`.\n\n", s.Title, s.Name)
			}
			fmt.Fprintf(&out, "<!-- /perf:%s -->\n\n", s.Name)
			continue
		}
		fmt.Fprintf(c.Log, "perf: %s …\n", s.Name)
		t0, load := time.Now(), loadAverage()
		var sec bytes.Buffer
		if err := s.Run(ctx, &c, &sec); err != nil {
			return nil, fmt.Errorf("section %s: %w", s.Name, err)
		}
		fmt.Fprintf(&out, "## %s\n\n_Measured %s at commit %s in %.0f s, on %s, load %s at start._\n\n", s.Title,
			t0.UTC().Format("2006-01-02 15:04 MST"), short(c.Commit), time.Since(t0).Seconds(), where, load)
		out.Write(sec.Bytes())
		fmt.Fprintf(&out, "<!-- /perf:%s -->\n\n", s.Name)
		fmt.Fprintf(c.Log, "perf: %s done in %.0f s\n", s.Name, time.Since(t0).Seconds())
	}
	return out.Bytes(), nil
}

// kept returns a section of the previous report, without its markers.
func kept(prev []byte, name string) ([]byte, bool) {
	re := regexp.MustCompile(`(?s)<!-- perf:` + regexp.QuoteMeta(name) + ` -->\n(.*?)<!-- /perf:` + regexp.QuoteMeta(name) + ` -->`)
	m := re.FindSubmatch(prev)
	if m == nil {
		return nil, false
	}
	return m[1], true
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	if commit == "" {
		return "unknown"
	}
	return commit
}

// verdict says whether a measured figure meets a target.
func verdict(ok bool, target string) string {
	if ok {
		return "meets the target (" + target + ")"
	}
	return "**short of the target** (" + target + ")"
}

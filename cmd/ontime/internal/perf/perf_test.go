package perf

import (
	"context"
	"strings"
	"testing"
)

// Refreshing some sections measures those and keeps the others as they
// were; an unknown section is refused.
func TestRunKeepsSectionsNotMeasured(t *testing.T) {
	prev := "# Performance\n\n<!-- perf:sampling -->\n## Sampling link times\n\nkept figure 12345\n<!-- /perf:sampling -->\n"
	out, err := Run(context.Background(), Config{Sections: []string{"machine", "training"}, Previous: []byte(prev), ModelsDir: "../../../../models", Commit: "abc"})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	// A measured section names its host: figures from two hosts differ
	// for the same commit.
	for _, want := range []string{"kept figure 12345", "| cores (GOMAXPROCS) |", "at commit abc", "| sfn | sfn |", "<!-- /perf:scale -->",
		"| CPU family, model (host) | " + host() + " |", "on " + host() + " (" + vectors() + "), load "} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if strings.Count(s, "## Sampling link times") != 1 {
		t.Error("the kept section is not there once")
	}
	if _, err := Run(context.Background(), Config{Sections: []string{"nonsense"}}); err == nil || !strings.Contains(err.Error(), "sections: machine") {
		t.Errorf("unknown section: %v", err)
	}
}

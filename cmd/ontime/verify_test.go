package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ontime verify on a named network writes the case × invariant table and
// exits zero when every invariant holds; with nothing to check it is a
// usage error; a bad unit at import names its flag.
func TestVerifyCLI(t *testing.T) {
	out := filepath.Join(t.TempDir(), "verify.md")
	stdout, stderr, err := runCLI(t, map[string]string{"ONTIME_CACHE": t.TempDir()}, "verify", "--network", "twobranch", "--pools", "2", "--pool-size", "200", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	data, _ := os.ReadFile(out)
	if !strings.Contains(stdout, "wrote") || !strings.Contains(string(data), "**0 violations**") || !strings.Contains(string(data), "| twobranch |") {
		t.Errorf("report:\n%s", data)
	}
	if _, _, err := runCLI(t, nil, "verify"); err == nil {
		t.Error("verify with nothing to check succeeded")
	}
	_, _, err = runCLI(t, nil, "networks", "add", "--time-unit", "weeks", "x_net.tntp")
	if err == nil || !strings.Contains(err.Error(), "--time-unit") {
		t.Errorf("bad unit: %v", err)
	}
}

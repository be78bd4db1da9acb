// Package testenv finds what tests need from outside the repository (the
// benchmark data directory; without it a test skips on a developer's machine
// with the reason, and fails when CI is set, so CI cannot pass by skipping),
// and loads the networks most engine tests start from.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// DataDir returns the benchmark data directory from ONTIME_DATA.
func DataDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("ONTIME_DATA")
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "tntp")); err == nil {
			return dir
		}
	}
	Missing(tb, "benchmark data: set ONTIME_DATA to a directory holding tntp/ and segac/ (`ontime networks fetch --dest DIR`); got "+quote(dir))
	return ""
}

// Missing skips, or fails under CI, for a missing external dependency.
func Missing(tb testing.TB, what string) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatalf("CI is set and a test dependency is missing: %s", what)
	}
	tb.Skipf("skipping: missing %s", what)
}

func quote(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}

package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// Trainer returns the checkout's models/train/train.py, found above the
// test's package directory (programs find it from their binary or
// $ONTIME_TRAINER; tests run from a temporary binary).
func Trainer(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "models", "train", "train.py")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Fatal("models/train/train.py not found above the test's directory")
		}
		dir = up
	}
}

package testenv

import (
	"os"
	"testing"
)

// LargeVar names the setting that runs the large test cases: end-to-end
// training, the invariant battery's subset, benchmarks over thousands of
// episodes. `make test` leaves them out to stay within ten minutes on a
// two-core machine; CI (.ci/run) and `make verify` set it, so what they
// check is still checked before anything lands.
const LargeVar = "ONTIME_LARGE_TESTS"

// Large skips a large test case unless ONTIME_LARGE_TESTS=1, saying how
// to run it; -short skips it too (the race run).
func Large(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("a large case: not in -short runs")
	}
	if os.Getenv(LargeVar) != "1" {
		tb.Skipf("a large case: runs with %s=1 (CI and make verify set it)", LargeVar)
	}
}

// Sized is full in a whole run and short under -short: the race run plays
// a long test's smallest meaningful case (its concurrency is the same;
// the numbers it checks are checked whole in the plain run).
func Sized[T any](full, short T) T {
	if testing.Short() {
		return short
	}
	return full
}

// IsLarge reports whether the large test cases run (ONTIME_LARGE_TESTS=1,
// not -short), for a test that keeps its small cases either way.
func IsLarge() bool { return !testing.Short() && os.Getenv(LargeVar) == "1" }

// Tiered is large where the large cases run, plain in a plain run and
// short under -short: a property checked on a few cases in make test and
// on many in CI (make test stays within six minutes on two cores).
func Tiered[T any](large, plain, short T) T {
	if IsLarge() {
		return large
	}
	return Sized(plain, short)
}

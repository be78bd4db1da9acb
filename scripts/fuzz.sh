#!/usr/bin/env bash
# Runs every fuzz target for a short, fixed budget (FUZZTIME, default 3000
# executions each; `make test` calls it). A crasher lands in the package's
# testdata/fuzz/ and then fails `go test` as a regression test until fixed:
# commit it. The budget is a count, not a duration: with a duration, Go
# 1.26's fuzz coordinator can report a spurious "context deadline exceeded"
# at the deadline on a busy machine (golang/go#75804, fixed in Go 1.27);
# a count has no deadline to race.
set -euo pipefail
cd "$(dirname "$0")/.."
# The search runs with the large cases (CI, make verify: 75 s here); every
# plain `go test` replays each target's seeds and saved crashers anyway.
if [ "${ONTIME_LARGE_TESTS:-}" != "1" ] && [ -z "${FUZZTIME:-}" ]; then
	echo "fuzz: the search runs with ONTIME_LARGE_TESTS=1 (CI); go test replayed the seeds"
	exit 0
fi
t=${FUZZTIME:-3000x}
for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
		echo "fuzz: $target ($pkg, $t)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$t" "$pkg" >/tmp/fuzz.$$.log 2>&1 || {
			cat /tmp/fuzz.$$.log >&2
			rm -f /tmp/fuzz.$$.log
			echo "fuzz: $target found a failing input (saved under testdata/fuzz/$target)" >&2
			exit 1
		}
	done
done
rm -f /tmp/fuzz.$$.log

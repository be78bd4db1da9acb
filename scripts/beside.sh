#!/usr/bin/env bash
# beside.sh "FIRST" SECOND...: runs the command line FIRST in the
# background while SECOND runs, then prints FIRST's output; fails when
# either failed (make test runs the Slurm test beside the browser tests:
# it mostly waits on its scheduler).
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bash -c "$1" >"$log" 2>&1 &
first=$!
shift
"$@"
second=$?
wait "$first"
firstrc=$?
cat "$log"
if [ "$firstrc" -ne 0 ]; then
	echo "beside: the background command failed ($firstrc)" >&2
fi
[ "$firstrc" -eq 0 ] && [ "$second" -eq 0 ]

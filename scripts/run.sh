#!/usr/bin/env bash
# What `make run` shows until the dashboard exists: the built-in example's
# benchmark and history-control tables, and Sioux Falls when its data is
# there. On a fresh machine it tries to fetch the benchmark data into ./data.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/ontime}
data=${ONTIME_DATA:-data}

if [ ! -f "$data/tntp/SiouxFalls_net.tntp" ]; then
	if ! "$bin" networks fetch --dest "$data" --timeout 30s >/dev/null 2>&1; then
		echo "Sioux Falls and Anaheim need the public benchmark files: run '$bin networks fetch --dest $data' when online (or set ONTIME_DATA to a copy); starting with the built-in example."
	fi
fi
export ONTIME_DATA=$data

echo "== The paper's five-node example: LET vs the history-using rule =="
"$bin" bench --network twobranch --methods let,condrule --budgets 0.98,1.00,1.02 --pools 10 --pool-size 10000 || exit 1
echo
"$bin" bench --network twobranch --history-control --budgets 1 --pools 10 --pool-size 10000 || exit 1
if [ -f "$data/tntp/SiouxFalls_net.tntp" ]; then
	echo
	echo "== Sioux Falls =="
	"$bin" bench --network sfn --methods let,condrule || exit 1
fi

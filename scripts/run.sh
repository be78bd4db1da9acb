#!/usr/bin/env bash
# What `make run` starts: the dashboard on http://127.0.0.1:8080/ (ADDR
# overrides). On a fresh machine it first tries to fetch the public benchmark
# files into ./data; without them the built-in five-node example still works.
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
exec "$bin" serve --addr "${ADDR:-127.0.0.1:8080}"

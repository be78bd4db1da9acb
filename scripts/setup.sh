#!/usr/bin/env bash
# Installs what ontime needs to build and test. Idempotent and quick when
# everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_go="1.26"
if ! command -v go >/dev/null 2>&1; then
	echo "setup: Go $need_go or newer is needed (https://go.dev/dl/)" >&2
	exit 1
fi
have=$(go env GOVERSION | sed 's/^go//')
if [ "$(printf '%s\n%s\n' "$need_go" "$have" | sort -V | head -n1)" != "$need_go" ]; then
	echo "setup: Go $have found, $need_go or newer is needed" >&2
	exit 1
fi
# Module downloads are cached; this is a no-op when they are present.
go mod download

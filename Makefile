# toolguard — run `make help` for the targets.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

GO      ?= go
# The one version of the server, the image and the clients: `make version`
# copies it into the clients' package files; docs/version_test.go checks
# they and the CHANGELOG's latest release agree with it.
VERSION := $(shell cat VERSION)
LDFLAGS := -X main.version=v$(VERSION)
TOOL    := $(GO) tool -modfile=tools/go.mod
BIN     := bin
LISTEN  ?= 127.0.0.1:7700
# Empty: the server's default folder, ~/.local/share/toolguard/workspace.
WORKSPACE ?=
FUZZTIME ?= 2m
# Minimizing each new input may take this long: with the default (60s), targets
# whose inputs are whole streams spend their time minimizing, not fuzzing.
FUZZMINIMIZE ?= 10s

.PHONY: help
help: ## show the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST) | \
		sed -e 's|\$$(LISTEN)|$(LISTEN)|g' -e 's|\$$(FUZZTIME)|$(FUZZTIME)|g'

.PHONY: build
build: ## build bin/toolguard, stamped with the version in VERSION
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/toolguard ./cmd/toolguard

.PHONY: version
version: ## copy the version in VERSION into the Python and TypeScript clients' package files
	scripts/version.sh

.PHONY: run
run: ## run the server on $(LISTEN) with the default workspace folder (or WORKSPACE=dir)
	$(GO) run ./cmd/toolguard serve --listen $(LISTEN) $(if $(WORKSPACE),--workspace $(WORKSPACE) --create-workspaces) --log-format console

GENERATED := gen clients/python/toolguard_client/_gen clients/typescript/src/gen

.PHONY: generate
generate: ## regenerate the Go, Python and TypeScript code generated from proto/
	$(TOOL) buf generate
	clients/python/generate.sh >/dev/null
	clients/typescript/generate.sh

.PHONY: check-generated
check-generated: generate ## fail if any generated code differs from proto/
	@if [ -n "$$(git status --porcelain -- $(GENERATED))" ]; then \
		echo "generated code is out of date; run 'make generate' and commit:"; \
		git status --porcelain -- $(GENERATED); git --no-pager diff --stat -- $(GENERATED); exit 1; \
	fi

.PHONY: tools
tools: ## build buf, grpcurl and golangci-lint into bin/ (the versions pinned in tools/go.mod)
	$(GO) build -modfile=tools/go.mod -o $(BIN)/ github.com/bufbuild/buf/cmd/buf \
		github.com/fullstorydev/grpcurl/cmd/grpcurl github.com/golangci/golangci-lint/v2/cmd/golangci-lint

# The API may change only compatibly: proto/ is checked against the main
# branch, local or origin's.
BREAKING_REF ?= $(shell git rev-parse -q --verify main || git rev-parse -q --verify origin/main)

.PHONY: lint
lint: ## buf lint and buf breaking (against main), gofmt, go vet, golangci-lint (with the layer rules of .golangci.yaml)
	$(TOOL) buf lint
	@[ -n "$(BREAKING_REF)" ] || { echo "lint: no main branch to run buf breaking against (set BREAKING_REF)"; exit 1; }
	$(TOOL) buf breaking proto --against '.git#ref=$(BREAKING_REF),subdir=proto'
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^gen/')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(TOOL) golangci-lint run --allow-serial-runners ./...

.PHONY: deps
deps: ## install the Debian packages the tests need (as root; otherwise prints the apt-get command)
	scripts/deps.sh

.PHONY: test
# The parts of `make test`: each runs even when one before it failed; the
# summary at the end lists each part's result and time, and the exit code is
# non-zero if any failed.
TEST_PARTS := test-go bench-smoke e2e test-python test-typescript bench-clients-smoke test-integrations mcp-conformance mcp-dropin

test: deps ## run every test: Go unit, integration and fuzz-seed tests, one pass of each benchmark (the clients' one too), the end-to-end script, the Python and TypeScript clients against a real server, the framework integrations (AI SDK, OpenAI Agents, LangGraph.js) and their examples, the MCP conformance scenarios, the filesystem profile beside the reference server; goes on past a failed part and lists them all at the end
	MAKE='$(MAKE)' scripts/test_parts.sh $(TEST_PARTS)

.PHONY: test-go
# -timeout: the default 10 minutes per package is a hang guard that the
# service package under the race detector can outlast on a busy machine.
test-go: ## run the Go tests with the race detector, then the build without cgo
	$(GO) test -race -count=1 -timeout 40m ./...
	$(MAKE) --no-print-directory test-nocgo

# `go install` on a machine without a C compiler builds without cgo: the
# tree-sitter languages are then named but not checked (docs/syntax-check.md).
.PHONY: test-nocgo
test-nocgo: ## build toolguard without cgo, vet and test the syntax package so built
	CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/toolguard
	CGO_ENABLED=0 $(GO) vet ./syntax/
	CGO_ENABLED=0 $(GO) test -count=1 ./syntax/

.PHONY: test-python
test-python: build ## run the Python client's tests against a real server (installs Debian's python3-grpcio when root)
	TOOLGUARD_BIN=$(CURDIR)/$(BIN)/toolguard clients/python/test.sh

.PHONY: test-typescript
test-typescript: build ## run the TypeScript client's tests against a real server (npm ci when needed)
	TOOLGUARD_BIN=$(CURDIR)/$(BIN)/toolguard clients/typescript/test.sh

.PHONY: test-integrations
test-integrations: build ## run the TypeScript framework integrations' tests and examples (AI SDK, OpenAI Agents, LangGraph.js) against real servers (npm ci when needed)
	TOOLGUARD_BIN=$(CURDIR)/$(BIN)/toolguard integrations/typescript/test.sh

.PHONY: mcp-conformance
mcp-conformance: build ## run the MCP conformance suite's protocol scenarios against toolguard mcp --http (npm ci when needed)
	scripts/mcp_conformance.sh $(BIN)/toolguard

.PHONY: mcp-dropin
mcp-dropin: build ## run one script against @modelcontextprotocol/server-filesystem and toolguard mcp --profile filesystem, comparing each tool's answers (npm ci when needed)
	[ -d bench/mcp/node_modules ] || (cd bench/mcp && npm ci --no-audit --no-fund)
	node bench/mcp/dropin.mjs $(CURDIR)/$(BIN)/toolguard

# The pictures of docs/benchmarks.md: short runs (the charts show ratios of
# sides measured in the same run), captured so the SVGs redraw from the file.
.PHONY: bench-plots
bench-plots: ## re-run the benchmarks behind docs/benchmarks.md's pictures into docs/img/bench.txt and redraw docs/img/*.svg
	$(GO) test -run '^$$' -bench '^(BenchmarkStreamVsOneShot|BenchmarkRepairRatios|BenchmarkRepairConformance)$$' -benchtime 1x -count 3 ./bench/ > docs/img/bench.txt.tmp
	$(GO) test -run '^$$' -bench '^BenchmarkServerOverhead$$/^log=error$$' -benchtime 3x ./bench/ >> docs/img/bench.txt.tmp
	mv docs/img/bench.txt.tmp docs/img/bench.txt
	$(GO) run ./bench/plots -in docs/img/bench.txt -out docs/img

.PHONY: bench-smoke
bench-smoke: ## run each benchmark once, so they keep working (no timing is judged)
	$(GO) test -short -run '^$$' -bench . -benchtime 1x ./...

.PHONY: bench-clients
bench-clients: build ## the TypeScript client beside the Python client and @grpc/grpc-js on the same calls, interleaved (docs/benchmarks.md)
	TOOLGUARD_BIN=$(CURDIR)/$(BIN)/toolguard bench/clients/run.sh

.PHONY: bench-clients-smoke
bench-clients-smoke: build ## one short round of bench-clients, so it keeps working (no timing is judged)
	TOOLGUARD_BIN=$(CURDIR)/$(BIN)/toolguard bench/clients/run.sh 1 5

.PHONY: e2e
e2e: build ## run the grpcurl examples of README.md and docs/api.md against a real server, the proxy demo of README.md and docs/proxy.md, and docs/rollout.md's steps, against the fake upstream, and compare the CLI's JSON output from two builds byte for byte
	scripts/e2e.sh $(BIN)/toolguard
	scripts/e2e_stable.sh $(BIN)/toolguard
	$(GO) build -o $(BIN)/fakeupstream ./cmd/fakeupstream
	scripts/e2e_proxy.sh $(BIN)/toolguard $(BIN)/fakeupstream
	scripts/e2e_rollout.sh $(BIN)/toolguard $(BIN)/fakeupstream

.PHONY: bench
bench: ## run the benchmarks (side by side with their baselines)
	$(GO) test -run '^$$' -bench . -skip '^BenchmarkServerOverhead$$' -benchmem ./repair/... ./guard/ ./workspace/ ./service/ ./proxy/ ./bench/
	@# Five rounds, each health, ValidateToolCall and echo at concurrency 50 (docs/benchmarks.md).
	$(GO) test -run '^$$' -bench '^BenchmarkServerOverhead$$' -benchtime 5x ./bench/

.PHONY: load
load: ## load run: 100,000 mixed calls at concurrency 50 against a loopback server; throughput, p50/p99, errors, memory
	scripts/load.sh 100000 50

.PHONY: load-replicas
load-replicas: ## load run against two replicas on one workspace and one Redis, round-robin; fails on any error or session count off
	scripts/load-replicas.sh 60000 50

.PHONY: capacity
capacity: ## capacity run: one replica with Redis sessions under 60,000 mixed calls at concurrency 50, its CPU and Redis's per call, then BenchmarkRedisShard (docs/replicas.md, Capacity)
	scripts/capacity.sh 60000 50

.PHONY: load-replicas-kill
load-replicas-kill: ## kill run: 2,000 appends with idempotency keys against three replicas, one killed and restarted every 0.4s (6 kills); fails unless each acknowledged append is in its file exactly once
	scripts/load-replicas-kill.sh 2000 6 8 0.4 sha

.PHONY: fuzz
fuzz: ## run every fuzz target for $(FUZZTIME) each; crashes join testdata/fuzz
	@for pkg in $$($(GO) list ./...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$target"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg; \
		done; \
	done

.PHONY: clean
clean: ## remove build output
	rm -rf $(BIN)

#!/usr/bin/env bash
# The TypeScript client beside the Python client (and @grpc/grpc-js) on the
# same calls to one server, in one run, rounds interleaved
# (bench/clients/bench.mjs; docs/benchmarks.md has the figures).
#
# usage: bench/clients/run.sh [rounds] [calls per round]    (default 15 440)
#   TOOLGUARD_BIN=path/to/toolguard  use that binary instead of building one
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
scripts/deps.sh
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH="/usr/local/go/bin:$PATH"
fi
if [ -z "${TOOLGUARD_BIN:-}" ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	go build -o "$work/toolguard" ./cmd/toolguard
	export TOOLGUARD_BIN="$work/toolguard"
fi
(cd clients/typescript && { [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error >/dev/null; } && npx tsc -p .)
(cd bench/clients && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
echo "== machine: node $(node --version), $(/usr/bin/python3 -c 'import grpc; print("grpcio", grpc.__version__)'), $(nproc) CPUs"
node bench/clients/bench.mjs "${1:-15}" "${2:-440}"

#!/usr/bin/env bash
# toolguard mcp beside @modelcontextprotocol/server-filesystem on the same
# edits (bench/mcp/bench.mjs): correctness per edit, and time per call.
#
# usage: bench/mcp/run.sh [rounds]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/toolguard" ./cmd/toolguard)
[ -d "$here/node_modules" ] || (cd "$here" && npm ci --no-audit --no-fund)
echo "== machine: node $(node --version), $(nproc) CPUs"
node "$here/bench.mjs" "$work/toolguard" "${1:-60}"

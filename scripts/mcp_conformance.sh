#!/usr/bin/env bash
# Runs the MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# clients/typescript's devDependencies, so it runs offline after `npm ci`)
# against `toolguard mcp --http` on a free loopback port.
#
# The suite's server scenarios are written for its reference server: most call
# fixture tools, prompts and resources (test_simple_text, ...) that no other
# server has. The scenarios run here are those about the protocol itself,
# which any server must pass.
#
# usage: scripts/mcp_conformance.sh path/to/toolguard
set -euo pipefail

bin=$(realpath "${1:?usage: scripts/mcp_conformance.sh path/to/toolguard}")
root=$(cd "$(dirname "$0")/.." && pwd)
ts="$root/clients/typescript"
scenarios=(server-initialize ping tools-list logging-set-level server-sse-multiple-streams resources-list prompts-list)

work=$(mktemp -d)
pid=""
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

if [ ! -d "$ts/node_modules/@modelcontextprotocol/conformance" ]; then
	(cd "$ts" && npm ci --no-audit --no-fund)
fi

mkdir -p "$work/workspace"
"$bin" mcp --http 127.0.0.1:0 --workspace "$work/workspace" --log-format json 2>"$work/server.log" &
pid=$!
addr=""
for _ in $(seq 1 1200); do # 2 minutes: only a hang guard
	addr=$(sed -n 's/.*"msg":"serving MCP over streamable HTTP".*"address":"\([^"]*\)".*/\1/p' "$work/server.log" | head -n 1)
	[ -n "$addr" ] && break
	kill -0 "$pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "mcp-conformance: server exited early" >&2; exit 1; }
	sleep 0.1
done
[ -n "$addr" ] || { cat "$work/server.log" >&2; echo "mcp-conformance: no address logged" >&2; exit 1; }

failed=0
for s in "${scenarios[@]}"; do
	if out=$(cd "$work" && "$ts/node_modules/.bin/conformance" server --url "http://$addr/" --scenario "$s" 2>&1); then
		echo "mcp-conformance: ok: $s"
	else
		echo "$out" >&2
		echo "mcp-conformance: FAIL: $s" >&2
		failed=1
	fi
done
exit $failed

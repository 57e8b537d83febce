#!/usr/bin/env bash
# Load run: start a toolguard server on a free loopback port with a
# temporary workspace, drive it with bench/load (every RPC, mixed), and
# report throughput, latency percentiles, errors and the server's resident
# memory: after start, after a warm-up, and after the run.
#
# usage: scripts/load.sh [calls] [concurrency]      (default 100000 50)
# Bounded: loopback only, the given number of calls, at most 10 minutes.
set -euo pipefail

calls=${1:-100000}
concurrency=${2:-50}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pid=""
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

cd "$root"
go build -o "$work/toolguard" ./cmd/toolguard
go build -o "$work/load" ./bench/load

mkdir -p "$work/workspace"
"$work/toolguard" serve --listen 127.0.0.1:0 --workspace "$work/workspace" --log-format json --log-level warn 2>"$work/server.log" &
pid=$!
addr=""
for _ in $(seq 1 100); do
	addr=$(sed -n 's/.*"msg":"serving gRPC".*"address":"\([^"]*\)".*/\1/p' "$work/server.log" | head -n 1)
	[ -n "$addr" ] && break
	kill -0 "$pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
	sleep 0.1
done
# serving gRPC is logged at info; with --log-level warn read it from the listener instead.
if [ -z "$addr" ]; then
	for _ in $(seq 1 100); do
		port=$(ss -Hltnp 2>/dev/null | awk -v p="pid=$pid," '$0 ~ p {split($4, a, ":"); print a[length(a)]; exit}')
		[ -n "$port" ] && addr="127.0.0.1:$port" && break
		sleep 0.1
	done
fi
[ -n "$addr" ] || { echo "load: no server address" >&2; exit 1; }

rss() { awk '/^VmRSS/ {print $2 / 1024 " MiB"}' "/proc/$pid/status"; }
echo "server $addr, pid $pid"
echo "rss after start:   $(rss)"
"$work/load" -addr "$addr" -calls 5000 -concurrency "$concurrency" >/dev/null
echo "rss after warm-up: $(rss) (5000 calls)"
"$work/load" -addr "$addr" -calls "$calls" -concurrency "$concurrency" -max-time 10m
echo "rss after the run: $(rss)"
kill -TERM "$pid"
wait "$pid"
pid=""
echo "server stopped cleanly"

#!/usr/bin/env bash
# Load run against two replicas: one redis-server, two toolguard servers on
# one workspace directory with one lock directory, and bench/load calling
# them round-robin. It fails on any error, and on any answer whose mistake
# count differs from the caller's own tally (a count lost or doubled between
# the replicas).
#
# usage: scripts/load-replicas.sh [calls] [concurrency]      (default 60000 50)
# Bounded: loopback only, the given number of calls, at most 10 minutes.
set -euo pipefail

calls=${1:-60000}
concurrency=${2:-50}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		if kill -0 "$p" 2>/dev/null; then kill -KILL "$p" 2>/dev/null || true; fi
	done
	rm -rf "$work"
}
trap cleanup EXIT

command -v redis-server >/dev/null || { echo "load-replicas: redis-server is not on PATH" >&2; exit 1; }
cd "$root"
go build -o "$work/toolguard" ./cmd/toolguard
go build -o "$work/load" ./bench/load

# shellcheck source=scripts/lib/redis.sh
. "$root/scripts/lib/redis.sh"
mkdir -p "$work/workspace" "$work/redis"
rport=$(free_port)
redis-server --bind 127.0.0.1 --port "$rport" --save "" --appendonly no --dir "$work/redis" >"$work/redis.log" 2>&1 &
pids+=($!)
wait_redis "$rport"

addrs=()
for i in 0 1; do
	port=$(free_port)
	"$work/toolguard" serve --listen "127.0.0.1:$port" --workspace "$work/workspace" --lock-dir "$work/locks" \
		--session-store redis --redis-url "redis://127.0.0.1:$rport/0" --log-format json --log-level warn 2>"$work/server-$i.log" &
	pids+=($!)
	addrs+=("127.0.0.1:$port")
done
sleep 1
for i in 0 1; do
	kill -0 "${pids[$((i + 1))]}" 2>/dev/null || { cat "$work/server-$i.log" >&2; exit 1; }
done

list=$(IFS=,; echo "${addrs[*]}")
echo "replicas $list, redis 127.0.0.1:$rport"
"$work/load" -addr "$list" -calls "$calls" -concurrency "$concurrency" -max-time 10m
temps=$(find "$work/workspace" -name '.toolguard-tmp-*' | wc -l)
echo "temporary files left: $temps"
[ "$temps" -eq 0 ]
for p in "${pids[@]:1}" "${pids[0]}"; do
	kill -TERM "$p"
	wait "$p" 2>/dev/null || true
done
pids=()
echo "replicas and redis stopped"

#!/usr/bin/env bash
# Capacity of one replica and what it asks of its Redis shard: one
# redis-server, one toolguard server with Redis sessions, and bench/load's
# mixed calls against it. Besides the load's own report it prints the CPU
# the server and Redis used (from /proc, so the load's callers on the same
# cores do not count), the Redis commands per call, and how many such
# replicas one shard keeps up with. Then BenchmarkRedisShard measures the
# shard alone: the CPU each of toolguard's scripts costs Redis.
#
# usage: scripts/capacity.sh [calls] [concurrency]      (default 60000 50)
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

command -v redis-server >/dev/null || { echo "capacity: redis-server is not on PATH" >&2; exit 1; }
cd "$root"
go build -o "$work/toolguard" ./cmd/toolguard
go build -o "$work/load" ./bench/load

# shellcheck source=scripts/lib/redis.sh
. "$root/scripts/lib/redis.sh"
mkdir -p "$work/workspace" "$work/redis"
rport=$(free_port)
redis-server --bind 127.0.0.1 --port "$rport" --save "" --appendonly no --dir "$work/redis" >"$work/redis.log" 2>&1 &
rpid=$!
pids+=("$rpid")
wait_redis "$rport"
port=$(free_port)
# A Redis call past --redis-timeout is answered uncounted, which the load
# reports as a count off: on a busy shared machine the default 250ms is
# sometimes passed. What is measured here is CPU, not timeouts.
"$work/toolguard" serve --listen "127.0.0.1:$port" --workspace "$work/workspace" --lock-dir "$work/locks" \
	--session-store redis --redis-url "redis://127.0.0.1:$rport/0" --redis-timeout 2s --log-format json --log-level warn \
	2>"$work/server.log" &
tpid=$!
pids+=("$tpid")
for _ in $(seq 1 100); do
	(echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	kill -0 "$tpid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
	sleep 0.1
done

hz=$(getconf CLK_TCK)
# cpu PID: user and system seconds the process has used.
cpu() { awk -v hz="$hz" '{sub(/.*\) /, ""); print ($12 + $13) / hz}' "/proc/$1/stat"; }
commands() { redis-cli -p "$rport" info stats | tr -d '\r' | awk -F: '$1 == "total_commands_processed" {print $2}'; }
# cmdstats FILE: each command's calls and microseconds inside Redis.
cmdstats() { redis-cli -p "$rport" info commandstats | tr -d '\r' | sed -n 's/^cmdstat_\([^:]*\):calls=\([0-9]*\),usec=\([0-9]*\).*/\1 \2 \3/p' >"$1"; }

"$work/load" -addr "127.0.0.1:$port" -calls 5000 -concurrency "$concurrency" >/dev/null
cmdstats "$work/stats0"
t0=$(cpu "$tpid") r0=$(cpu "$rpid") c0=$(commands) w0=$(date +%s.%N)
"$work/load" -addr "127.0.0.1:$port" -calls "$calls" -concurrency "$concurrency" -max-time 10m | tee "$work/load.out"
t1=$(cpu "$tpid") r1=$(cpu "$rpid") c1=$(commands) w1=$(date +%s.%N)
cmdstats "$work/stats1"
done_calls=$(awk '/^calls / {print $2; exit}' "$work/load.out")

# The second INFO is one of the commands counted.
awk -v n="$done_calls" -v t0="$t0" -v t1="$t1" -v r0="$r0" -v r1="$r1" -v c="$((c1 - c0 - 1))" -v w0="$w0" -v w1="$w1" 'BEGIN {
	t = t1 - t0; r = r1 - r0; w = w1 - w0
	printf "replica: %.0f calls/s using %.2f cores: %.0f calls per CPU-second, %.0f us of CPU per call\n", n / w, t / w, n / t, t * 1e6 / n
	printf "redis:   %.2f commands per call (those scripts run included), %.0f commands/s using %.2f cores: %.1f us of CPU per call\n", c / n, c / w, r / w, r * 1e6 / n
	printf "sizing:  one Redis core keeps up with the calls of %.0f replica cores\n", t / r
}'
# Commands the scripts run count too; the microseconds are Redis's own
# wall time, which a busy machine inflates (the CPU above is the measure).
echo "redis commands per call, scripts' own included (calls, and wall microseconds inside Redis per call):"
awk -v n="$done_calls" 'NR == FNR {c[$1] = $2; u[$1] = $3; next}
	$2 - c[$1] > n / 100 {printf "  %-10s %5.2f %6.1f us\n", $1, ($2 - c[$1]) / n, ($3 - u[$1]) / n}' "$work/stats0" "$work/stats1"
kill -TERM "$tpid" "$rpid"
wait "$tpid" "$rpid" 2>/dev/null || true
pids=()

echo "shard alone (BenchmarkRedisShard):"
go test -run '^$' -bench '^BenchmarkRedisShard$' -benchtime 3s ./session/ | grep '^BenchmarkRedisShard'

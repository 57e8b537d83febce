#!/usr/bin/env bash
# Kill run: one redis-server, three toolguard servers on one workspace with
# one lock directory, and bench/appends sending appends with idempotency
# keys, retried against the next replica. Meanwhile a replica is killed
# (SIGKILL) every few seconds and restarted on its port. It fails unless
# every acknowledged append is in its file exactly once.
#
# usage: scripts/load-replicas-kill.sh [appends] [kills] [concurrency] [interval] [mode]
#        (default 2000 6 8 0.4 sha: a kill every 0.4s, the replica back 0.2s
#        later; mode sha sends expected_sha256 with the key, mode key the key
#        alone, which a kill between a change and the keeping of its answer
#        can apply twice)
# Bounded: loopback only, the given appends and kills, at most 5 minutes.
set -euo pipefail

appends=${1:-2000}
kills=${2:-6}
concurrency=${3:-8}
interval=${4:-0.4}
mode=${5:-sha}
case $mode in sha) shaflag=-sha ;; key) shaflag=-sha=false ;; *) echo "mode is sha or key" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
declare -A pids
cleanup() {
	for p in "${pids[@]}"; do
		if kill -0 "$p" 2>/dev/null; then kill -KILL "$p" 2>/dev/null || true; fi
	done
	rm -rf "$work"
}
trap cleanup EXIT

command -v redis-server >/dev/null || { echo "load-replicas-kill: redis-server is not on PATH" >&2; exit 1; }
cd "$root"
go build -o "$work/toolguard" ./cmd/toolguard
go build -o "$work/appends" ./bench/appends

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mkdir -p "$work/workspace" "$work/redis"
rport=$(free_port)
redis-server --bind 127.0.0.1 --port "$rport" --save "" --appendonly no --dir "$work/redis" >"$work/redis.log" 2>&1 &
pids[redis]=$!
for _ in $(seq 1 100); do
	redis-cli -p "$rport" ping >/dev/null 2>&1 && break
	sleep 0.1
done

ports=()
start_replica() {
	"$work/toolguard" serve --listen "127.0.0.1:${ports[$1]}" --workspace "$work/workspace" --lock-dir "$work/locks" \
		--session-store redis --redis-url "redis://127.0.0.1:$rport/0" --log-format json --log-level warn \
		2>>"$work/server-$1.log" &
	pids[$1]=$!
}
for i in 0 1 2; do
	ports+=("$(free_port)")
	start_replica "$i"
done
sleep 1
for i in 0 1 2; do
	kill -0 "${pids[$i]}" 2>/dev/null || { cat "$work/server-$i.log" >&2; exit 1; }
done

list=127.0.0.1:${ports[0]},127.0.0.1:${ports[1]},127.0.0.1:${ports[2]}
echo "replicas $list, redis 127.0.0.1:$rport, $appends appends, $kills kills, mode $mode"
"$work/appends" -addr "$list" -workspace "$work/workspace" -appends "$appends" "$shaflag" \
	-concurrency "$concurrency" -max-time 5m >"$work/appends.out" 2>&1 &
load=$!

# Kill one replica at a time, round the three, while the appends run.
done_kills=0
while [ "$done_kills" -lt "$kills" ] && kill -0 "$load" 2>/dev/null; do
	sleep "$interval"
	i=$((done_kills % 3))
	kill -KILL "${pids[$i]}"
	wait "${pids[$i]}" 2>/dev/null || true
	done_kills=$((done_kills + 1))
	echo "killed replica $i ($(date +%T))"
	sleep 0.2
	start_replica "$i"
done
status=0
wait "$load" || status=$?
cat "$work/appends.out"
echo "kills $done_kills"
for i in 0 1 2 redis; do
	kill -TERM "${pids[$i]}" 2>/dev/null || true
	wait "${pids[$i]}" 2>/dev/null || true
done
pids=()
exit "$status"

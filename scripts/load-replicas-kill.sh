#!/usr/bin/env bash
# Kill run: one redis-server, three toolguard servers on one workspace with
# one lock directory, and bench/appends sending appends with idempotency
# keys, retried against the next replica. Meanwhile a replica is killed
# (SIGKILL) every few seconds and restarted on its port. It fails unless
# every acknowledged append is in its file exactly once.
#
# usage: [REDIS=sentinel|cluster] scripts/load-replicas-kill.sh [appends] [kills] [concurrency] [interval] [mode]
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

# shellcheck source=scripts/lib/redis.sh
. "$root/scripts/lib/redis.sh"
mkdir -p "$work/workspace" "$work/redis"
# REDIS=sentinel: a master, a replica and three Sentinels; the master is
# killed once, mid-run, and the Sentinels promote the replica.
# REDIS=cluster: a cluster of three masters with a replica each; the first
# master is killed once, mid-run, and the cluster promotes its replica.
redis=${REDIS:-single}
case $redis in single | sentinel | cluster) ;; *) echo "REDIS is single, sentinel or cluster" >&2; exit 2 ;; esac
cluster_args=()
if [ "$redis" = cluster ]; then
	cluster_args=(--cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 1000
		--cluster-replica-validity-factor 0 --repl-diskless-sync-delay 0)
fi
start_redis() { # name port [redis-server arguments...]
	local name=$1 port=$2
	shift 2
	mkdir -p "$work/redis/$name"
	redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no --dir "$work/redis/$name" "$@" \
		>"$work/redis-$name.log" 2>&1 &
	pids[redis-$name]=$!
	wait_redis "$port"
}
rport=$(free_port)
start_redis master "$rport" "${cluster_args[@]}"
redis_url="redis://127.0.0.1:$rport/0"
mode_flags=()
if [ "$redis" = sentinel ]; then
	start_redis replica "$(free_port)" --replicaof 127.0.0.1 "$rport"
	sentinels=()
	for s in 0 1 2; do
		sport=$(free_port)
		printf 'port %s\nbind 127.0.0.1\nsentinel monitor tg 127.0.0.1 %s 2\nsentinel down-after-milliseconds tg 1000\nsentinel failover-timeout tg 5000\n' \
			"$sport" "$rport" >"$work/sentinel-$s.conf"
		redis-server "$work/sentinel-$s.conf" --sentinel >"$work/redis-sentinel-$s.log" 2>&1 &
		pids[redis-sentinel-$s]=$!
		sentinels+=("127.0.0.1:$sport")
	done
	sleep 2
	redis_url="redis://$(IFS=,; echo "${sentinels[*]}")/0"
	mode_flags=(--redis-mode sentinel --redis-master-name tg)
fi
promoted=""
if [ "$redis" = cluster ]; then
	nodes=("127.0.0.1:$rport")
	for n in 1 2 3 4 5; do
		nport=$(free_port)
		start_redis "node-$n" "$nport" "${cluster_args[@]}"
		nodes+=("127.0.0.1:$nport")
	done
	# The first three given are the masters.
	redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes >"$work/cluster-create.log" 2>&1 ||
		{ cat "$work/cluster-create.log" >&2; exit 1; }
	for node in "${nodes[@]}"; do
		for _ in $(seq 1 300); do
			info=$(redis-cli -p "${node##*:}" cluster info | tr -d '\r')
			repl=$(redis-cli -p "${node##*:}" info replication | tr -d '\r')
			case $info in *cluster_state:ok*cluster_known_nodes:6*) ;; *) sleep 0.1; continue ;; esac
			case $repl in *role:slave*) case $repl in *master_link_status:up*) break ;; esac ;; *) break ;; esac
			sleep 0.1
		done
		if redis-cli -p "${node##*:}" info replication | tr -d '\r' | grep -qx "master_port:$rport"; then
			promoted=$node
		fi
	done
	redis_url="redis://$(IFS=,; echo "${nodes[*]:0:3}")/0"
	mode_flags=(--redis-mode cluster)
fi

ports=()
start_replica() {
	"$work/toolguard" serve --listen "127.0.0.1:${ports[$1]}" --workspace "$work/workspace" --lock-dir "$work/locks" \
		--session-store redis --redis-url "$redis_url" "${mode_flags[@]}" --log-format json --log-level warn \
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
echo "replicas $list, redis $redis_url, $appends appends, $kills kills, mode $mode"
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
	if [ "$redis" != single ] && [ "$done_kills" -eq 2 ]; then
		kill -KILL "${pids[redis-master]}"
		echo "killed the Redis master ($(date +%T))"
	fi
	sleep 0.2
	start_replica "$i"
done
status=0
wait "$load" || status=$?
cat "$work/appends.out"
echo "kills $done_kills"
if [ "$redis" = sentinel ]; then
	echo "Redis master now: $(redis-cli -p "${sentinels[0]##*:}" sentinel get-master-addr-by-name tg | paste -sd:) (was 127.0.0.1:$rport)"
fi
if [ "$redis" = cluster ]; then
	echo "the killed master's replica $promoted is now: $(redis-cli -p "${promoted##*:}" info replication | tr -d '\r' | sed -n 's/^role://p')"
fi
for i in "${!pids[@]}"; do
	kill -TERM "${pids[$i]}" 2>/dev/null || true
	wait "${pids[$i]}" 2>/dev/null || true
done
pids=()
exit "$status"

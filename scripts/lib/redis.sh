# What the load scripts share (capacity.sh, load-replicas.sh,
# load-replicas-kill.sh); sourced, not run.

# free_port prints a free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# wait_redis PORT waits until the redis-server on PORT answers (at most 2
# minutes: a loaded machine can be slow to start one).
wait_redis() {
	for _ in $(seq 1 1200); do
		redis-cli -p "$1" ping >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "redis-server on port $1 did not answer" >&2
	return 1
}

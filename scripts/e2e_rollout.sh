#!/usr/bin/env bash
# End-to-end run of docs/rollout.md as printed: observe, record, measure,
# enforce. The guide's `toolguard ...` commands are read from its sh blocks
# and run in order, with the fake upstream in place of the real one (the
# upstream URL, written with /v1, and free ports are the only changes).
# The recording must hold every exchange with no key in it, eval on it must
# count what the observing proxy logged, and print what the guide prints
# for docs/recorded.jsonl (the same scenarios, recorded the same way); the
# guide's console block must be that command's output byte for byte.
#
# usage: scripts/e2e_rollout.sh path/to/toolguard path/to/fakeupstream
set -euo pipefail

usage="usage: scripts/e2e_rollout.sh path/to/toolguard path/to/fakeupstream"
bin=$(realpath "${1:?$usage}")
fake=$(realpath "${2:?$usage}")
root=$(cd "$(dirname "$0")/.." && pwd)
guide=$root/docs/rollout.md
fixtures=$root/proxy/testdata
command -v python3 >/dev/null || { echo "e2e-rollout: FAIL: python3 is required" >&2; exit 1; }
command -v curl >/dev/null || { echo "e2e-rollout: FAIL: curl is required" >&2; exit 1; }
work=$(mktemp -d)
fake_pid=""
proxy_pid=""
cleanup() {
	for p in $proxy_pid $fake_pid; do
		if kill -0 "$p" 2>/dev/null; then kill -KILL "$p" 2>/dev/null || true; fi
	done
	rm -rf "$work"
}
trap cleanup EXIT

fail() {
	echo "e2e-rollout: FAIL: $*" >&2
	for log in "$work"/*.log; do
		if [ -f "$log" ]; then echo "--- $log" >&2; tail -n 30 "$log" >&2; fi
	done
	exit 1
}
ok() { echo "e2e-rollout: ok: $*"; }
# wait_addr LOG SED_SCRIPT PID NAME: the address a process logs once it listens.
wait_addr() {
	local log=$1 script=$2 pid=$3 name=$4 addr=""
	for _ in $(seq 1 1200); do # 2 minutes: only a hang guard
		addr=$(sed -n "$script" "$log" 2>/dev/null | head -n 1)
		[ -n "$addr" ] && break
		kill -0 "$pid" 2>/dev/null || fail "$name exited early"
		sleep 0.1
	done
	[ -n "$addr" ] || fail "$name did not report its address"
	echo "$addr"
}

# The guide's commands: every line of its sh blocks that starts with
# "toolguard ", joined with the lines it continues on, in order.
mapfile -t cmds < <(awk '
	/^```sh$/ { inb = 1; next }
	inb && /^```$/ { inb = 0; next }
	inb && (cont || /^toolguard /) {
		line = $0; cont = sub(/ *\\$/, " ", line); cmd = cmd line
		if (!cont) { print cmd; cmd = "" }
	}' "$guide")
[ "${#cmds[@]}" = 4 ] || fail "docs/rollout.md: want 4 toolguard commands (observe, record, eval, enforce), found ${#cmds[@]}: ${cmds[*]}"
observe=${cmds[0]} record=${cmds[1]} measure=${cmds[2]} enforce=${cmds[3]}
grep -qF -- "--mode observe" <<<"$observe" || fail "step 1 does not observe: $observe"
grep -qF -- "--record recorded.jsonl" <<<"$record" || fail "step 2 does not record: $record"
[ "$measure" = "toolguard eval recorded.jsonl" ] || fail "step 3 is not eval on the recording: $measure"
if grep -qF -- "--mode observe" <<<"$enforce"; then fail "step 4 still observes: $enforce"; fi

"$fake" --listen 127.0.0.1:0 --fixtures "$fixtures" 2>"$work/fake.log" &
fake_pid=$!
fake_addr=$(wait_addr "$work/fake.log" 's/.*listening on http:\/\/\([^,]*\),.*/\1/p' "$fake_pid" fakeupstream)

# start NAME COMMAND: runs a guide's proxy command against the fake upstream
# on free ports, from the run's directory; sets proxy_addr.
start() {
	local name=$1 cmd=$2
	[[ $cmd == *"https://api.openai.com/v1"* ]] || fail "$name: the command names another upstream: $cmd"
	cmd=${cmd//https:\/\/api.openai.com\/v1/http://$fake_addr/v1}
	cmd=${cmd//127.0.0.1:9465/127.0.0.1:0}
	cmd="${cmd/#toolguard /\"\$bin\" } --listen 127.0.0.1:0"
	(cd "$work/run" && eval "exec $cmd") 2>"$work/$name.log" &
	proxy_pid=$!
	proxy_addr=$(wait_addr "$work/$name.log" 's/.*"msg":"serving the proxy".*"address":"\([^"]*\)".*/\1/p' "$proxy_pid" "$name")
	grep -qF "\"msg\":\"the upstream URL ends in /v1" "$work/$name.log" || fail "$name: no log line saying /v1 is dropped"
}
stop() {
	kill -TERM "$proxy_pid"
	wait "$proxy_pid" || fail "the proxy did not exit cleanly on SIGTERM"
	proxy_pid=""
}
# send: the scenarios of docs/recorded.jsonl, in its order, with a key.
key=sk-e2e-rollout-0123456789abcdef
scenarios="openai/python_dict_nonstream anthropic/python_dict_nonstream openai/valid_nonstream anthropic/wrong_name_case anthropic/truncated_length"
send() {
	local s api path status
	for s in $scenarios; do
		api=${s%/*} path=/v1/chat/completions
		[ "$api" = anthropic ] && path=/v1/messages
		status=$(curl -sS --max-time 20 -o "$work/out" -w '%{http_code}' "http://$proxy_addr$path" \
			-H 'content-type: application/json' -H "Authorization: Bearer $key" -H "x-api-key: $key" \
			-d @"$fixtures/$s/request.json") || fail "$s: curl failed"
		[ "$status" = 200 ] || fail "$s: status $status: $(cat "$work/out")"
	done
}
mkdir "$work/run"

# 1. Observe.
start observe "$observe"
send
stop
n=$(grep -cF '"msg":"tool call observed: sent as written"' "$work/observe.log" || true)
[ "$n" = 6 ] || fail "step 1: $n calls observed, want 6"
[ ! -e "$work/run/recorded.jsonl" ] || fail "step 1 recorded without --record"
ok "1. observe: every call logged, nothing recorded"

# 2. Record.
start record "$record"
send
stop
rec=$work/run/recorded.jsonl
[ "$(wc -l <"$rec")" = 5 ] || fail "step 2: $(wc -l <"$rec") exchanges recorded, want 5"
if grep -qF "$key" "$rec"; then fail "step 2: the key is in the recording"; fi
[ "$(grep -o '"Authorization":"\[redacted\]"' "$rec" | wc -l)" = 5 ] || fail "step 2: Authorization is not recorded as [redacted]"
ok "2. record: 5 exchanges, keys redacted"

# 3. Measure: eval counts what the observing proxy logged.
(cd "$work/run" && eval "${measure/#toolguard eval /\"\$bin\" eval --json }") >"$work/eval.json" || fail "step 3: eval failed"
python3 - "$work/record.log" "$work/eval.json" <<'EOF' || fail "step 3: eval does not count what the proxy did"
import collections, json, sys
cls = {"unchanged": "usable", "repaired": "repaired", "invalid": "refused", "refused": "refused",
       "truncated": "truncated", "too_large": "too_large"}
live = collections.Counter()
for line in open(sys.argv[1], encoding="utf-8"):
    e = json.loads(line)
    if e["msg"].startswith("tool call ") and "action" in e:
        live[cls[e["action"]]] += 1
s = json.load(open(sys.argv[2], encoding="utf-8"))
got = collections.Counter({k: v for k, v in s["classes"].items() if v})
assert s["exchanges"] == 5 and s["unreadable"] == 0, s
assert got == live, "eval %s, the proxy %s" % (dict(got), dict(live))
EOF
(cd "$work/run" && eval "${measure/#toolguard /\"\$bin\" }") >/dev/null || fail "step 3: $measure failed"
# The guide's console block, from the repository's root, byte for byte;
# and the recording made here reads the same.
block=$(awk '/^```console$/ {inb = 1; next} inb && /^```$/ {inb = 0; next} inb' "$guide")
cmd=$(head -n 1 <<<"$block")
want=$(tail -n +2 <<<"$block")
[[ $cmd == '$ toolguard eval '* ]] || fail "docs/rollout.md: the console block does not run eval: $cmd"
cmd=${cmd#\$ toolguard }
got=$(cd "$root" && eval "\"\$bin\" $cmd") || fail "docs/rollout.md's eval example failed"
[ "$got" = "$want" ] || fail "docs/rollout.md's eval example prints something else:"$'\n'"$(diff <(echo "$want") <(echo "$got"))"
here=$(cd "$work/run" && eval "\"\$bin\" ${cmd/docs\/recorded.jsonl/recorded.jsonl}")
[ "$here" = "$want" ] || fail "the recording made here reads otherwise than docs/recorded.jsonl:"$'\n'"$(diff <(echo "$want") <(echo "$here"))"
ok "3. measure: eval counts what the proxy did; the guide's output, byte for byte"

# 4. Enforce.
start enforce "$enforce"
send
stop
n=$(grep -cF '"msg":"tool call repaired"' "$work/enforce.log" || true)
[ "$n" = 4 ] || fail "step 4: $n calls repaired, want 4"
grep -qF '"mode":"enforce"' "$work/enforce.log" || fail "step 4: the proxy does not enforce"
ok "4. enforce: the calls eval counted as repaired are repaired"
kill -TERM "$fake_pid"
wait "$fake_pid" || fail "the fake upstream did not exit cleanly on SIGTERM"
fake_pid=""
echo "e2e-rollout: all checks passed"

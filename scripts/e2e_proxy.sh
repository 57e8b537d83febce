#!/usr/bin/env bash
# End-to-end check of the proxy demo of docs/proxy.md ("Try it with the fake
# upstream") and README.md's proxy example: start the fake model server and
# `toolguard proxy` in front of it on free
# loopback ports, make the demo's requests (OpenAI and Anthropic, streamed
# and not, the scenarios it names, byte-split), assert the answers, the log
# lines, the session counting and the metrics, then stop both with SIGTERM
# and require clean exits.
#
# usage: scripts/e2e_proxy.sh path/to/toolguard path/to/fakeupstream
set -euo pipefail

usage="usage: scripts/e2e_proxy.sh path/to/toolguard path/to/fakeupstream"
bin=$(realpath "${1:?$usage}")
fake=$(realpath "${2:?$usage}")
root=$(cd "$(dirname "$0")/.." && pwd)
fixtures=$root/proxy/testdata
command -v python3 >/dev/null || { echo "e2e-proxy: FAIL: python3 is required" >&2; exit 1; }
command -v curl >/dev/null || { echo "e2e-proxy: FAIL: curl is required" >&2; exit 1; }
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
	echo "e2e-proxy: FAIL: $*" >&2
	for log in fake proxy; do
		if [ -f "$work/$log.log" ]; then echo "--- $log log" >&2; cat "$work/$log.log" >&2; fi
	done
	exit 1
}
ok() { echo "e2e-proxy: ok: $*"; }
expect() { # expect NAME OUTPUT PATTERN...: every pattern must occur in OUTPUT
	local name=$1 out=$2; shift 2
	for pat in "$@"; do
		grep -qF -- "$pat" <<<"$out" || fail "$name: output lacks '$pat':"$'\n'"$out"
	done
	ok "$name"
}
# wait_addr LOG SED_SCRIPT PID NAME: the address a process logs once it listens.
wait_addr() {
	local log=$1 script=$2 pid=$3 name=$4 addr=""
	for _ in $(seq 1 1200); do # 2 minutes: only a hang guard
		addr=$(sed -n "$script" "$log" | head -n 1)
		[ -n "$addr" ] && break
		kill -0 "$pid" 2>/dev/null || fail "$name exited early"
		sleep 0.1
	done
	[ -n "$addr" ] || fail "$name did not report its address"
	echo "$addr"
}

# check.py API MODE EXPECT BODY: rebuilds the tool calls of an answer
# (MODE stream: the SSE events; json: the body) and compares them with the
# fixture's expect.json: names, ids, finish or stop reason, arguments as
# JSON values (repaired calls) or byte for byte (unchanged and truncated
# calls; truncated ones must not parse). A repaired streamed call must come
# as docs/proxy.md says: the first fragment carries the arguments whole, the
# others are empty. Prints the calls as JSON.
cat >"$work/check.py" <<'EOF'
import json, re, sys

api, mode, expect_path, body_path = sys.argv[1:]
expect = json.load(open(expect_path, encoding="utf-8"))
body = open(body_path, "rb").read().decode("utf-8")
calls, reason = {}, None

def problem(msg):
    sys.exit("%s (%s): %s" % (expect["scenario"], mode, msg))

def call(index):
    return calls.setdefault(index, {"index": index, "id": None, "name": None, "fragments": []})

if mode == "stream":
    for line in re.split(r"\r\n|\r|\n", body):
        if not line.startswith("data:"):
            continue
        data = line[5:][1:] if line[5:6] == " " else line[5:]
        if data == "[DONE]":
            continue
        ev = json.loads(data)
        if api == "openai":
            for choice in ev.get("choices") or []:
                for tc in (choice.get("delta") or {}).get("tool_calls") or []:
                    c, f = call(tc["index"]), tc.get("function") or {}
                    c["id"] = c["id"] or tc.get("id")
                    c["name"] = c["name"] or f.get("name")
                    if "arguments" in f:
                        c["fragments"].append(f["arguments"])
                if choice.get("finish_reason"):
                    reason = choice["finish_reason"]
        elif ev.get("type") == "content_block_start" and ev["content_block"]["type"] == "tool_use":
            c = call(ev["index"])
            c["id"], c["name"] = ev["content_block"]["id"], ev["content_block"]["name"]
        elif ev.get("type") == "content_block_delta" and ev["delta"]["type"] == "input_json_delta":
            call(ev["index"])["fragments"].append(ev["delta"]["partial_json"])
        elif ev.get("type") == "message_delta":
            reason = ev["delta"].get("stop_reason")
else:
    doc = json.loads(body)
    if api == "openai":
        choice = doc["choices"][0]
        reason = choice["finish_reason"]
        for i, tc in enumerate(choice["message"].get("tool_calls") or []):
            c = call(i)
            c["id"], c["name"] = tc["id"], tc["function"]["name"]
            c["fragments"].append(tc["function"]["arguments"])
    else:
        reason = doc["stop_reason"]
        for i, block in enumerate(doc["content"]):
            if block["type"] == "tool_use":
                c = call(i)
                c["id"], c["name"] = block["id"], block["name"]
                c["input"] = block["input"]

want_reason = expect.get("finish_reason" if api == "openai" else "stop_reason")
if reason != want_reason:
    problem("finish/stop reason %r, want %r" % (reason, want_reason))
if sorted(calls) != sorted(c["index"] for c in expect["calls"]):
    problem("calls at %s, want %s" % (sorted(calls), [c["index"] for c in expect["calls"]]))
out = []
for want in expect["calls"]:
    got = calls[want["index"]]
    text = "".join(got["fragments"])
    where = "call %d" % want["index"]
    if got["name"] != want["name"]:
        problem("%s: name %r, want %r" % (where, got["name"], want["name"]))
    if got["id"] != want["id"]:
        problem("%s: id %r, want %r" % (where, got["id"], want["id"]))
    if "input" in got:  # Anthropic, not streamed: an object
        value = got["input"]
        text = json.dumps(value, ensure_ascii=False)
        if want.get("unchanged"):
            if value != json.loads(want["upstream_arguments"]):
                problem("%s: input %s changed, want it as written" % (where, text))
        elif value != want["arguments"]:
            problem("%s: input %s, want %s" % (where, text, json.dumps(want["arguments"], ensure_ascii=False)))
    elif want.get("truncated") or want.get("unchanged"):
        if text != want["upstream_arguments"]:
            problem("%s: arguments %r, want them as written %r" % (where, text, want["upstream_arguments"]))
        if want.get("truncated"):
            try:
                json.loads(text)
                problem("%s: truncated arguments parse as JSON: %s" % (where, text))
            except ValueError:
                pass
    else:
        try:
            value = json.loads(text)
        except ValueError as e:
            problem("%s: arguments are not JSON (%s): %s" % (where, e, text))
        if value != want["arguments"]:
            problem("%s: arguments %s, want %s" % (where, text, json.dumps(want["arguments"], ensure_ascii=False)))
        if mode == "stream":
            if got["fragments"][0] != text or any(got["fragments"][1:]):
                problem("%s: repaired arguments in fragments %r, want them whole in the first" % (where, got["fragments"]))
    out.append({"index": want["index"], "name": got["name"], "arguments": text})
print(json.dumps(out, ensure_ascii=False))
EOF
check() { python3 "$work/check.py" "$@" || fail "check.py $*"; }
endpoint() { if [ "$1" = anthropic ]; then echo /v1/messages; else echo /v1/chat/completions; fi; }
# post ADDR API SCENARIO OUT [CURL_ARGS...]: posts the scenario's
# request.json as docs/proxy.md does; the answer goes to OUT, the status to
# standard output.
post() {
	local addr=$1 api=$2 scenario=$3 out=$4
	shift 4
	curl -sS -N --max-time 20 -o "$out" -w '%{http_code}' "$@" "http://$addr$(endpoint "$api")" \
		-H 'content-type: application/json' -d @"$fixtures/$api/$scenario/request.json"
}
# proxied API SCENARIO OUT [CURL_ARGS...]: post through the proxy, require
# a 200, and wait for the proxy's access log line of the request (written
# just after the answer) so the log can be checked.
requests=0
proxied() {
	local api=$1 scenario=$2 out=$3 status
	shift 3
	status=$(post "$proxy_addr" "$api" "$scenario" "$out" "$@") || fail "$api/$scenario: curl failed"
	[ "$status" = 200 ] || fail "$api/$scenario: status $status through the proxy: $(cat "$out")"
	requests=$((requests + 1))
	for _ in $(seq 1 1200); do # 2 minutes: only a hang guard
		[ "$(grep -c '"msg":"proxied request"' "$work/proxy.log")" -ge "$requests" ] && return 0
		sleep 0.1
	done
	fail "$api/$scenario: no access log line"
}
last_log() { grep -F '"msg":"tool call ' "$work/proxy.log" | tail -n "${1:-1}"; }

# The command line: help, and an upstream that cannot work.
out=$("$bin" proxy --help 2>&1) || fail "toolguard proxy --help exits $?"
expect "proxy --help" "$out" "Usage: toolguard proxy --upstream URL" "-upstream URL" "TOOLGUARD_PROXY_UPSTREAM" "(default 127.0.0.1:7701)"
for bad in "" "127.0.0.1:8081" "ftp://127.0.0.1:8081" "http://user:key@127.0.0.1:8081"; do
	set +e
	out=$("$bin" proxy --listen 127.0.0.1:0 --upstream "$bad" 2>&1)
	rc=$?
	set -e
	[ "$rc" = 2 ] || fail "--upstream '$bad': exit status $rc, want 2: $out"
	grep -qF "toolguard proxy: invalid configuration: upstream" <<<"$out" || fail "--upstream '$bad': $out"
done
ok "bad --upstream refused"

# The fake model server and the proxy, each on a port of its own choosing.
"$fake" --listen 127.0.0.1:0 --fixtures "$fixtures" 2>"$work/fake.log" &
fake_pid=$!
fake_addr=$(wait_addr "$work/fake.log" 's/.*listening on http:\/\/\([^,]*\),.*/\1/p' "$fake_pid" fakeupstream)
"$bin" proxy --listen 127.0.0.1:0 --upstream "http://$fake_addr" --metrics-listen 127.0.0.1:0 --log-format json 2>"$work/proxy.log" &
proxy_pid=$!
proxy_addr=$(wait_addr "$work/proxy.log" 's/.*"msg":"serving the proxy".*"address":"\([^"]*\)".*/\1/p' "$proxy_pid" proxy)
metrics_addr=$(wait_addr "$work/proxy.log" 's/.*"msg":"serving metrics".*"address":"\([^"]*\)".*/\1/p' "$proxy_pid" proxy)
echo "e2e-proxy: fake upstream at $fake_addr, proxy at $proxy_addr, metrics at $metrics_addr"

# The seed's case. From the fake server itself, the argument fragments are
# Python, as docs/proxy.md shows.
status=$(post "$fake_addr" openai python_dict_todowrite "$work/raw") || fail "fake upstream: curl failed"
[ "$status" = 200 ] || fail "fake upstream: status $status"
got=$(grep -o '"arguments":"[^}]*' "$work/raw" | head -6)
want='"arguments":""
"arguments":"{\""
"arguments":"todos"
"arguments":"\": "
"arguments":"[{'"'"'"
"arguments":"content"'
[ "$got" = "$want" ] || fail "the fake server's fragments are not docs/proxy.md's:"$'\n'"$got"
ok "fake upstream: Python-dict fragments"

# Through the proxy: valid JSON with the repaired content, in the first
# fragment, the others emptied; the log says what was repaired.
for api in openai anthropic; do
	proxied "$api" python_dict_todowrite "$work/out"
	calls=$(check "$api" stream "$fixtures/$api/python_dict_todowrite/expect.json" "$work/out")
	python3 -c '
import json, sys
(c,) = json.loads(sys.argv[1])
todos = json.loads(c["arguments"])["todos"]
assert c["name"] == "TodoWrite", c
assert [t["content"] for t in todos] == ["创建项目结构和主程序文件", "实现添加、删除和列出待办事项的功能", "编写单元测试"], todos
assert [t["status"] for t in todos] == ["in_progress", "pending", "pending"], todos
' "$calls" || fail "$api/python_dict_todowrite: repaired arguments: $calls"
	if [ "$api" = openai ]; then
		[ "$(tail -n 2 "$work/out")" = "data: [DONE]" ] || fail "the openai stream does not end with data: [DONE]"
	else
		[ "$(tail -n 3 "$work/out")" = $'event: message_stop\ndata: {"type":"message_stop"}' ] || fail "the anthropic stream does not end with message_stop"
	fi
	expect "$api stream: Python-dict TodoWrite repaired" "$(last_log)" '"msg":"tool call repaired"' "\"api\":\"$api\"" \
		'"tool":"TodoWrite","stream":true,"action":"repaired","repairs":["PYTHON_LITERAL"],"violations":[]'
	expect "$api access log" "$(grep -F '"msg":"proxied request"' "$work/proxy.log" | tail -n 1)" \
		"\"method\":\"POST\",\"path\":\"$(endpoint "$api")\",\"status\":200" "\"api\":\"$api\",\"tools_declared\":3,\"calls_repaired\":1"
done

# README.md's proxy example, run as printed (but for the address): its
# output must be the one printed. The command is the console block's line
# that starts with "$ curl" and the line it continues on; the output follows.
block=$(awk '/^```console$/ {inb = 1; next} inb && /^```$/ {inb = 0; next} inb' "$root/README.md" |
	awk '/^\$ curl .*127\.0\.0\.1:8080/ {m = 1} m')
cmd=$(sed -n '1,/| grep /p' <<<"$block" | sed '1s/^\$ //')
want=$(sed '1,/| grep /d' <<<"$block" | sed '/^\$ /,$d')
[ -n "$cmd" ] && [ -n "$want" ] || fail "README.md: the proxy example was not found"
got=$(cd "$root" && eval "${cmd//127.0.0.1:8080/$proxy_addr}") || fail "README.md's proxy example failed: $got"
[ "$got" = "$want" ] || fail "README.md's proxy example prints something else:"$'\n'"$(diff <(echo "$want") <(echo "$got"))"
requests=$((requests + 1))
for _ in $(seq 1 1200); do # 2 minutes: only a hang guard
	[ "$(grep -c '"msg":"proxied request"' "$work/proxy.log")" -ge "$requests" ] && break
	sleep 0.1
done
ok "README.md's proxy example, byte for byte"

# Without streaming.
for api in openai anthropic; do
	proxied "$api" python_dict_nonstream "$work/out"
	check "$api" json "$fixtures/$api/python_dict_nonstream/expect.json" "$work/out" >/dev/null
	expect "$api not streamed: repaired" "$(last_log)" '"msg":"tool call repaired"' '"stream":false,"action":"repaired"'
done

# The other scenarios docs/proxy.md names, as they come and cut into pieces of
# 1 to 8 bytes (what --split does on the fake server, asked per request).
for api in openai anthropic; do
	for scenario in two_calls_interleaved unicode_escape_split python_dict_todowrite; do
		for split in false true; do
			proxied "$api" "$scenario" "$work/out" -H "X-Fake-Split: $split"
			check "$api" stream "$fixtures/$api/$scenario/expect.json" "$work/out" >/dev/null
		done
		ok "$api/$scenario, split and not"
	done
done
grep -qF 'split=true' "$work/fake.log" || fail "the fake upstream never split a stream"

# What has nothing to repair comes out byte for byte, split or not.
for api in openai anthropic; do
	for scenario in no_tool_calls valid_args_unchanged valid_nonstream; do
		status=$(post "$fake_addr" "$api" "$scenario" "$work/raw") || fail "fake upstream: curl failed"
		[ "$status" = 200 ] || fail "fake upstream: $api/$scenario: status $status"
		for split in false true; do
			proxied "$api" "$scenario" "$work/out" -H "X-Fake-Split: $split"
			cmp -s "$work/raw" "$work/out" || fail "$api/$scenario (split $split) is not byte-identical to the upstream's answer:"$'\n'"$(diff "$work/raw" "$work/out" | head -20)"
		done
		ok "$api/$scenario byte for byte"
	done
done

# A call cut off by the token limit passes as it came, marked by a comment.
for api in openai anthropic; do
	status=$(post "$fake_addr" "$api" truncated_length "$work/raw") || fail "fake upstream: curl failed"
	[ "$status" = 200 ] || fail "fake upstream: $api/truncated_length: status $status"
	n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["calls"][0]["index"])' "$fixtures/$api/truncated_length/expect.json")
	proxied "$api" truncated_length "$work/out"
	check "$api" stream "$fixtures/$api/truncated_length/expect.json" "$work/out" >/dev/null
	python3 -c '
import sys
raw, out, n = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read(), sys.argv[3]
mark = b": toolguard: call " + n.encode() + b" truncated, not repaired\n\n"
assert out.count(mark) == 1, "no %r in the answer" % mark
assert out.replace(mark, b"", 1) == raw, "the answer is more than the upstream answer and the comment"
' "$work/raw" "$work/out" "$n" || fail "$api/truncated_length: marked"
	expect "$api truncated call passed through with ': toolguard: call $n truncated'" "$(last_log)" \
		'"msg":"tool call truncated: sent as written, not repaired"' "\"index\":$n" '"action":"truncated"' '"TRUNCATED"'
done

# The session header: each truncated call is a mistake, the third reaches
# the limit, a usable call resets the count.
for i in 1 2 3; do
	proxied openai truncated_length "$work/out" -H 'X-Toolguard-Session: e2e-task'
done
expect "session: limit reached" "$(last_log)" '"session_id":"e2e-task"' '"consecutive_mistakes":3,"limit_reached":true'
proxied openai python_dict_nonstream "$work/out" -H 'X-Toolguard-Session: e2e-task'
expect "session: reset by a usable call" "$(last_log)" '"session_id":"e2e-task"' '"consecutive_mistakes":0,"limit_reached":false'
proxied openai python_dict_nonstream "$work/out"
if last_log | grep -qF consecutive_mistakes; then fail "a call without the session header was counted: $(last_log)"; fi

# The metrics endpoint.
out=$(curl -sS --max-time 10 "http://$metrics_addr/metrics") || fail "metrics: curl failed"
metric() { # metric NAME{LABELS}: its value, 0 when absent
	awk -v m="$1" '$1 == m { print $2; found = 1 } END { if (!found) print 0 }' <<<"$out"
}
for series in 'toolguard_proxy_calls_total{action="repaired",api="openai",mode="enforce"}' 'toolguard_proxy_calls_total{action="repaired",api="anthropic",mode="enforce"}' \
	'toolguard_proxy_calls_total{action="truncated",api="openai",mode="enforce"}' 'toolguard_proxy_calls_total{action="truncated",api="anthropic",mode="enforce"}' \
	'toolguard_proxy_calls_total{action="unchanged",api="openai",mode="enforce"}' 'toolguard_verdicts_total{outcome="usable",tool="custom"}' \
	'toolguard_verdicts_total{outcome="unusable",tool="custom"}'; do
	v=$(metric "$series")
	python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)' "$v" || fail "metrics: $series is $v"$'\n'"$(grep '^toolguard_' <<<"$out")"
done
expect "metrics" "$out" 'toolguard_repairs_total{code="PYTHON_LITERAL"' 'go_goroutines'

# The fake upstream stops cleanly; the proxy then answers 502 in each API's
# error shape.
kill -TERM "$fake_pid"
if ! wait "$fake_pid"; then fail "the fake upstream did not exit cleanly on SIGTERM"; fi
fake_pid=""
for api in openai anthropic; do
	status=$(post "$proxy_addr" "$api" python_dict_nonstream "$work/out") || fail "curl failed"
	[ "$status" = 502 ] || fail "$api with the upstream gone: status $status, want 502"
	python3 -c '
import json, sys
doc = json.load(open(sys.argv[2]))
assert doc["error"]["type"] == "upstream_error", doc
assert sys.argv[1] == "openai" or doc["type"] == "error", doc
' "$api" "$work/out" || fail "$api with the upstream gone: $(cat "$work/out")"
done
ok "upstream gone: 502 in the API's error shape"

kill -TERM "$proxy_pid"
if ! wait "$proxy_pid"; then fail "the proxy did not exit cleanly on SIGTERM"; fi
proxy_pid=""
grep -qF '"msg":"proxy stopped"' "$work/proxy.log" || fail "no clean shutdown in the proxy's log"
ok "graceful shutdown"
echo "e2e-proxy: all checks passed"

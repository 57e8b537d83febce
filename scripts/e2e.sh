#!/usr/bin/env bash
# End-to-end check of the grpcurl examples: start a real server on a free
# loopback port, run README.md's example and compare its output byte for
# byte, make the calls of docs/api.md's session, assert the answers, then
# stop the server with SIGTERM and require a clean exit; then docs/security.md's
# token example against a server with a tokens file.
#
# usage: scripts/e2e.sh path/to/toolguard
set -euo pipefail

bin=$(realpath "${1:?usage: scripts/e2e.sh path/to/toolguard}")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pid=""
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

grpcurl() { (cd "$root" && go tool -modfile=tools/go.mod grpcurl "$@"); }
fail() { echo "e2e: FAIL: $*" >&2; echo "--- server log" >&2; cat "$work/server.log" >&2; exit 1; }
expect() { # expect NAME OUTPUT PATTERN...: every pattern must occur in OUTPUT
	local name=$1 out=$2; shift 2
	for pat in "$@"; do
		grep -qF -- "$pat" <<<"$out" || fail "$name: output lacks '$pat':"$'\n'"$out"
	done
	echo "e2e: ok: $name"
}

# Build grpcurl before the server starts so its first run is not timed.
grpcurl -version >/dev/null 2>&1 || true

# start_server [FLAGS...]: a server on a free loopback port; sets pid and addr.
start_server() {
	"$bin" serve --listen 127.0.0.1:0 --workspace "$work/workspace" --log-format json "$@" 2>"$work/server.log" &
	pid=$!
	addr=""
	for _ in $(seq 1 1200); do # 2 minutes: only a hang guard
		addr=$(sed -n 's/.*"msg":"serving gRPC".*"address":"\([^"]*\)".*/\1/p' "$work/server.log" | head -n 1)
		[ -n "$addr" ] && break
		kill -0 "$pid" 2>/dev/null || fail "server exited early"
		sleep 0.1
	done
	[ -n "$addr" ] || fail "server did not report its address"
	echo "e2e: server at $addr"
}

mkdir -p "$work/workspace"
start_server

out=$(grpcurl -plaintext "$addr" list)
expect "list" "$out" toolguard.v1.ToolGuardService grpc.health.v1.Health grpc.reflection.v1.ServerReflection

# The grpcurl alias of README.md and docs/api.md, defined in the root as
# printed, works from another directory.
alias_line=$(grep -o 'alias grpcurl="[^"]*"' "$root/README.md" | head -n 1)
[ -n "$alias_line" ] || fail "README.md: no grpcurl alias"
grep -qF "$alias_line" "$root/docs/api.md" || fail "docs/api.md's grpcurl alias is not README.md's: $alias_line"
out=$(cd "$root" && bash -O expand_aliases -c "$alias_line"$'\n'"cd '$work' && grpcurl -plaintext '$addr' list")
expect "the grpcurl alias outside the root" "$out" toolguard.v1.ToolGuardService

out=$(grpcurl -plaintext "$addr" grpc.health.v1.Health/Check)
expect "health" "$out" '"status": "SERVING"'

# README.md's example, run as printed (but for the address): its output must
# be the one printed. The block is the first console block after the
# sentence that introduces it; its command runs to the line naming the method.
block=$(awk '/^A `Write` call with Claude Code/ {m = 1} m && /^```console$/ {inb = 1; next} inb && /^```$/ {exit} inb' "$root/README.md")
cmd=$(sed -n '1,/toolguard\.v1\.ToolGuardService\//p' <<<"$block" | sed '1s/^\$ //')
want=$(sed '1,/toolguard\.v1\.ToolGuardService\//d' <<<"$block")
[ -n "$cmd" ] && [ -n "$want" ] || fail "README.md: the grpcurl example was not found"
got=$(eval "${cmd//127.0.0.1:7700/$addr}")
[ "$got" = "$want" ] || fail "README.md's grpcurl example prints something else:"$'\n'"$(diff <(echo "$want") <(echo "$got"))"
echo "e2e: ok: README.md's grpcurl example, byte for byte"
out=$(grpcurl -plaintext -d '{"session_id": "demo"}' "$addr" toolguard.v1.ToolGuardService/ResetSession)

# docs/api.md's session. A Write call with Claude Code's parameter names
# comes back as write_to_file.
out=$(grpcurl -plaintext -d '{
  "context": {"session_id": "demo"},
  "call": {"name": "Write", "arguments_text": "{\"file_path\": \"src/app.py\", \"text\": \"print(1)\\n\"}"}
}' "$addr" toolguard.v1.ToolGuardService/ValidateToolCall)
expect "repaired call" "$out" '"ok": true' '"toolName": "write_to_file"' '"path": "src/app.py"' \
	'"content": "print(1)\n"' '"code": "TOOL_ALIAS"' '"code": "ALIAS_RENAMED"'

# The same call without content, three times in a row, reaches the limit.
for i in 1 2 3; do
	out=$(grpcurl -plaintext -d '{
  "context": {"session_id": "demo"},
  "call": {"name": "Write", "arguments_text": "{\"file_path\": \"src/app.py\"}"}
}' "$addr" toolguard.v1.ToolGuardService/ValidateToolCall)
done
expect "rejected call" "$out" '"code": "MISSING_REQUIRED"' '"param": "content"' '"consecutive": 3' \
	'"limitReached": true' 'Stop retrying the same way'

out=$(grpcurl -plaintext -d '{"session_id": "demo"}' "$addr" toolguard.v1.ToolGuardService/GetSession)
expect "get session" "$out" '"consecutive": 3' '"exists": true'
out=$(grpcurl -plaintext -d '{"session_id": "demo"}' "$addr" toolguard.v1.ToolGuardService/ResetSession)
expect "reset session" "$out" '"sessionId": "demo"'

out=$(grpcurl -plaintext -d '{"model_id": "claude-sonnet-4-5"}' "$addr" toolguard.v1.ToolGuardService/ListTools)
expect "list tools" "$out" '"modelFamily": "native-next-gen"' '"name": "write_to_file"' '"absolutePath": {' \
	'"name": "apply_patch"' '"ApplyPatch"' '"apply_unified_patch"'

# ExecuteWrite writes inside the workspace; ExecuteEdit finds old text that
# drifted (smart quotes) and reports how.
out=$(grpcurl -plaintext -d '{
  "context": {"session_id": "demo"},
  "call": {"name": "Write", "arguments_text": "{\"file_path\": \"src/app.py\", \"content\": \"def main():\\n    print(\\\"hello\\\")\\n\"}"}
}' "$addr" toolguard.v1.ToolGuardService/ExecuteWrite)
expect "execute write" "$out" '"ok": true' '"kind": "FILE_CHANGE_KIND_CREATED"' '"path": "src/app.py"' \
	'"sha256": "7678d47f5bae' '"size": "31"' '"diff": "--- /dev/null\n+++ b/src/app.py\n@@ -0,0 +1,2 @@\n+def main():\n+    print(\"hello\")\n"'
[ "$(cat "$work/workspace/src/app.py")" = $'def main():\n    print("hello")' ] || fail "written file holds $(cat "$work/workspace/src/app.py")"
out=$(grpcurl -plaintext -d '{
  "context": {"session_id": "demo"},
  "call": {"name": "Edit", "arguments_text": "{\"file_path\": \"src/app.py\", \"old_string\": \"print(“hello”)\", \"new_string\": \"print(\\\"hi\\\")\"}"}
}' "$addr" toolguard.v1.ToolGuardService/ExecuteEdit)
expect "execute edit" "$out" '"status": "EDIT_STATUS_APPLIED"' '"strategy": "MATCH_STRATEGY_UNICODE"' '"applied": true' \
	'"line": 2' '"column": 5' '"kind": "FILE_CHANGE_KIND_MODIFIED"' '"previousSha256": "7678d4' '"sha256": "213a62' '"size": "28"' \
	'"diff": "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,2 @@\n def main():\n-    print(\"hello\")\n+    print(\"hi\")\n"'
[ "$(cat "$work/workspace/src/app.py")" = $'def main():\n    print("hi")' ] || fail "edited file holds $(cat "$work/workspace/src/app.py")"

# docs/read-file.md's example reads the file this session wrote and edited:
# run as printed (but for the address), its output must be the one printed.
block=$(awk '/^## grpcurl$/ {m = 1} m && /^```console$/ {inb = 1; next} inb && /^```$/ {exit} inb' "$root/docs/read-file.md")
cmd=$(sed -n '1,/toolguard\.v1\.ToolGuardService\//p' <<<"$block" | sed '1s/^\$ //')
want=$(sed '1,/toolguard\.v1\.ToolGuardService\//d' <<<"$block")
[ -n "$cmd" ] && [ -n "$want" ] || fail "docs/read-file.md: the grpcurl example was not found"
got=$(eval "${cmd//127.0.0.1:7700/$addr}")
[ "$got" = "$want" ] || fail "docs/read-file.md's grpcurl example prints something else:"$'\n'"$(diff <(echo "$want") <(echo "$got"))"
echo "e2e: ok: docs/read-file.md's grpcurl example, byte for byte"
out=$(grpcurl -plaintext -d '{
  "context": {"session_id": "exec2"},
  "call": {"name": "write_to_file", "arguments_text": "{\"path\": \"../escape.txt\", \"content\": \"x\"}"}
}' "$addr" toolguard.v1.ToolGuardService/ExecuteWrite)
expect "write outside the workspace" "$out" '"code": "OUTSIDE_WORKSPACE"'
[ ! -e "$work/escape.txt" ] || fail "a file was written outside the workspace"

# A streamed response: the call is shown while it arrives, then executed.
out=$(grpcurl -plaintext -d '{"start": {"context": {"session_id": "demo-stream"}, "format": "STREAM_FORMAT_XML_TAGS", "options": {"execute_on_complete": true}}}
{"delta": {"text": "Creating it.\n<write_to_file>\n<file_path>hello.py</file_path>\n<content>\nprint(\"hi"}}
{"delta": {"text": "\")\n</content>\n</write_to_file>"}}
{"end": {"finish_reason": "stop"}}' "$addr" toolguard.v1.ToolGuardService/StreamToolCalls)
expect "stream" "$out" '"text": "Creating it.\n"' '"toolName": "write_to_file"' '"rawName": "write_to_file"' '"known": true' \
	'"param": "path"' '"append": "hello.py"' '"append": "print(\"hi"' '"append": "\")"' '"ok": true' \
	'"detail": "\"file_path\" renamed to \"path\""' '"kind": "FILE_CHANGE_KIND_CREATED"' '"applied": true' '"finishReason": "stop"' '"calls": 1'
[ "$(cat "$work/workspace/hello.py")" = 'print("hi")' ] || fail "streamed file holds $(cat "$work/workspace/hello.py")"

# The caller's mistake is a status, not a verdict.
set +e
out=$(grpcurl -plaintext -d '{"call": {"name": "Write"}}' "$addr" toolguard.v1.ToolGuardService/ValidateToolCall 2>&1)
set -e
expect "missing session id" "$out" 'Code: InvalidArgument' 'Message: context.session_id: a session id is required'

kill -TERM "$pid"
if ! wait "$pid"; then fail "server did not exit cleanly on SIGTERM"; fi
pid=""
grep -qF '"msg":"server stopped"' "$work/server.log" || fail "no clean shutdown in the log"
echo "e2e: ok: graceful shutdown"

# docs/security.md's tokens: a random token, its hash from hash-token in a
# tokens file, and a server that wants it.
token=$(openssl rand -hex 32)
hash=$(printf %s "$token" | "$bin" hash-token)
printf 'tokens:\n  - principal: e2e\n    sha256: %s\n    workspaces: ["*"]\n' "$hash" >"$work/tokens.yaml"
start_server --auth-tokens-file "$work/tokens.yaml"
out=$(grpcurl -plaintext -H "authorization: Bearer $token" "$addr" toolguard.v1.ToolGuardService/ListTools)
expect "token accepted" "$out" '"name": "write_to_file"'
set +e
out=$(grpcurl -plaintext "$addr" toolguard.v1.ToolGuardService/ListTools 2>&1)
set -e
expect "no token refused" "$out" 'Code: Unauthenticated' 'TOKEN_REQUIRED'
kill -TERM "$pid"
if ! wait "$pid"; then fail "server with tokens did not exit cleanly on SIGTERM"; fi
pid=""
echo "e2e: all checks passed"

#!/usr/bin/env bash
# The CLI's JSON output is the same, byte for byte, from two builds: protojson
# varies its whitespace by a hash of the binary, which the CLI must not pass
# on. The second build differs from the first (make build's) in its version
# stamp only, so its hash differs; both stamps are checked on the way. Each command below prints protobuf JSON: indented for an
# answer, one compact line per event for a stream.
#
# usage: scripts/e2e_stable.sh path/to/toolguard
set -euo pipefail

first=$(realpath "${1:?usage: scripts/e2e_stable.sh path/to/toolguard}")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

second="$work/toolguard-second"
(cd "$root" && go build -ldflags "-X main.version=second-build-$$" -o "$second" ./cmd/toolguard)
cmp -s "$first" "$second" && { echo "e2e_stable: FAIL: the two builds are the same file" >&2; exit 1; }
# The stamps: make build's from VERSION, this one's from the flag.
want="toolguard v$(cat "$root/VERSION")"
[ "$("$first" --version)" = "$want" ] || { echo "e2e_stable: FAIL: $first --version: $("$first" --version), want $want (build it with make build)" >&2; exit 1; }
[ "$("$second" -v)" = "toolguard second-build-$$" ] || { echo "e2e_stable: FAIL: the second build's -v: $("$second" -v)" >&2; exit 1; }

mkdir -p "$work/ws"
printf 'line one\nline two\n' >"$work/ws/a.txt"
# run BINARY OUT: every command, its output and exit code in OUT.
run() {
	local bin=$1 out=$2
	{
		echo '{"file_path":"a.py","text":"x"}' | "$bin" validate --tool Write || echo "exit $?"
		echo "{'todos': [{'id': 1, 'content': 'ship', 'status': 'pending',}]}" | "$bin" repair || echo "exit $?"
		printf '%s\n' '{"delta":{"text":"<write_to_file><path>a.py</path><content>x = 1\n</content></write_to_file>"}}' |
			"$bin" stream --format xml_tags || echo "exit $?"
		"$bin" read --workspace "$work/ws" --path a.txt || echo "exit $?"
		"$bin" list-tools || echo "exit $?"
	} >"$out" 2>&1
}
run "$first" "$work/first.out"
run "$second" "$work/second.out"
if ! cmp "$work/first.out" "$work/second.out"; then
	diff "$work/first.out" "$work/second.out" | head -20 >&2
	echo "e2e_stable: FAIL: the two builds print different JSON" >&2
	exit 1
fi
grep -q '^  "ok": true,$' "$work/first.out" || { echo "e2e_stable: FAIL: no indented answer in the output:" >&2; cat "$work/first.out" >&2; exit 1; }
grep -q '^{"' "$work/first.out" || { echo "e2e_stable: FAIL: no compact event line in the output:" >&2; cat "$work/first.out" >&2; exit 1; }
echo "e2e_stable: ok: $(wc -l <"$work/first.out") lines, the same from two builds"

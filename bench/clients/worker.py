"""The Python side of bench/clients: reads one JSON command a line from
stdin ({"op": "getSession" | "validate", "n": count}), makes the calls one
after another and answers one JSON line with each call's time in µs, the
process's CPU time over them (every thread's, gRPC's own included), and for
ValidateToolCall how many calls came back right, wrong (of those, how many
only lost the file's final newline) or refused, judged as calls.mjs does.

usage: worker.py <address> <calls.json> [client|json_repair]
  json_repair: what a user would do instead, in process: the json_repair
  package (PyPI), then jsonschema against write_to_file's schema; no server.
"""

import json
import sys
import time

# repair/builtin_tools.yaml's write_to_file parameters (calls.mjs has the same).
WRITE_TO_FILE_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"],
    "additionalProperties": False,
}


class _Verdict:
    __slots__ = ("ok", "value")

    def __init__(self, ok, value=None):
        self.ok, self.value = ok, value


class InProcessPeer:
    """json_repair.loads, then a compiled jsonschema validator."""

    def __init__(self):
        import json_repair
        import jsonschema

        self._loads = json_repair.loads
        self._check = jsonschema.Draft202012Validator(WRITE_TO_FILE_SCHEMA)

    def validate(self, _name, arguments):
        try:
            value = self._loads(arguments)
        except Exception:  # noqa: BLE001 - any failure to repair is a refusal
            return _Verdict(False)
        if not self._check.is_valid(value):
            return _Verdict(False)
        return _Verdict(True, value)

    def get_session(self):
        return None

    def close(self):
        return None


def judge(got, intended):
    if got is None:
        return "refused"
    same = isinstance(got, dict) and len(got) == 2 and got.get("path") == intended["path"]
    content = got.get("content") if isinstance(got, dict) else None
    if same and content == intended["content"]:
        return "right"
    if same and isinstance(content, str) and content + "\n" == intended["content"]:
        return "newline"
    return "wrong"


def main() -> None:
    address, calls_file = sys.argv[1], sys.argv[2]
    kind = sys.argv[3] if len(sys.argv) > 3 else "client"
    with open(calls_file, encoding="utf-8") as f:
        calls = json.load(f)
    if kind == "json_repair":
        client = InProcessPeer()
    else:
        from toolguard_client import ToolGuardClient

        client = ToolGuardClient(address, session_id="bench-py", timeout=30)
    for line in sys.stdin:
        cmd = json.loads(line)
        us = []
        verdicts = []
        cpu = time.process_time_ns()
        for i in range(cmd["n"]):
            t = time.perf_counter_ns()
            if cmd["op"] == "getSession":
                client.get_session()
            else:
                c = calls[i % len(calls)]
                verdicts.append(client.validate(c["name"], c["arguments"]))
            us.append((time.perf_counter_ns() - t) / 1000)
        cpu = (time.process_time_ns() - cpu) / 1000
        # Judged after the timing: only the repair is timed.
        judged = {"right": 0, "wrong": 0, "newline": 0, "refused": 0}
        for i, v in enumerate(verdicts):
            got = None
            if v.ok:
                got = v.value if isinstance(v, _Verdict) else json.loads(v.arguments_json)
            j = judge(got, calls[i % len(calls)]["intended"])
            judged["wrong" if j == "newline" else j] += 1
            if j == "newline":
                judged["newline"] += 1
        print(json.dumps({"us": us, "cpu": cpu, "judged": judged}), flush=True)
    client.close()


if __name__ == "__main__":
    main()

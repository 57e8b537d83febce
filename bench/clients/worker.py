"""The Python client's side of bench/clients: reads one JSON command a line
from stdin ({"op": "getSession" | "validate", "n": count}), makes the calls
one after another and answers one JSON line with each call's time in µs
and the process's CPU time over them (every thread's, gRPC's own included)."""

import json
import sys
import time

from toolguard_client import ToolGuardClient


def main() -> None:
    address, calls_file = sys.argv[1], sys.argv[2]
    with open(calls_file, encoding="utf-8") as f:
        calls = json.load(f)
    client = ToolGuardClient(address, session_id="bench-py", timeout=30)
    for line in sys.stdin:
        cmd = json.loads(line)
        us = []
        cpu = time.process_time_ns()
        for i in range(cmd["n"]):
            t = time.perf_counter_ns()
            if cmd["op"] == "getSession":
                client.get_session()
            else:
                c = calls[i % len(calls)]
                v = client.validate(c["name"], c["arguments"])
                if not v.ok:
                    raise SystemExit(f"call {i % len(calls)} refused: {v.feedback}")
            us.append((time.perf_counter_ns() - t) / 1000)
        cpu = (time.process_time_ns() - cpu) / 1000
        print(json.dumps({"us": us, "cpu": cpu}), flush=True)
    client.close()


if __name__ == "__main__":
    main()

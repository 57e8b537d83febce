#!/usr/bin/python3
"""A short tour of toolguard_client against a running server.

    make run                                    # in another terminal
    /usr/bin/python3 clients/python/example.py 127.0.0.1:7700

Set TOOLGUARD_TOKEN for a server started with --auth-tokens-file.

Validates a broken call, shows the feedback for a model's mistake, writes a
file in the server's workspace and streams a response with an XML tool call.
"""

from __future__ import annotations

import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from toolguard_client import ToolGuardClient, ToolGuardError, arguments_dict, pb  # noqa: E402


def main(target: str) -> int:
    session = f"example-{uuid.uuid4().hex[:8]}"
    with ToolGuardClient(target, session_id=session, model_id="deepseek-chat", timeout=10,
                         token=os.environ.get("TOOLGUARD_TOKEN")) as tg:
        # 1. Claude Code's parameter names, written as a Python dict: repaired.
        raw = "{'file_path': 'src/hello.py', 'text': 'print(\"hello\")\\n'}"
        verdict = tg.validate("Write", raw)
        print(f"validate Write {raw}\n  ok={verdict.ok} tool={verdict.tool_name} arguments={arguments_dict(verdict)}")
        for r in verdict.repairs:
            print(f"  repair {r.code:<16} {r.param or '-':<8} {r.detail}")
        repaired = verdict

        # 2. A model's mistake is a verdict too, with feedback for the model.
        verdict = tg.validate("Write", '{"file_path": "src/hello.py"}')
        print(f"\nvalidate Write without content\n  ok={verdict.ok} mistakes in a row={verdict.mistakes.consecutive}")
        for v in verdict.violations:
            print(f"  violation {v.code} {v.param}: {v.message}")
        print("  feedback for the model:\n    " + verdict.feedback.rstrip().replace("\n", "\n    "))

        # 3. Execute the write in the server's workspace.
        resp = tg.write(repaired.tool_name, repaired.arguments_json)
        change = resp.change
        print(f"\nwrite: ok={resp.verdict.ok} {change.path} {pb.FileChangeKind.Name(change.kind)} "
              f"sha256={change.sha256[:12]}... size={change.size}")
        if resp.diff:
            print("  " + resp.diff.rstrip().replace("\n", "\n  "))

        # 4. Stream a model response with a Cline-style tool call, in pieces.
        response = ("I'll add a test.\n<write_to_file>\n<path>tests/test_hello.py</path>\n<content>\n"
                    "def test_hello():\n    assert True\n</content>\n</write_to_file>\n")
        chunks = [response[i:i + 7] for i in range(0, len(response), 7)]
        print("\nstream xml_tags:")
        try:
            for event in tg.stream("xml_tags", chunks, finish_reason="stop"):
                kind = event.WhichOneof("event")
                if kind == "text":
                    print(f"  text          {event.text.text!r}")
                elif kind == "call_started":
                    print(f"  call_started  #{event.call_started.index} {event.call_started.tool_name}")
                elif kind == "param_update":
                    u = event.param_update
                    print(f"  param_update  #{u.index} {u.param} += {u.append or u.value_json!r}")
                elif kind == "call_complete":
                    c = event.call_complete
                    print(f"  call_complete #{c.index} ok={c.verdict.ok} truncated={c.truncated} "
                          f"arguments={arguments_dict(c.verdict)}")
                elif kind == "error":
                    print(f"  error         {event.error.code}: {event.error.message}")
                elif kind == "done":
                    print(f"  done          finish_reason={event.done.finish_reason} calls={event.done.calls}")
        except ToolGuardError as err:
            print(f"  stream failed: {err}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:7700"))

#!/usr/bin/python3
"""guard_tool_call on the plain dicts an agent loop holds, OpenAI- and
Anthropic-shaped, against a running server:

    make run                                    # in another terminal
    /usr/bin/python3 clients/python/example_calls.py 127.0.0.1:7700

Set TOOLGUARD_TOKEN for a server started with --auth-tokens-file. No model
and no SDK: the calls below are what a model's answer holds, as dicts.
"""

from __future__ import annotations

import json
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from toolguard_client import ToolGuardClient, guard_tool_call  # noqa: E402

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
          "required": ["path", "content"], "additionalProperties": False}
# The tools the model was given, in each API's shape.
OPENAI_TOOLS = [{"type": "function", "function": {"name": "Write", "parameters": SCHEMA}}]
ANTHROPIC_TOOLS = [{"name": "Write", "input_schema": SCHEMA}]


def main(target: str) -> int:
    session = f"example-calls-{uuid.uuid4().hex[:8]}"
    with ToolGuardClient(target, session_id=session, timeout=10, token=os.environ.get("TOOLGUARD_TOKEN")) as tg:
        # An OpenAI chat completion's tool_calls: a Python dict and an alias.
        message = {"role": "assistant", "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "Write", "arguments": "{'file_path': 'hello.py', 'content': 'print(1)'}"}},
            {"id": "call_2", "type": "function", "function": {"name": "Write", "arguments": '{"path": "b.py"}'}},
        ]}
        history = [message]
        for call in message["tool_calls"]:
            g = guard_tool_call(tg, call, tools=OPENAI_TOOLS)
            if g.ok:
                print(f"openai    run   {json.dumps(g.call)}")
                print(f"          repairs {[r.code for r in g.verdict.repairs]}")
                history.append({"role": "tool", "tool_call_id": call["id"], "content": "written"})
            else:
                print(f"openai    reply {json.dumps(g.feedback)[:160]}...")
                history.append(g.feedback)

        # An Anthropic message's content: a tool_use block with an extra
        # parameter, answered with a tool_result block marked is_error.
        block = {"type": "tool_use", "id": "toolu_1", "name": "Write",
                 "input": {"path": "c.py", "content": "x", "append": True}}
        g = guard_tool_call(tg, block, tools=ANTHROPIC_TOOLS)
        print(f"anthropic ok={g.ok} reply {json.dumps(g.feedback)[:160]}...")
        print(f"          violations {[v.code for v in g.verdict.violations]}, "
              f"mistakes in a row {g.verdict.mistakes.consecutive}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))

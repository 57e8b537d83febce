"""Tests of guard_tool_call against a real toolguard server, with plain
dicts in OpenAI's and Anthropic's shapes (no SDK: none is imported by the
helper, nor needed here). The server is started as test_client.py starts
it.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import unittest
from typing import Any

from test_client import CLIENT_ROOT, ServerTestCase, setUpModule, tearDownModule  # noqa: F401  (the server's binary)

from toolguard_client import GuardedCall, ToolGuardError, guard_tool_call, pb

WRITE_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"],
    "additionalProperties": False,
}
OPENAI_TOOLS = [{"type": "function", "function": {"name": "Write", "description": "write a file",
                                                  "parameters": WRITE_SCHEMA, "strict": False}}]
ANTHROPIC_TOOLS = [{"name": "Write", "description": "write a file", "input_schema": WRITE_SCHEMA,
                    "cache_control": {"type": "ephemeral"}}]


def openai_call(name: str, arguments: Any, call_id: str = "call_1") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def tool_use(name: str, input: Any, call_id: str = "toolu_1") -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": input}


class GuardToolCallTest(ServerTestCase):
    def guard(self, call: dict[str, Any], tools: Any = None, session: str = "") -> GuardedCall:
        """Guards call in the test's session, or in a session of its own
        (a table's cases are not one model's turns)."""
        given = copy.deepcopy(call)
        client = self.client.with_session(f"{self.session_id}-{session}") if session else self.client
        g = guard_tool_call(client, call, tools=tools)
        self.assertEqual(call, given, "the call given was changed in place")
        self.assertEqual(g.ok, g.feedback is None)
        return g

    def test_openai_calls(self) -> None:
        cases = [
            # (name, call, tools, ok, name out, arguments out (a value), repair codes)
            ("valid", openai_call("Write", '{"path": "a.py", "content": "x = 1\\n"}'), OPENAI_TOOLS,
             True, "Write", {"path": "a.py", "content": "x = 1\n"}, []),
            ("python dict", openai_call("Write", "{'path': 'a.py', 'content': 'x'}"), OPENAI_TOOLS,
             True, "Write", {"path": "a.py", "content": "x"}, ["PYTHON_LITERAL"]),
            ("alias and case", openai_call("write", '{"file_path": "a.py", "content": "x"}'), OPENAI_TOOLS,
             True, "Write", {"path": "a.py", "content": "x"}, ["TOOL_ALIAS", "ALIAS_RENAMED"]),
            ("wrong case", openai_call("WRITE", '{"path": "a.py", "content": "x"}'), OPENAI_TOOLS,
             True, "Write", {"path": "a.py", "content": "x"}, ["TOOL_ALIAS"]),
            ("built-in tools", openai_call("Write", "{'file_path': 'a.py', 'text': 'x'}"), None,
             True, "write_to_file", {"path": "a.py", "content": "x"}, ["PYTHON_LITERAL", "TOOL_ALIAS", "ALIAS_RENAMED"]),
            ("missing content", openai_call("Write", '{"path": "a.py"}'), OPENAI_TOOLS,
             False, "Write", None, []),
            ("not the agent's tool", openai_call("create_file", '{"path": "a.py", "content": "x"}'), OPENAI_TOOLS,
             False, "create_file", None, []),
        ]
        for name, call, tools, ok, name_out, args_out, codes in cases:
            with self.subTest(name):
                g = self.guard(call, tools, session=name)
                self.assertEqual(g.ok, ok, g.feedback)
                self.assertEqual(g.call["id"], call["id"])
                self.assertEqual(g.call["type"], "function")
                self.assertEqual(g.call["function"]["name"], name_out)
                self.assertEqual(g.repaired, bool(codes))
                for code in codes:
                    self.assertIn(code, [r.code for r in g.verdict.repairs])
                if ok:
                    self.assertIsInstance(g.call["function"]["arguments"], str)
                    self.assertEqual(json.loads(g.call["function"]["arguments"]), args_out)
                else:
                    self.assertEqual(g.call, call)
                    self.assertEqual(set(g.feedback), {"role", "tool_call_id", "content"})
                    self.assertEqual((g.feedback["role"], g.feedback["tool_call_id"]), ("tool", call["id"]))
                    self.assertIn("could not be used", g.feedback["content"])
                    self.assertIn(call["function"]["name"], g.feedback["content"])

    def test_anthropic_calls(self) -> None:
        cases = [
            ("valid", tool_use("Write", {"path": "a.py", "content": "x"}), ANTHROPIC_TOOLS,
             True, "Write", {"path": "a.py", "content": "x"}, []),
            ("alias", tool_use("Write", {"file_path": "a.py", "content": "x"}), ANTHROPIC_TOOLS,
             True, "Write", {"path": "a.py", "content": "x"}, ["ALIAS_RENAMED"]),
            ("raw_arguments", tool_use("Write", {"raw_arguments": '{"path": "a.py", "content": "x"}'}), ANTHROPIC_TOOLS,
             True, "Write", {"path": "a.py", "content": "x"}, ["RAW_ARGUMENTS_UNWRAPPED"]),
            ("unexpected parameter", tool_use("Write", {"path": "a.py", "content": "x", "append": True}),
             ANTHROPIC_TOOLS, False, "Write", None, []),
            ("empty input", tool_use("Write", {}), ANTHROPIC_TOOLS, False, "Write", None, []),
        ]
        for name, call, tools, ok, name_out, input_out, codes in cases:
            with self.subTest(name):
                g = self.guard(call, tools, session=name)
                self.assertEqual(g.ok, ok, g.feedback)
                self.assertEqual((g.call["type"], g.call["id"], g.call["name"]), ("tool_use", call["id"], name_out))
                for code in codes:
                    self.assertIn(code, [r.code for r in g.verdict.repairs])
                if ok:
                    self.assertEqual(g.call["input"], input_out)
                else:
                    self.assertEqual(g.call, call)
                    self.assertEqual(g.feedback["type"], "tool_result")
                    self.assertEqual(g.feedback["tool_use_id"], call["id"])
                    self.assertIs(g.feedback["is_error"], True)
                    self.assertIn("could not be used", g.feedback["content"])

    def test_arguments_parsed_by_a_framework_stay_a_dict(self) -> None:
        g = self.guard(openai_call("Write", {"file_path": "a.py", "content": "x"}), OPENAI_TOOLS)
        self.assertTrue(g.ok, g.feedback)
        self.assertEqual(g.call["function"]["arguments"], {"path": "a.py", "content": "x"})

    def test_mistakes_count_in_the_session(self) -> None:
        bad = openai_call("Write", '{"path": "a.py"}')
        for want in (1, 2, 3):
            g = self.guard(bad, OPENAI_TOOLS)
            self.assertEqual(g.verdict.mistakes.consecutive, want)
        self.assertTrue(g.verdict.mistakes.limit_reached)
        g = self.guard(openai_call("Write", '{"path": "a.py", "content": ""}'), OPENAI_TOOLS)
        self.assertTrue(g.ok, g.feedback)
        self.assertEqual(g.verdict.mistakes.consecutive, 0)

    def test_tool_definitions_as_messages(self) -> None:
        tool = pb.ToolDefinition(name="Save")
        tool.parameters.update(WRITE_SCHEMA)
        g = self.guard(tool_use("save", {"path": "a", "content": "b"}), [tool])
        self.assertTrue(g.ok, g.feedback)
        self.assertEqual(g.call["name"], "Save")

    def test_not_a_tool_call(self) -> None:
        for call in ({}, {"type": "text", "text": "hi"}, {"role": "assistant", "content": "hi"},
                     {"type": "function", "name": "Write"}):
            with self.subTest(call=call):
                with self.assertRaises(ValueError):
                    guard_tool_call(self.client, call)

    def test_a_bad_tool_definition_is_the_callers_mistake(self) -> None:
        with self.assertRaises((ValueError, ToolGuardError)):
            guard_tool_call(self.client, tool_use("Write", {}), tools=[{"name": "Write", "input_schema": {"type": 7}}])


class ExampleTest(ServerTestCase):
    def test_example_runs_as_docs_say(self) -> None:
        """docs/integrations.md's command, against this class's server."""
        out = subprocess.run([sys.executable, str(CLIENT_ROOT / "example_calls.py"), self.server.address],
                             capture_output=True, text=True, check=True).stdout
        lines = out.splitlines()
        self.assertTrue(lines[0].startswith('openai    run   {"id": "call_1", "type": "function", '
                                            '"function": {"name": "Write", "arguments": '), out)
        self.assertIn("repairs ['PYTHON_LITERAL', 'ALIAS_RENAMED']", lines[1])
        self.assertTrue(lines[2].startswith('openai    reply {"role": "tool", "tool_call_id": "call_2"'), out)
        self.assertTrue(lines[3].startswith('anthropic ok=False reply {"type": "tool_result", "tool_use_id": "toolu_1"'), out)
        self.assertIn("violations ['UNEXPECTED_PARAM'], mistakes in a row 2", lines[4])


class NoSDKTest(unittest.TestCase):
    def test_the_helper_imports_no_sdk(self) -> None:
        import ast
        import inspect

        from toolguard_client import calls

        tree = ast.parse(inspect.getsource(calls))
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {(node.module or "").split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.level == 0}
        self.assertLessEqual(imported, {"__future__", "copy", "json", "dataclasses", "typing"})


if __name__ == "__main__":
    unittest.main()

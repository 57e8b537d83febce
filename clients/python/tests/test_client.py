"""End-to-end tests of toolguard_client against a real toolguard server.

Run from the repository root with Debian's interpreter:

    /usr/bin/python3 -m unittest discover -s clients/python/tests -v

The module builds the server once (``go build ./cmd/toolguard``; set
TOOLGUARD_BIN to use a binary already built). Each test class starts its own
``toolguard serve --listen 127.0.0.1:0`` on a fresh workspace, reads the
address from the JSON log line "serving gRPC", and stops it with SIGTERM at
the end, requiring a clean exit.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import uuid
from concurrent import futures
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

HERE = Path(__file__).resolve().parent
CLIENT_ROOT = HERE.parent
REPO_ROOT = CLIENT_ROOT.parent.parent
sys.path.insert(0, str(CLIENT_ROOT))

import grpc  # noqa: E402
from google.protobuf import duration_pb2  # noqa: E402

import toolguard_client  # noqa: E402

from toolguard_client import (  # noqa: E402
    ToolGuardClient,
    ToolGuardError,
    arguments_dict,
    error_details_pb2,
    pb,
    pb_grpc,
    status_pb2,
    stream_delta,
    stream_format,
    tool_call_delta,
    tool_definition,
)

_build_dir: tempfile.TemporaryDirectory[str] | None = None
_server_bin: str = ""


def _go() -> str:
    go = shutil.which("go") or "/usr/local/go/bin/go"
    if not os.path.exists(go):
        raise RuntimeError("go not found on PATH nor at /usr/local/go/bin/go; set TOOLGUARD_BIN")
    return go


def setUpModule() -> None:
    global _build_dir, _server_bin
    prebuilt = os.environ.get("TOOLGUARD_BIN")
    if prebuilt:
        _server_bin = os.path.abspath(prebuilt)
        return
    _build_dir = tempfile.TemporaryDirectory(prefix="toolguard-bin-")
    _server_bin = os.path.join(_build_dir.name, "toolguard")
    subprocess.run([_go(), "build", "-o", _server_bin, "./cmd/toolguard"], cwd=REPO_ROOT, check=True)


def tearDownModule() -> None:
    if _build_dir is not None:
        _build_dir.cleanup()


class Server:
    """A toolguard server process on a free loopback port."""

    def __init__(self, binary: str, *extra_args: str,
                 prepare: Callable[[Path], Sequence[str]] | None = None) -> None:
        """Starts ``toolguard serve`` with extra_args, and the flags
        ``prepare`` returns: it is called first with the server's temporary
        folder (removed at stop), to write the files those flags name."""
        self.dir = tempfile.TemporaryDirectory(prefix="toolguard-test-")
        self.path = Path(self.dir.name)
        self.workspace = self.path / "workspace"
        self.workspace.mkdir()
        self.log_path = self.path / "server.log"
        try:
            more = list(prepare(self.path)) if prepare else []
        except BaseException:
            self.dir.cleanup()
            raise
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [binary, "serve", "--listen", "127.0.0.1:0", "--workspace", str(self.workspace),
             "--log-format", "json", *extra_args, *more],
            stdout=subprocess.DEVNULL, stderr=self._log)
        self.address = self._wait_for_address()

    def _wait_for_address(self) -> str:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for line in self.log_path.read_text(errors="replace").splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("msg") == "serving gRPC" and entry.get("address"):
                    return str(entry["address"])
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited early ({self.proc.returncode}):\n{self.log()}")
            time.sleep(0.05)
        self.proc.kill()
        raise RuntimeError(f"server did not report its address:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> tuple[int, str]:
        """SIGTERM, wait; returns the exit status and the log."""
        try:
            self.proc.send_signal(signal.SIGTERM)
            try:
                code = self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                code = self.proc.wait()
            return code, self.log()
        finally:
            self._log.close()
            self.dir.cleanup()


class ServerTestCase(unittest.TestCase):
    """Starts a server for the class; stops it at the end and requires a
    clean exit."""

    server: Server
    server_args: tuple[str, ...] = ()

    @classmethod
    def prepare_server(cls, folder: Path) -> Sequence[str]:
        """Writes the files a class's server needs into its folder and
        returns the flags that name them; none by default."""
        return ()

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = Server(_server_bin, *cls.server_args, prepare=cls.prepare_server)

    @classmethod
    def tearDownClass(cls) -> None:
        code, log = cls.server.stop()
        if code != 0 or '"msg":"server stopped"' not in log:
            raise AssertionError(f"server did not exit cleanly on SIGTERM (status {code}):\n{log}")

    def setUp(self) -> None:
        self.session_id = f"{type(self).__name__}-{self._testMethodName}-{uuid.uuid4().hex[:8]}"
        self.client = ToolGuardClient(self.server.address, session_id=self.session_id, timeout=30)
        self.addCleanup(self.client.close)

    def assertCodes(self, items: Any, *codes: str) -> None:
        self.assertEqual([i.code for i in items], list(codes))


class ValidateToolCallTest(ServerTestCase):
    def test_ok_call_needs_no_repair(self) -> None:
        v = self.client.validate("write_to_file", '{"path": "a.py", "content": "x = 1\\n"}', call_id="call_7")
        self.assertTrue(v.ok)
        self.assertEqual(v.tool_name, "write_to_file")
        self.assertEqual(arguments_dict(v), {"path": "a.py", "content": "x = 1\n"})
        self.assertEqual(len(v.repairs), 0)
        self.assertEqual(len(v.violations), 0)
        self.assertEqual(v.feedback, "")
        self.assertEqual(v.call_id, "call_7")
        self.assertEqual(v.form, pb.ARGUMENTS_FORM_TEXT)
        self.assertEqual(v.mistakes.consecutive, 0)

    def test_repaired_call_lists_its_repairs(self) -> None:
        # Claude Code's names in a Python dict, as a model might write it.
        v = self.client.validate("Write", "{'file_path': 'src/app.py', 'text': 'print(\"hi\")\\n'}")
        self.assertTrue(v.ok, v.feedback)
        self.assertEqual(v.tool_name, "write_to_file")
        self.assertEqual(arguments_dict(v), {"path": "src/app.py", "content": 'print("hi")\n'})
        self.assertEqual(v.arguments["path"], "src/app.py")
        repairs = {(r.code, r.param) for r in v.repairs}
        self.assertLessEqual({("PYTHON_LITERAL", ""), ("TOOL_ALIAS", ""), ("ALIAS_RENAMED", "path"),
                              ("ALIAS_RENAMED", "content")}, repairs)
        self.assertTrue(all(r.detail for r in v.repairs))

    def test_model_mistake_is_a_verdict_with_feedback(self) -> None:
        v = self.client.validate("Write", '{"file_path": "src/app.py"}')
        self.assertFalse(v.ok)
        self.assertCodes(v.violations, "MISSING_REQUIRED")
        self.assertEqual(v.violations[0].param, "content")
        self.assertIn('Missing required parameter "content"', v.feedback)
        self.assertIn("Correct usage", v.feedback)
        self.assertEqual(v.mistakes.consecutive, 1)
        self.assertEqual(v.mistakes.limit, 3)
        self.assertFalse(v.mistakes.limit_reached)

    def test_unknown_tool(self) -> None:
        v = self.client.validate("launch_rocket", "{}")
        self.assertFalse(v.ok)
        self.assertCodes(v.violations, "UNKNOWN_TOOL")
        self.assertEqual(v.tool_name, "launch_rocket")

    def test_params_and_xml_block_forms(self) -> None:
        v = self.client.validate("Write", params={"file_path": "a.py", "content": "y"})
        self.assertTrue(v.ok, v.feedback)
        self.assertEqual(v.form, pb.ARGUMENTS_FORM_PARAMS)
        v = self.client.validate(xml_block="<write_to_file><path>a.py</path><content>\nx\n</content></write_to_file>")
        self.assertTrue(v.ok, v.feedback)
        self.assertEqual(v.form, pb.ARGUMENTS_FORM_XML)
        self.assertEqual(arguments_dict(v), {"path": "a.py", "content": "x"})

    def test_custom_tool(self) -> None:
        tool = {
            "name": "add_semantic_memory",
            "description": "Store a semantic memory.",
            "aliases": ["remember"],
            "content_params": ["xml_memory"],
            "param_aliases": {"user_message": ["message"]},
            "parameters": {
                "type": "object",
                "properties": {"xml_memory": {"type": "string"}, "user_message": {"type": "string"}},
                "required": ["xml_memory", "user_message"],
            },
        }
        v = self.client.validate("remember", '{"xml_memory": "<m>tea</m>", "message": "likes tea"}', tools=[tool])
        self.assertTrue(v.ok, v.feedback)
        self.assertEqual(v.tool_name, "add_semantic_memory")
        self.assertEqual(arguments_dict(v), {"xml_memory": "<m>tea</m>", "user_message": "likes tea"})
        self.assertIn(("TOOL_ALIAS", ""), {(r.code, r.param) for r in v.repairs})
        self.assertIn(("ALIAS_RENAMED", "user_message"), {(r.code, r.param) for r in v.repairs})
        # The same tool in OpenAI's shape; a required parameter missing.
        openai_tool = {"type": "function", "function": {k: tool[k] for k in ("name", "description", "parameters")}}
        v = self.client.validate("add_semantic_memory", '{"xml_memory": "<m/>"}', tools=[openai_tool])
        self.assertFalse(v.ok)
        self.assertCodes(v.violations, "MISSING_REQUIRED")

    def test_missing_session_id_is_the_callers_mistake(self) -> None:
        with self.client.with_session("") as anonymous:
            with self.assertRaises(ToolGuardError) as caught:
                anonymous.validate("Write", "{}")
        err = caught.exception
        self.assertEqual(err.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual(err.reason, "SESSION_ID_REQUIRED")
        self.assertEqual(err.domain, "toolguard.dev")
        self.assertIn("session id is required", err.message)
        self.assertEqual([(f.field, f.reason) for f in err.field_violations],
                         [("context.session_id", "SESSION_ID_REQUIRED")])
        self.assertIsNotNone(err.status)
        self.assertIn("SESSION_ID_REQUIRED", str(err))

    def test_invalid_tool_definition(self) -> None:
        with self.assertRaises(ToolGuardError) as caught:
            self.client.validate("x", "{}", tools=[{"name": "x", "parameters": {"type": "string"}}])
        err = caught.exception
        self.assertEqual(err.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual(err.reason, "INVALID_TOOL_DEFINITION")
        self.assertEqual(err.metadata, {"tool": "x"})
        self.assertEqual([f.field for f in err.field_violations], ["tools[0]"])


class ListToolsTest(ServerTestCase):
    def test_generic_family(self) -> None:
        resp = self.client.list_tools()
        self.assertEqual(resp.model_family, "generic")
        names = [t.definition.name for t in resp.tools]
        self.assertEqual(names, sorted(names))
        for name in ("write_to_file", "edit", "multi_edit", "replace_in_file", "apply_patch", "todo_write"):
            self.assertIn(name, names)
        write = next(t for t in resp.tools if t.definition.name == "write_to_file")
        self.assertTrue(write.builtin)
        self.assertIn("Write", write.definition.aliases)
        self.assertEqual(write.openai_tool["type"], "function")
        self.assertEqual(write.openai_tool["function"]["name"], "write_to_file")
        self.assertEqual(write.anthropic_tool["name"], "write_to_file")
        self.assertIn("path", write.anthropic_tool["input_schema"]["properties"])
        self.assertIn("path", write.definition.parameters["properties"])
        self.assertIn("<write_to_file>", write.xml_usage)

    def test_model_family_variant(self) -> None:
        resp = self.client.list_tools("claude-sonnet-4-5")
        self.assertEqual(resp.model_family, "native-next-gen")
        write = next(t for t in resp.tools if t.definition.name == "write_to_file")
        self.assertIn("absolutePath", write.definition.parameters["properties"])


class SessionTest(ServerTestCase):
    def test_mistakes_are_counted_and_reset(self) -> None:
        fresh = self.client.get_session()
        self.assertFalse(fresh.exists)
        self.assertEqual(fresh.mistakes.consecutive, 0)

        for _ in range(3):
            v = self.client.validate("Write", '{"file_path": "src/app.py"}')
        self.assertFalse(v.ok)
        self.assertCodes(v.violations, "MISSING_REQUIRED", "REPEATED_CALL")
        self.assertEqual(v.mistakes.consecutive, 3)
        self.assertTrue(v.mistakes.limit_reached)
        self.assertIn("Stop retrying the same way", v.feedback)

        s = self.client.get_session()
        self.assertTrue(s.exists)
        self.assertEqual(s.session_id, self.session_id)
        self.assertEqual(s.mistakes.consecutive, 3)
        self.assertTrue(s.mistakes.limit_reached)
        self.assertGreater(s.last_seen.seconds, 0)

        reset = self.client.reset_session()
        self.assertEqual(reset.session_id, self.session_id)
        self.assertEqual(reset.mistakes.consecutive, 0)
        self.assertFalse(self.client.get_session().exists)

    def test_a_usable_call_resets_the_counter(self) -> None:
        self.assertEqual(self.client.validate("Write", "{}").mistakes.consecutive, 1)
        self.assertEqual(self.client.validate("Write", '{"path": "a"}').mistakes.consecutive, 2)
        v = self.client.validate("Write", '{"path": "a", "content": "b"}')
        self.assertTrue(v.ok)
        self.assertEqual(v.mistakes.consecutive, 0)
        self.assertEqual(self.client.get_session().mistakes.consecutive, 0)

    def test_request_may_lower_the_limit(self) -> None:
        with self.client.with_session(self.session_id, mistake_limit=1) as strict:
            v = strict.validate("Write", "{}")
        self.assertEqual(v.mistakes.limit, 1)
        self.assertTrue(v.mistakes.limit_reached)

    def test_get_session_without_id(self) -> None:
        with self.assertRaises(ToolGuardError) as caught:
            self.client.get_session("")
        self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual(caught.exception.reason, "SESSION_ID_REQUIRED")


class ExecuteTest(ServerTestCase):
    def test_write_creates_the_file(self) -> None:
        resp = self.client.write("Write", '{"file_path": "src/new.py", "content": "print(\\"hello\\")\\n"}')
        self.assertTrue(resp.verdict.ok, resp.verdict.feedback)
        self.assertEqual(resp.change.path, "src/new.py")
        self.assertEqual(resp.change.kind, pb.FILE_CHANGE_KIND_CREATED)
        content = b'print("hello")\n'
        self.assertEqual(resp.change.sha256, hashlib.sha256(content).hexdigest())
        self.assertEqual(resp.change.size, len(content))
        self.assertIn('+print("hello")', resp.diff)
        self.assertEqual((self.server.workspace / "src" / "new.py").read_bytes(), content)

    def test_dry_run_writes_nothing(self) -> None:
        resp = self.client.write(arguments={"path": "dry.txt", "content": "x"}, dry_run=True)
        self.assertTrue(resp.verdict.ok, resp.verdict.feedback)
        self.assertEqual(resp.change.kind, pb.FILE_CHANGE_KIND_CREATED)
        self.assertFalse((self.server.workspace / "dry.txt").exists())

    def test_path_outside_the_workspace_is_a_verdict(self) -> None:
        resp = self.client.write("write_to_file", '{"path": "../escape.txt", "content": "x"}')
        self.assertFalse(resp.verdict.ok)
        self.assertCodes(resp.verdict.violations, "OUTSIDE_WORKSPACE")
        self.assertTrue(resp.verdict.feedback)
        self.assertEqual(resp.verdict.mistakes.consecutive, 1)
        self.assertFalse(resp.HasField("change"))
        self.assertFalse((self.server.workspace.parent / "escape.txt").exists())

    def test_expected_sha256_mismatch_is_failed_precondition(self) -> None:
        (self.server.workspace / "held.txt").write_text("one\n")
        with self.assertRaises(ToolGuardError) as caught:
            self.client.write(arguments={"path": "held.txt", "content": "two\n"},
                              expected_sha256=hashlib.sha256(b"zero\n").hexdigest())
        err = caught.exception
        self.assertEqual(err.code, grpc.StatusCode.FAILED_PRECONDITION)
        self.assertEqual(err.reason, "FILE_CHANGED")
        self.assertEqual(err.metadata, {"path": "held.txt"})
        self.assertEqual([(p.type, p.subject) for p in err.precondition_violations], [("FILE_CHANGED", "held.txt")])
        self.assertEqual((self.server.workspace / "held.txt").read_text(), "one\n")

    def test_edit_applies(self) -> None:
        path = self.server.workspace / "app.py"
        path.write_text('def main():\n    print("hello")\n')
        before = hashlib.sha256(path.read_bytes()).hexdigest()
        # Curly quotes in old_string: found by the UNICODE rung.
        resp = self.client.edit("Edit", json.dumps({"file_path": "app.py", "old_string": "print(\u201chello\u201d)",
                                                    "new_string": 'print("hi")'}), expected_sha256=before)
        self.assertTrue(resp.verdict.ok, resp.verdict.feedback)
        self.assertTrue(resp.applied)
        self.assertEqual(len(resp.edits), 1)
        self.assertEqual(resp.edits[0].status, pb.EDIT_STATUS_APPLIED)
        self.assertEqual(resp.edits[0].strategy, pb.MATCH_STRATEGY_UNICODE)
        self.assertEqual((resp.edits[0].line, resp.edits[0].column), (2, 5))
        self.assertEqual([(c.path, c.kind, c.previous_sha256) for c in resp.changes],
                         [("app.py", pb.FILE_CHANGE_KIND_MODIFIED, before)])
        self.assertIn('+    print("hi")', resp.diff)
        self.assertEqual(path.read_text(), 'def main():\n    print("hi")\n')

    def test_move_then_undo(self) -> None:
        (self.server.workspace / "mv.txt").write_text("moved\n")
        resp = self.client.edit("move_file", {"source": "mv.txt", "destination": "sub/mv.txt"})
        self.assertTrue(resp.applied, resp.verdict.feedback)
        self.assertEqual([(c.path, c.kind, c.moved_to) for c in resp.changes],
                         [("mv.txt", pb.FILE_CHANGE_KIND_MOVED, "sub/mv.txt")])
        self.assertEqual((self.server.workspace / "sub" / "mv.txt").read_text(), "moved\n")
        undo = self.client.edit("undo_edit", {"path": "sub/mv.txt"})
        self.assertTrue(undo.applied, undo.verdict.feedback)
        self.assertEqual((self.server.workspace / "mv.txt").read_text(), "moved\n")
        self.assertFalse((self.server.workspace / "sub" / "mv.txt").exists())
        again = self.client.edit("undo_edit", {"path": "sub/mv.txt"})
        self.assertFalse(again.verdict.ok)
        self.assertEqual([v.code for v in again.verdict.violations], ["NO_HISTORY"])

    def test_read_then_edit_with_its_hash(self) -> None:
        path = self.server.workspace / "read.py"
        path.write_bytes(b"a = 1\nb = 2\nc = 3\n")
        resp = self.client.read("read.py", offset=2, limit=1, line_numbers=True)
        self.assertTrue(resp.verdict.ok, resp.verdict.feedback)
        self.assertEqual(resp.content, "   2 | b = 2\n")
        self.assertEqual(resp.sha256, hashlib.sha256(b"a = 1\nb = 2\nc = 3\n").hexdigest())
        self.assertEqual((resp.size, resp.total_lines, resp.start_line, resp.end_line, resp.truncated),
                         (18, 3, 2, 2, False))
        edit = self.client.edit("edit", {"path": "read.py", "old_text": resp.content, "new_text": "b = 20\n"},
                                expected_sha256=resp.sha256)
        self.assertTrue(edit.applied, edit.verdict.feedback)
        self.assertEqual(path.read_bytes(), b"a = 1\nb = 20\nc = 3\n")

    def test_search_contents(self) -> None:
        (self.server.workspace / "pkg").mkdir()
        (self.server.workspace / "pkg" / "mod.py").write_text("import os\n\ndef Find():\n    return os.getcwd()\n")
        (self.server.workspace / "pkg" / "data.bin").write_bytes(b"def\x00")
        resp = self.client.search(r"^def \w+\(", path="pkg", before=1)
        self.assertTrue(resp.verdict.ok, resp.verdict.feedback)
        self.assertEqual([(m.path, m.line, m.text, list(m.before)) for m in resp.matches],
                         [("pkg/mod.py", 3, "def Find():", [""])])
        self.assertEqual((resp.total_matches, resp.binary_skipped), (1, 1))
        self.assertIn("pkg/mod.py:3: def Find():", resp.text)
        counted = self.client.search("FIND", literal=True, ignore_case=True, output_mode="count", include="*.py")
        self.assertEqual([(f.path, f.count) for f in counted.files], [("pkg/mod.py", 1)])
        bad = self.client.search("def (")
        self.assertFalse(bad.verdict.ok)
        self.assertCodes(bad.verdict.violations, "INVALID_VALUE")
        self.assertIn("position 5", bad.verdict.feedback)

    def test_list_and_find(self) -> None:
        ws = self.server.workspace
        (ws / "look" / "sub").mkdir(parents=True)
        (ws / "look" / "a.py").write_bytes(b"x = 1\n")
        (ws / "look" / "sub" / "b_test.py").write_bytes(b"y\n")
        resp = self.client.list_directory("look", depth=2)
        self.assertTrue(resp.verdict.ok, resp.verdict.feedback)
        self.assertEqual([e.path for e in resp.entries], ["look/a.py", "look/sub", "look/sub/b_test.py"])
        self.assertEqual(resp.entries[1].type, pb.ENTRY_TYPE_DIRECTORY)
        self.assertEqual((resp.files, resp.directories, resp.total_bytes), (2, 1, 8))
        self.assertIn("[FILE] look/a.py (6 B)", resp.text)
        cut = self.client.list_directory("look", depth=2, max_entries=1)
        self.assertEqual((len(cut.entries), cut.omitted), (1, 2))
        found = self.client.find_files("*.py", path="look", exclude=["*_test.py"])
        self.assertTrue(found.verdict.ok, found.verdict.feedback)
        self.assertEqual([m.path for m in found.matches], ["look/a.py"])
        for resp in (self.client.list_directory("../"), self.client.list_directory(".git")):
            self.assertFalse(resp.verdict.ok)
            self.assertEqual(len(resp.entries), 0)
        bad = self.client.find_files("[a-")
        self.assertFalse(bad.verdict.ok)
        self.assertCodes(bad.verdict.violations, "INVALID_VALUE")

    def test_read_refusals_are_verdicts(self) -> None:
        (self.server.workspace / "blob.bin").write_bytes(b"\x00\x01\x02")
        for name, code in (("../escape.txt", "OUTSIDE_WORKSPACE"), ("blob.bin", "BINARY_FILE")):
            resp = self.client.read(name)
            self.assertFalse(resp.verdict.ok)
            self.assertCodes(resp.verdict.violations, code)
            self.assertTrue(resp.verdict.feedback)
            self.assertEqual(resp.content, "")

    def test_read_on_in_a_long_line(self) -> None:
        content = "first\n" + "héllo wörld, " * 50_000 + "\nlast\n"
        (self.server.workspace / "long.txt").write_text(content, encoding="utf-8")
        pieces, offset, column = [], 0, 0
        for _ in range(10):
            resp = self.client.read("long.txt", offset=offset, column=column)
            self.assertTrue(resp.verdict.ok, resp.verdict.feedback)
            pieces.append(resp.content)
            if not resp.truncated:
                break
            offset, column = resp.next_offset, resp.next_column
        self.assertFalse(resp.truncated)
        self.assertEqual("".join(pieces), content)

        with self.assertRaises(ToolGuardError) as caught:
            self.client.read("long.txt", offset=2, column=3)
        err = caught.exception
        self.assertEqual(err.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual(err.reason, "INVALID_COLUMN")
        self.assertEqual(err.message, "column 3 of line 2 falls inside a character; give column 2, where it starts")
        self.assertEqual([f.field for f in err.field_violations], ["column"])

    def test_info_read_files_and_media(self) -> None:
        ws = self.server.workspace
        (ws / "info.py").write_bytes(b"a\nb\nc\n")
        (ws / "dot.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
        self.assertEqual(self.client.read("info.py", tail=1).content, "c\n")

        info = self.client.file_info(["info.py", ".git/config", "../x"])
        self.assertTrue(info.verdict.ok, info.verdict.feedback)
        f, denied, outside = info.files
        self.assertEqual((f.type, f.total_lines, f.sha256), (pb.FILE_TYPE_FILE, 3, hashlib.sha256(b"a\nb\nc\n").hexdigest()))
        self.assertTrue(denied.denied)
        self.assertIn(".git", denied.denied_by)
        self.assertFalse(denied.HasField("modified"))
        self.assertEqual(outside.error.code, "OUTSIDE_WORKSPACE")

        many = self.client.read_files(["info.py", "dot.png"], head=1)
        self.assertTrue(many.verdict.ok, many.verdict.feedback)
        self.assertEqual(many.files[0].content, "a\n")
        self.assertEqual(many.files[1].error.code, "BINARY_FILE")

        media = self.client.read_media("dot.png")
        self.assertTrue(media.verdict.ok, media.verdict.feedback)
        self.assertEqual((media.mime_type, media.data), ("image/png", b"\x89PNG\r\n\x1a\n\x00\x00"))

        with self.assertRaises(ToolGuardError) as caught:
            self.client.file_info([])
        self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual(caught.exception.reason, "PATHS_REQUIRED")

    def test_missing_edit_is_edit_not_found(self) -> None:
        path = self.server.workspace / "keep.py"
        path.write_text("x = 1\n")
        resp = self.client.edit("str_replace", {"path": "keep.py", "old_str": "y = 2", "new_str": "y = 3"})
        self.assertFalse(resp.verdict.ok)
        self.assertCodes(resp.verdict.violations, "EDIT_NOT_FOUND")
        self.assertIn("not found", resp.verdict.feedback)
        self.assertFalse(resp.applied)
        self.assertEqual([e.status for e in resp.edits], [pb.EDIT_STATUS_NOT_FOUND])
        self.assertIn("closest region", resp.edits[0].hint)
        self.assertEqual(path.read_text(), "x = 1\n")

    def test_write_call_on_edit_rpc_is_wrong_rpc(self) -> None:
        with self.assertRaises(ToolGuardError) as caught:
            self.client.edit("Write", {"path": "a.py", "content": "x"})
        err = caught.exception
        self.assertEqual(err.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual(err.reason, "WRONG_RPC")
        self.assertEqual(err.metadata, {"tool": "write_to_file"})
        self.assertEqual([f.field for f in err.field_violations], ["call.name"])

    def test_unknown_workspace_is_not_found(self) -> None:
        with self.client.with_session(self.session_id, workspace="nowhere") as other:
            with self.assertRaises(ToolGuardError) as caught:
                other.write(arguments={"path": "a.txt", "content": "x"})
        self.assertEqual(caught.exception.code, grpc.StatusCode.NOT_FOUND)
        self.assertEqual(caught.exception.reason, "WORKSPACE_NOT_FOUND")
        self.assertEqual(caught.exception.metadata, {"workspace": "nowhere"})


def chunks(text: str, size: int) -> Iterator[str]:
    """The text in pieces of ``size`` characters, as a model streams it."""
    for i in range(0, len(text), size):
        yield text[i:i + size]


def by_kind(events: list[pb.StreamToolCallsResponse], kind: str) -> list[Any]:
    return [getattr(e, kind) for e in events if e.WhichOneof("event") == kind]


class StreamToolCallsTest(ServerTestCase):
    """StreamToolCalls; these fail with UNIMPLEMENTED until the server's
    handler lands."""

    def assertDoneLast(self, events: list[pb.StreamToolCallsResponse], finish_reason: str, calls: int) -> Any:
        self.assertTrue(events, "no events")
        self.assertEqual(events[-1].WhichOneof("event"), "done")
        self.assertEqual(len(by_kind(events, "done")), 1)
        done = events[-1].done
        self.assertEqual(done.finish_reason, finish_reason)
        self.assertEqual(done.calls, calls)
        return done

    def test_xml_tags_stream(self) -> None:
        response = ("I'll create the file.\n"
                    "<write_to_file>\n<path>src/stream.py</path>\n<content>\nprint(1)\n</content>\n</write_to_file>\n"
                    "Done.")
        events = list(self.client.stream("xml_tags", chunks(response, 3), finish_reason="stop"))

        text = "".join(t.text for t in by_kind(events, "text"))
        self.assertIn("I'll create the file.", text)
        self.assertIn("Done.", text)
        self.assertNotIn("<path>", text)

        started = by_kind(events, "call_started")
        self.assertEqual([(s.index, s.tool_name, s.raw_name, s.known) for s in started],
                         [(0, "write_to_file", "write_to_file", True)])

        updates = by_kind(events, "param_update")
        path = "".join(u.append for u in updates if u.param == "path")
        content = "".join(u.append for u in updates if u.param == "content")
        self.assertEqual(path, "src/stream.py")
        self.assertIn("print(1)", content)
        self.assertTrue(all(u.index == 0 for u in updates))
        self.assertGreater(len([u for u in updates if u.param == "path"]), 1, "path should grow in pieces")

        complete = by_kind(events, "call_complete")
        self.assertEqual(len(complete), 1)
        c = complete[0]
        self.assertEqual(c.index, 0)
        self.assertFalse(c.truncated)
        self.assertTrue(c.verdict.ok, c.verdict.feedback)
        self.assertEqual(c.verdict.tool_name, "write_to_file")
        self.assertEqual(arguments_dict(c.verdict), {"path": "src/stream.py", "content": "print(1)"})
        self.assertFalse(c.HasField("execution"))

        # Event order: the call starts before its parameters, completes after.
        kinds = [e.WhichOneof("event") for e in events]
        self.assertLess(kinds.index("call_started"), kinds.index("param_update"))
        self.assertLess(max(i for i, k in enumerate(kinds) if k == "param_update"), kinds.index("call_complete"))
        done = self.assertDoneLast(events, "stop", 1)
        self.assertEqual(done.mistakes.consecutive, 0)
        self.assertFalse((self.server.workspace / "src" / "stream.py").exists())

    def test_xml_tags_execute_on_complete(self) -> None:
        response = "<write_to_file><path>exec.txt</path><content>streamed\n</content></write_to_file>"
        events = list(self.client.stream("xml_tags", chunks(response, 5), execute_on_complete=True,
                                         tool_names=["write_to_file"]))
        complete = by_kind(events, "call_complete")
        self.assertEqual(len(complete), 1)
        c = complete[0]
        self.assertTrue(c.verdict.ok, c.verdict.feedback)
        self.assertTrue(c.HasField("execution"))
        self.assertTrue(c.execution.applied)
        self.assertEqual([(ch.path, ch.kind) for ch in c.execution.changes],
                         [("exec.txt", pb.FILE_CHANGE_KIND_CREATED)])
        # One newline before a closing tag is layout in XML forms (README).
        # An executed call's verdict carries file content by size and hash
        # only: the diff holds it.
        self.assertEqual([(e.field, e.size, e.sha256) for e in c.verdict.elided],
                         [("content", 8, hashlib.sha256(b"streamed").hexdigest())])
        self.assertEqual(arguments_dict(c.verdict)["path"], "exec.txt")
        self.assertIn("+streamed", c.execution.diff)
        self.assertEqual((self.server.workspace / "exec.txt").read_text(), "streamed")
        self.assertDoneLast(events, "stop", 1)

    def test_openai_tool_call_deltas(self) -> None:
        deltas: list[Any] = [
            "Writing the file.",
            {"index": 0, "id": "call_1", "name": "Write", "arguments": ""},
            {"index": 0, "arguments": '{"file_'},
            {"index": 0, "arguments": 'path": "o.py", '},
            # OpenAI's own delta.tool_calls[] shape is accepted too.
            {"index": 0, "type": "function", "function": {"arguments": '"text": "x = 1"}'}},
        ]
        events = list(self.client.stream("openai", deltas, finish_reason="tool_calls"))
        self.assertIn("Writing the file.", "".join(t.text for t in by_kind(events, "text")))
        started = by_kind(events, "call_started")
        self.assertEqual([(s.index, s.id, s.tool_name, s.raw_name, s.known) for s in started],
                         [(0, "call_1", "write_to_file", "Write", True)])
        complete = by_kind(events, "call_complete")
        self.assertEqual(len(complete), 1)
        v = complete[0].verdict
        self.assertTrue(v.ok, v.feedback)
        self.assertFalse(complete[0].truncated)
        self.assertEqual(v.tool_name, "write_to_file")
        self.assertEqual(v.call_id, "call_1")
        self.assertEqual(arguments_dict(v), {"path": "o.py", "content": "x = 1"})
        self.assertIn(("ALIAS_RENAMED", "path"), {(r.code, r.param) for r in v.repairs})
        self.assertDoneLast(events, "tool_calls", 1)

    def test_openai_two_calls_done_flag(self) -> None:
        deltas: list[Any] = [
            {"tool_calls": [{"index": 0, "id": "a", "name": "write_to_file", "arguments": '{"path": "1.txt", '},
                            {"index": 1, "id": "b", "name": "write_to_file", "arguments": '{"path": "2.txt", '}]},
            {"index": 0, "arguments": '"content": "one"}', "done": True},
            {"index": 1, "arguments": '"content": "two"}'},
        ]
        events = list(self.client.stream("OPENAI", deltas, finish_reason="tool_calls"))
        complete = by_kind(events, "call_complete")
        self.assertEqual(sorted((c.index, c.verdict.ok, c.verdict.call_id) for c in complete),
                         [(0, True, "a"), (1, True, "b")])
        self.assertDoneLast(events, "tool_calls", 2)

    def test_truncated_call_on_length(self) -> None:
        response = "Here it is: <write_to_file><path>t.py</path><content>def f():\n    return"
        events = list(self.client.stream("xml_tags", chunks(response, 4), finish_reason="length",
                                         execute_on_complete=True))
        complete = by_kind(events, "call_complete")
        self.assertEqual(len(complete), 1)
        c = complete[0]
        self.assertTrue(c.truncated)
        self.assertFalse(c.verdict.ok)
        self.assertIn("TRUNCATED", [x.code for x in c.verdict.violations])
        self.assertTrue(c.verdict.feedback)
        self.assertFalse(c.HasField("execution"))
        done = self.assertDoneLast(events, "length", 1)
        self.assertEqual(done.mistakes.consecutive, 1)
        self.assertFalse((self.server.workspace / "t.py").exists())

    def test_unspecified_format_is_invalid_argument(self) -> None:
        with self.assertRaises(ToolGuardError) as caught:
            list(self.client.stream(pb.STREAM_FORMAT_UNSPECIFIED, ["hello"]))
        self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)

    def test_error_in_deltas_cancels_and_propagates(self) -> None:
        first_event = threading.Event()

        def failing() -> Iterator[str]:
            yield "hello there "
            first_event.wait(10)
            raise RuntimeError("model stream broke")

        try:
            with self.assertRaisesRegex(RuntimeError, "model stream broke"):
                for _ in self.client.stream("xml_tags", failing()):
                    first_event.set()
        finally:
            first_event.set()
        # The server is still fine.
        self.assertTrue(self.client.validate("write_to_file", '{"path": "a", "content": "b"}').ok)


def write_tokens_file(path: Path, tokens: dict[str, tuple[str, Sequence[str]]]) -> Path:
    """Writes an --auth-tokens-file: for each principal, its token (stored as
    its hex SHA-256, as the server wants it) and its workspaces."""
    lines = ["tokens:"]
    for principal, (token, workspaces) in tokens.items():
        lines += [f"  - principal: {principal}",
                  f"    sha256: {hashlib.sha256(token.encode()).hexdigest()}",
                  f"    workspaces: [{', '.join(json.dumps(w) for w in workspaces)}]"]
    path.write_text("\n".join(lines) + "\n")
    return path


def new_token() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


class AuthTest(ServerTestCase):
    """A server with a tokens file and a rate limit of 1 call per second in
    bursts of 2, per principal. Each test uses a principal of its own, so
    the tests do not share a bucket (refusals before the rate limit, for
    lack of a valid token, cost nothing)."""

    TOKENS: dict[str, tuple[str, Sequence[str]]] = {
        "alice": (new_token(), ["*"]),
        "streamer": (new_token(), ["*"]),
        "default-only": (new_token(), ["default"]),
        "bursty": (new_token(), ["*"]),
    }

    @classmethod
    def prepare_server(cls, folder: Path) -> Sequence[str]:
        (folder / "docs").mkdir()
        tokens = write_tokens_file(folder / "tokens.yaml", cls.TOKENS)
        return ("--auth-tokens-file", str(tokens), "--workspaces", f"docs={folder / 'docs'}",
                "--rate-limit", "1", "--rate-burst", "2")

    def setUp(self) -> None:
        self.session_id = f"{type(self).__name__}-{self._testMethodName}-{uuid.uuid4().hex[:8]}"

    def client_of(self, principal: str | None, *, token: str | None = None, **kwargs: Any) -> ToolGuardClient:
        """A client with the principal's token (or the token given)."""
        if principal is not None:
            token = self.TOKENS[principal][0]
        client = ToolGuardClient(self.server.address, session_id=self.session_id, timeout=30, token=token,
                                 **kwargs)
        self.addCleanup(client.close)
        return client

    def assertRefused(self, err: ToolGuardError, code: grpc.StatusCode, reason: str) -> None:
        self.assertEqual((err.code, err.reason, err.domain), (code, reason, "toolguard.dev"), str(err))

    def test_calls_with_the_token_succeed(self) -> None:
        alice = self.client_of("alice")
        self.assertTrue(alice.validate("write_to_file", '{"path": "a.py", "content": "x"}').ok)
        # A client for another session keeps the token.
        with alice.with_session(self.session_id + "-2") as other:
            resp = other.write("write_to_file", '{"path": "alice.txt", "content": "hi"}')
        self.assertTrue(resp.verdict.ok, resp.verdict.feedback)
        self.assertEqual((self.server.workspace / "alice.txt").read_text(), "hi")
        self.assertIn('"principal":"alice"', self.server.log())

    def test_no_token_is_token_required(self) -> None:
        with self.assertRaises(ToolGuardError) as caught:
            self.client_of(None).get_session()
        self.assertRefused(caught.exception, grpc.StatusCode.UNAUTHENTICATED, "TOKEN_REQUIRED")
        self.assertIsNone(caught.exception.retry_delay)
        # with_session(token=None) drops the token.
        with self.client_of("alice").with_session("s", token=None) as anonymous:
            with self.assertRaises(ToolGuardError) as caught:
                anonymous.get_session()
        self.assertRefused(caught.exception, grpc.StatusCode.UNAUTHENTICATED, "TOKEN_REQUIRED")

    def test_wrong_token_is_token_invalid(self) -> None:
        with self.assertRaises(ToolGuardError) as caught:
            self.client_of(None, token=new_token()).validate("Write", "{}")
        self.assertRefused(caught.exception, grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
        # Another scheme than Bearer is no token at all.
        basic = self.client_of(None, metadata={"authorization": "Basic " + self.TOKENS["alice"][0]})
        with self.assertRaises(ToolGuardError) as caught:
            basic.get_session()
        self.assertRefused(caught.exception, grpc.StatusCode.UNAUTHENTICATED, "TOKEN_REQUIRED")

    def test_workspace_not_granted(self) -> None:
        docs = self.client_of("default-only", workspace="docs")
        with self.assertRaises(ToolGuardError) as caught:
            docs.write("write_to_file", '{"path": "d.txt", "content": "x"}')
        self.assertRefused(caught.exception, grpc.StatusCode.PERMISSION_DENIED, "WORKSPACE_NOT_GRANTED")
        self.assertFalse((self.server.path / "docs" / "d.txt").exists())
        # The granted workspace works.
        with docs.with_session(self.session_id, workspace="") as default:
            self.assertTrue(default.write("write_to_file", '{"path": "d.txt", "content": "x"}').verdict.ok)
        self.assertTrue((self.server.workspace / "d.txt").exists())

    def test_burst_exceeded_is_rate_limited_with_a_retry_delay(self) -> None:
        bursty = self.client_of("bursty")
        succeeded = 0
        with self.assertRaises(ToolGuardError) as caught:
            for _ in range(10):
                bursty.get_session()
                succeeded += 1
        err = caught.exception
        self.assertRefused(err, grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
        self.assertGreaterEqual(succeeded, 2, "the burst of 2 should pass")
        self.assertEqual(err.metadata.get("principal"), "bursty")
        self.assertIsNotNone(err.retry_delay)
        assert err.retry_delay is not None
        self.assertGreater(err.retry_delay, 0)
        self.assertLessEqual(err.retry_delay, 1.0)  # one token a second
        self.assertIn("retry_delay=", repr(err))
        # Waiting as told works.
        time.sleep(err.retry_delay + 0.05)
        self.assertFalse(bursty.get_session().exists)

    def test_stream_with_the_token(self) -> None:
        response = "<write_to_file><path>streamed.txt</path><content>s</content></write_to_file>"
        events = list(self.client_of("streamer").stream("xml_tags", chunks(response, 7), execute_on_complete=True))
        complete = by_kind(events, "call_complete")
        self.assertEqual(len(complete), 1)
        self.assertTrue(complete[0].execution.applied, complete[0].verdict.feedback)
        self.assertEqual((self.server.workspace / "streamed.txt").read_text(), "s")
        self.assertEqual(events[-1].WhichOneof("event"), "done")
        # Without it, the stream is refused.
        with self.assertRaises(ToolGuardError) as caught:
            list(self.client_of(None).stream("xml_tags", [response]))
        self.assertRefused(caught.exception, grpc.StatusCode.UNAUTHENTICATED, "TOKEN_REQUIRED")


def make_tls_cert(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, made with the
    openssl command (Debian's openssl package)."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=toolguard-test",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True)
    return cert, key


class TLSTest(ServerTestCase):
    """A TLS server with a tokens file: credentials and token together."""

    TOKEN = new_token()

    @classmethod
    def prepare_server(cls, folder: Path) -> Sequence[str]:
        cert, key = make_tls_cert(folder)
        tokens = write_tokens_file(folder / "tokens.yaml", {"tls-user": (cls.TOKEN, ["*"])})
        return "--tls-cert", str(cert), "--tls-key", str(key), "--auth-tokens-file", str(tokens)

    def setUp(self) -> None:
        self.session_id = f"tls-{uuid.uuid4().hex[:8]}"

    def test_tls_with_a_token(self) -> None:
        creds = grpc.ssl_channel_credentials(root_certificates=(self.server.path / "cert.pem").read_bytes())
        with ToolGuardClient(self.server.address, session_id=self.session_id, timeout=30, token=self.TOKEN,
                             credentials=creds) as client:
            self.assertTrue(client.validate("write_to_file", '{"path": "a", "content": "b"}').ok)
            events = list(client.stream("xml_tags", ["<write_to_file><path>a</path><content>b</content>",
                                                     "</write_to_file>"]))
            self.assertTrue(by_kind(events, "call_complete")[0].verdict.ok)
        with ToolGuardClient(self.server.address, session_id=self.session_id, timeout=30,
                             credentials=creds) as client:
            with self.assertRaises(ToolGuardError) as caught:
                client.get_session()
            self.assertEqual(caught.exception.reason, "TOKEN_REQUIRED")

    def test_plaintext_client_is_refused(self) -> None:
        with ToolGuardClient(self.server.address, session_id=self.session_id, timeout=30, token=self.TOKEN) as client:
            with self.assertRaises(ToolGuardError) as caught:
                client.get_session()
        self.assertEqual(caught.exception.code, grpc.StatusCode.UNAVAILABLE)


class _EchoServicer(pb_grpc.ToolGuardServiceServicer):
    """A stand-in for the real handler that records the frames it receives and
    echoes them as events; it checks the client's side of the stream only
    (frame order and content, cancellation), not the server's parsing."""

    def __init__(self) -> None:
        self.frames: list[pb.StreamToolCallsRequest] = []
        self.finished = threading.Event()

    def StreamToolCalls(self, request_iterator: Any, context: Any) -> Iterator[pb.StreamToolCallsResponse]:
        calls = 0
        try:
            for frame in request_iterator:
                self.frames.append(frame)
                kind = frame.WhichOneof("frame")
                if kind == "delta":
                    if frame.delta.text:
                        yield pb.StreamToolCallsResponse(text=pb.TextEvent(text=frame.delta.text))
                    for d in frame.delta.tool_calls:
                        if d.name:
                            calls += 1
                            yield pb.StreamToolCallsResponse(call_started=pb.CallStartedEvent(
                                index=d.index, id=d.id, tool_name=d.name, raw_name=d.name))
                elif kind == "end":
                    yield pb.StreamToolCallsResponse(done=pb.StreamDoneEvent(
                        finish_reason=frame.end.finish_reason, calls=calls))
                    return
        finally:
            self.finished.set()


class BalanceTest(unittest.TestCase):
    """Two servers behind one ``ipv4:`` target, as a headless Service's name
    resolves to its pods. Each server has its own workspace, so the files
    written show which one served each call."""

    servers: list[Server]

    @classmethod
    def setUpClass(cls) -> None:
        cls.servers = []
        try:
            for _ in range(2):
                cls.servers.append(Server(_server_bin))
        except BaseException:
            cls.tearDownClass()
            raise
        cls.target = "ipv4:" + ",".join(s.address for s in cls.servers)

    @classmethod
    def tearDownClass(cls) -> None:
        failed = [(code, log) for code, log in (s.stop() for s in cls.servers) if code != 0]
        if failed:
            raise AssertionError(f"server did not exit cleanly on SIGTERM: {failed}")

    def counts(self, folder: str) -> tuple[int, int]:
        def count(s: Server) -> int:
            d = s.workspace / folder
            return sum(1 for f in d.iterdir() if f.is_file()) if d.is_dir() else 0
        a, b = (count(s) for s in self.servers)
        return a, b

    def writer(self, client: ToolGuardClient, folder: str) -> Callable[[], None]:
        n = 0

        def write() -> None:
            nonlocal n
            resp = client.write(arguments={"path": f"{folder}/f{n}.txt", "content": "x"})
            self.assertTrue(resp.verdict.ok, resp.verdict.feedback)
            n += 1
        return write

    def test_resolver_target_spreads_calls_by_default(self) -> None:
        with ToolGuardClient(self.target, session_id="balanced", timeout=30) as client:
            write = self.writer(client, "default")
            # Until both servers have had a call: the second may connect a
            # little after the first. Bounded: round_robin reaches it long before.
            for _ in range(1000):
                if 0 not in self.counts("default"):
                    break
                write()
            a, b = self.counts("default")
            self.assertTrue(a and b, f"{a} and {b} calls per server: not spread")
            for _ in range(10):
                write()
            self.assertEqual(tuple(n - m for n, m in zip(self.counts("default"), (a, b))), (5, 5))

    def test_balance_false_keeps_one_server(self) -> None:
        with ToolGuardClient(self.target, session_id="pinned", timeout=30, balance=False) as client:
            write = self.writer(client, "pinned")
            for _ in range(10):
                write()
        self.assertIn(self.counts("pinned"), [(10, 0), (0, 10)])

    def test_options_policy_wins(self) -> None:
        with ToolGuardClient(self.target, session_id="options", timeout=30, balance=True,
                             options=[("grpc.lb_policy_name", "pick_first")]) as client:
            write = self.writer(client, "options")
            for _ in range(10):
                write()
        self.assertIn(self.counts("options"), [(10, 0), (0, 10)])

    def test_balance_needs_a_target(self) -> None:
        channel = grpc.insecure_channel(self.servers[0].address)
        self.addCleanup(channel.close)
        with self.assertRaises(ValueError):
            ToolGuardClient(channel, session_id="s", balance=True)


class ClientStreamMechanicsTest(unittest.TestCase):
    """stream() against an in-process stand-in servicer: the frames the
    client sends, early exit and errors in the caller's deltas."""

    def setUp(self) -> None:
        self.servicer = _EchoServicer()
        self.grpc_server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        pb_grpc.add_ToolGuardServiceServicer_to_server(self.servicer, self.grpc_server)
        port = self.grpc_server.add_insecure_port("127.0.0.1:0")
        self.grpc_server.start()
        self.addCleanup(self.grpc_server.stop, None)
        self.client = ToolGuardClient(f"127.0.0.1:{port}", session_id="mech", model_id="gpt-4.1", workspace="w",
                                      timeout=30)
        self.addCleanup(self.client.close)

    def test_frames_start_deltas_end(self) -> None:
        tool = {"name": "note", "parameters": {"type": "object"}}
        events = list(self.client.stream(
            "openai", ["a", {"index": 0, "id": "c", "name": "edit"}, {"index": 0, "arguments": "{}", "done": True}],
            finish_reason="tool_calls", tools=[tool], tool_names=["edit"], execute_on_complete=True, dry_run=True,
            partial=True, max_call_bytes=10, max_param_bytes=5))
        self.assertEqual([e.WhichOneof("event") for e in events], ["text", "call_started", "done"])
        self.assertEqual(events[-1].done, pb.StreamDoneEvent(finish_reason="tool_calls", calls=1))
        frames = self.servicer.frames
        self.assertEqual([f.WhichOneof("frame") for f in frames], ["start", "delta", "delta", "delta", "end"])
        start = frames[0].start
        self.assertEqual(start.context, pb.RequestContext(session_id="mech", model_id="gpt-4.1", workspace="w"))
        self.assertEqual(start.format, pb.STREAM_FORMAT_OPENAI)
        self.assertEqual([t.name for t in start.tools], ["note"])
        self.assertEqual(list(start.tool_names), ["edit"])
        self.assertEqual(start.options, pb.StreamOptions(execute_on_complete=True, dry_run=True, partial=True,
                                                         max_call_bytes=10, max_param_bytes=5))
        self.assertEqual(frames[3].delta.tool_calls[0], pb.ToolCallDelta(index=0, arguments="{}", done=True))

    def test_leaving_the_loop_cancels_the_stream(self) -> None:
        def endless() -> Iterator[str]:
            while True:
                yield "x"
                time.sleep(0.01)

        for event in self.client.stream("xml_tags", endless()):
            self.assertEqual(event.WhichOneof("event"), "text")
            break
        # The deltas never end: only a cancel ends the servicer's loop.
        self.assertTrue(self.servicer.finished.wait(10), "the stream was not cancelled")
        self.assertNotIn("end", [f.WhichOneof("frame") for f in self.servicer.frames])

    def test_error_in_deltas_propagates(self) -> None:
        def failing() -> Iterator[str]:
            yield "x"
            raise RuntimeError("model stream broke")

        with self.assertRaisesRegex(RuntimeError, "model stream broke"):
            list(self.client.stream("xml_tags", failing()))
        self.assertTrue(self.servicer.finished.wait(10))
        self.assertNotIn("end", [f.WhichOneof("frame") for f in self.servicer.frames])

    def test_bad_delta_propagates(self) -> None:
        with self.assertRaisesRegex(ValueError, "unknown key"):
            list(self.client.stream("openai", [{"idx": 0}]))


class OfflineTest(unittest.TestCase):
    """Conversions that need no server."""

    def test_stream_format_names(self) -> None:
        self.assertEqual(stream_format("xml_tags"), pb.STREAM_FORMAT_XML_TAGS)
        self.assertEqual(stream_format("OpenAI"), pb.STREAM_FORMAT_OPENAI)
        self.assertEqual(stream_format("STREAM_FORMAT_QWEN_XML"), pb.STREAM_FORMAT_QWEN_XML)
        self.assertEqual(stream_format("qwen-xml"), pb.STREAM_FORMAT_QWEN_XML)
        self.assertEqual(stream_format(pb.STREAM_FORMAT_MINIMAX), pb.STREAM_FORMAT_MINIMAX)
        self.assertEqual(stream_format("deepseek-v31"), pb.STREAM_FORMAT_DEEPSEEK_V31)
        self.assertEqual(stream_format("HARMONY"), pb.STREAM_FORMAT_HARMONY)
        self.assertEqual(stream_format("llama3_json"), pb.STREAM_FORMAT_LLAMA3_JSON)
        self.assertEqual(stream_format("glm45"), pb.STREAM_FORMAT_GLM45)
        self.assertEqual(stream_format("PYTHONIC"), pb.STREAM_FORMAT_PYTHONIC)
        self.assertEqual(stream_format("stream_format_claude_xml"), pb.STREAM_FORMAT_CLAUDE_XML)
        self.assertEqual(stream_format("auto"), pb.STREAM_FORMAT_AUTO)
        with self.assertRaisesRegex(ValueError, "xml_tags"):
            stream_format("json")

    def test_stream_delta(self) -> None:
        self.assertEqual(stream_delta("abc"), pb.StreamDelta(text="abc"))
        self.assertEqual(stream_delta({"index": 2, "id": "x", "name": "edit", "arguments": "{", "done": True}),
                         pb.StreamDelta(tool_calls=[pb.ToolCallDelta(index=2, id="x", name="edit", arguments="{",
                                                                     done=True)]))
        self.assertEqual(tool_call_delta({"index": 1, "id": None, "type": "function",
                                          "function": {"name": "edit", "arguments": None}}),
                         pb.ToolCallDelta(index=1, name="edit"))
        self.assertEqual(stream_delta({"text": "hi", "tool_calls": [{"index": 0, "arguments": "{}"}]}),
                         pb.StreamDelta(text="hi", tool_calls=[pb.ToolCallDelta(arguments="{}")]))
        with self.assertRaises(ValueError):
            stream_delta({"idx": 0})
        with self.assertRaises(TypeError):
            stream_delta(3)  # type: ignore[arg-type]

    def test_tool_definition(self) -> None:
        d = tool_definition({"name": "t", "input_schema": {"type": "object", "properties": {"a": {"type": "string"}}},
                             "param_aliases": [{"param": "a", "aliases": ["b"], "allow_empty": True}]})
        self.assertEqual(d.name, "t")
        self.assertEqual(d.parameters["properties"]["a"]["type"], "string")
        self.assertEqual(list(d.param_aliases), [pb.ParamAliases(param="a", aliases=["b"], allow_empty=True)])
        with self.assertRaisesRegex(ValueError, "paramaters"):
            tool_definition({"name": "t", "paramaters": {}})

    def test_one_argument_form(self) -> None:
        client = ToolGuardClient("127.0.0.1:1", session_id="s")
        self.addCleanup(client.close)
        with self.assertRaisesRegex(ValueError, "at most one"):
            client.validate("Write", "{}", params={"a": "b"})
        with self.assertRaises(TypeError):
            client.validate("Write", params={"a": 1})  # type: ignore[dict-item]

    def test_token_checks(self) -> None:
        with self.assertRaisesRegex(ValueError, "visible ASCII"):
            ToolGuardClient("127.0.0.1:1", session_id="s", token="abc\n")
        with self.assertRaisesRegex(ValueError, "not both"):
            ToolGuardClient("127.0.0.1:1", session_id="s", token="abc", metadata=[("Authorization", "Bearer x")])
        client = ToolGuardClient("127.0.0.1:1", session_id="s", token="abc", metadata={"x-request-id": "r"})
        self.addCleanup(client.close)
        self.assertEqual(client.metadata, (("x-request-id", "r"),))
        self.assertEqual(client._metadata(), (("x-request-id", "r"), ("authorization", "Bearer abc"),
                                              ("x-toolguard-client", f"python/{toolguard_client.__version__}")))
        named = ToolGuardClient(client.channel, session_id="s", metadata={"X-Toolguard-Client": "mine/1"})
        self.assertEqual(named._metadata(), (("X-Toolguard-Client", "mine/1"),))
        with client.with_session("t") as other:
            self.assertEqual(other.token, "abc")
        self.assertIsNone(ToolGuardClient(client.channel, session_id="s", token="").token)

    def test_retry_info_is_decoded(self) -> None:
        status = status_pb2.Status(code=grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], message="slow down")
        status.details.add().Pack(error_details_pb2.ErrorInfo(reason="RATE_LIMITED", domain="toolguard.dev"))
        status.details.add().Pack(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=1,
                                                                                                nanos=250_000_000)))
        err = ToolGuardError(grpc.StatusCode.RESOURCE_EXHAUSTED, "slow down", status=status)
        self.assertEqual((err.reason, err.retry_delay), ("RATE_LIMITED", 1.25))
        self.assertIsInstance(err.details[1], error_details_pb2.RetryInfo)
        self.assertIsNone(ToolGuardError(grpc.StatusCode.INTERNAL, "x").retry_delay)
        # The server's memory for large requests taken: the sizes, and when to send it again.
        busy = status_pb2.Status(code=grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], message="send it again shortly")
        busy.details.add().Pack(error_details_pb2.ErrorInfo(
            reason="SERVER_MEMORY_BUSY", domain="toolguard.dev",
            metadata={"max_unary_memory_bytes": "100663296", "request_bytes": "16777216"}))
        busy.details.add().Pack(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(nanos=750_000_000)))
        err = ToolGuardError(grpc.StatusCode.RESOURCE_EXHAUSTED, "send it again shortly", status=busy)
        self.assertEqual((err.reason, err.retry_delay, err.metadata["request_bytes"]), ("SERVER_MEMORY_BUSY", 0.75, "16777216"))

    def test_unreachable_server_is_a_toolguard_error(self) -> None:
        with ToolGuardClient("127.0.0.1:1", session_id="s", timeout=2) as client:
            with self.assertRaises(ToolGuardError) as caught:
                client.get_session()
        self.assertIn(caught.exception.code, (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED))
        self.assertEqual(caught.exception.reason, "")


if __name__ == "__main__":
    unittest.main()

// End-to-end tests of the client against a real toolguard server built from
// this repository (see testing/server.ts): every RPC, the caller's mistakes
// as decoded errors, and the model's mistakes as verdicts.

import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";

import { Code, ConnectError } from "@connectrpc/connect";

import {
  ArgumentsForm,
  createToolGuardClient,
  EditStatus,
  ErrorInfoSchema,
  FileChangeKind,
  FileType,
  MatchStrategy,
  StreamFormat,
  ToolGuardError,
  type StreamEvent,
  type ToolGuardClient,
  type Verdict,
} from "../src/index.js";
import { startServer, type ToolGuardServer } from "../testing/server.js";

let server: ToolGuardServer;
let client: ToolGuardClient;

before(async () => {
  server = await startServer();
  client = createToolGuardClient({ address: server.address, sessionId: "ts-default" });
});

after(async () => {
  client?.close();
  if (!server) return;
  const code = await server.stop();
  assert.equal(code, 0, `toolguard did not exit cleanly on SIGTERM; log:\n${server.log()}`);
  assert.match(server.log(), /"msg":"server stopped"/);
});

/** A client on a fresh session of its own. */
function session(extra: { mistakeLimit?: number; modelId?: string } = {}): ToolGuardClient {
  return client.withContext({ sessionId: `ts-${randomUUID()}`, ...extra });
}

function codes(items: { code: string }[]): string[] {
  return items.map((i) => i.code);
}

/** Calls fn, requires it to reject with a ToolGuardError, returns the error. */
async function rejection(fn: () => Promise<unknown>): Promise<ToolGuardError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof ToolGuardError, `want a ToolGuardError, got ${String(err)}`);
    return err;
  }
  assert.fail("the call succeeded; want an error");
}

/** Every event of a stream, in order. */
async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const ev of events) out.push(ev);
  return out;
}

/** Splits text into pieces of n characters (code points). */
function chunks(text: string, n: number): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += n) out.push(chars.slice(i, i + n).join(""));
  return out;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

async function put(path: string, content: string): Promise<void> {
  const full = join(server.workspace, path);
  await mkdir(dirname(full), { recursive: true });
  await writeFile(full, content);
}

describe("ValidateToolCall", () => {
  it("passes a valid call through untouched", async () => {
    const verdict = await session().validate("write_to_file", {
      argumentsText: '{"path": "src/ok.py", "content": "print(1)\\n"}',
      callId: "call_ok",
    });
    assert.equal(verdict.ok, true);
    assert.equal(verdict.toolName, "write_to_file");
    assert.deepEqual(verdict.arguments, { path: "src/ok.py", content: "print(1)\n" });
    assert.equal(verdict.argumentsJson, '{"content":"print(1)\\n","path":"src/ok.py"}');
    assert.deepEqual(verdict.repairs, []);
    assert.deepEqual(verdict.violations, []);
    assert.equal(verdict.feedback, "");
    assert.equal(verdict.callId, "call_ok");
    assert.equal(verdict.form, ArgumentsForm.TEXT);
    assert.equal(verdict.mistakes?.consecutive, 0);
    assert.equal(verdict.mistakes?.limit, 3);
  });

  it("repairs aliases and lists every repair", async () => {
    const verdict = await session().validate("Write", {
      argumentsText: '{"file_path": "src/app.py", "text": "print(1)\\n"}',
    });
    assert.equal(verdict.ok, true);
    assert.equal(verdict.toolName, "write_to_file");
    assert.deepEqual(verdict.arguments, { path: "src/app.py", content: "print(1)\n" });
    assert.deepEqual(
      verdict.repairs.map((r) => [r.code, r.param]),
      [
        ["TOOL_ALIAS", ""],
        ["ALIAS_RENAMED", "path"],
        ["ALIAS_RENAMED", "content"],
      ],
    );
    assert.match(verdict.repairs[0]!.detail, /"Write" is "write_to_file"/);
  });

  it("repairs a Python dict", async () => {
    const verdict = await session().validate("TodoWrite", {
      argumentsText: "{'todos': [{'id': '1', 'content': 'ship', 'status': 'pending',}]}",
    });
    assert.equal(verdict.ok, true, verdict.feedback);
    assert.equal(verdict.toolName, "todo_write");
    assert.deepEqual(verdict.arguments, { todos: [{ id: "1", content: "ship", status: "pending" }] });
    const got = codes(verdict.repairs);
    for (const code of ["TOOL_ALIAS", "PYTHON_LITERAL", "JSON_REPAIRED"]) {
      assert.ok(got.includes(code), `repairs ${got} lack ${code}`);
    }
  });

  it("takes split params and whole XML blocks", async () => {
    const c = session();
    const fromParams = await c.validate("write_to_file", { params: { path: "a.py", content: "x = 1" } });
    assert.equal(fromParams.ok, true, fromParams.feedback);
    assert.equal(fromParams.form, ArgumentsForm.PARAMS);
    assert.deepEqual(fromParams.arguments, { path: "a.py", content: "x = 1" });

    const fromXml = await c.validate("", {
      xmlBlock: "<write_to_file>\n<path>a.py</path>\n<content>\nx = 1\n</content>\n</write_to_file>",
    });
    assert.equal(fromXml.ok, true, fromXml.feedback);
    assert.equal(fromXml.form, ArgumentsForm.XML);
    assert.equal(fromXml.toolName, "write_to_file");
    assert.deepEqual(fromXml.arguments, { path: "a.py", content: "x = 1" });

    const fromObject = await c.validate("Edit", {
      arguments: { file_path: "a.py", old_string: "x = 1", new_string: "x = 2" },
    });
    assert.equal(fromObject.ok, true, fromObject.feedback);
    assert.equal(fromObject.toolName, "edit");
    assert.deepEqual(fromObject.arguments, { path: "a.py", old_text: "x = 1", new_text: "x = 2" });
  });

  it("answers a model's mistake with a verdict and feedback", async () => {
    const verdict = await session().validate("Write", { argumentsText: '{"file_path": "src/app.py"}' });
    assert.equal(verdict.ok, false);
    assert.equal(verdict.toolName, "write_to_file");
    assert.deepEqual(
      verdict.violations.map((v) => [v.code, v.param]),
      [["MISSING_REQUIRED", "content"]],
    );
    assert.match(verdict.feedback, /Missing required parameter "content"/);
    assert.match(verdict.feedback, /Correct usage/);
    assert.equal(verdict.mistakes?.consecutive, 1);
    assert.equal(verdict.mistakes?.limitReached, false);
  });

  it("reports an unknown tool as a violation", async () => {
    const verdict = await session().validate("launch_rockets", { argumentsText: "{}" });
    assert.equal(verdict.ok, false);
    assert.deepEqual(codes(verdict.violations), ["UNKNOWN_TOOL"]);
  });

  it("validates a custom tool given with the request", async () => {
    const tools = [
      {
        name: "add_semantic_memory",
        description: "Store a semantic memory.",
        aliases: ["remember"],
        contentParams: ["xml_memory"],
        paramAliases: { user_message: ["message"] },
        parameters: {
          type: "object",
          properties: { xml_memory: { type: "string" }, user_message: { type: "string" } },
          required: ["xml_memory", "user_message"],
        },
      },
    ];
    const c = session();
    const verdict = await c.validate("remember", {
      argumentsText: '{"message": "hi", "xml_memory": "<m>likes tea</m>"}',
      tools,
    });
    assert.equal(verdict.ok, true, verdict.feedback);
    assert.equal(verdict.toolName, "add_semantic_memory");
    assert.deepEqual(verdict.arguments, { user_message: "hi", xml_memory: "<m>likes tea</m>" });
    assert.deepEqual(
      verdict.repairs.map((r) => [r.code, r.param]),
      [
        ["TOOL_ALIAS", ""],
        ["ALIAS_RENAMED", "user_message"],
      ],
    );

    const missing = await c.validate("add_semantic_memory", { argumentsText: '{"xml_memory": "<m/>"}', tools });
    assert.equal(missing.ok, false);
    assert.deepEqual(
      missing.violations.map((v) => [v.code, v.param]),
      [["MISSING_REQUIRED", "user_message"]],
    );
  });

  it("rejects a call without a session id: INVALID_ARGUMENT, SESSION_ID_REQUIRED", async () => {
    const err = await rejection(() => client.withContext({ sessionId: "" }).validate("Write", { argumentsText: "{}" }));
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.reason, "SESSION_ID_REQUIRED");
    assert.equal(err.domain, "toolguard.dev");
    assert.equal(err.rawMessage, "context.session_id: a session id is required");
    assert.deepEqual(err.fieldViolations, [
      { field: "context.session_id", description: "a session id is required", reason: "SESSION_ID_REQUIRED" },
    ]);
    // Still a ConnectError, whose own detail decoding works too.
    assert.ok(err instanceof ConnectError);
    assert.equal(ConnectError.from(err), err);
    assert.equal(err.findDetails(ErrorInfoSchema)[0]?.reason, "SESSION_ID_REQUIRED");
  });

  it("rejects an invalid tool definition: INVALID_TOOL_DEFINITION", async () => {
    const err = await rejection(() =>
      session().validate("x", { argumentsText: "{}", tools: [{ name: "x", parameters: { type: 42 } }] }),
    );
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.reason, "INVALID_TOOL_DEFINITION");
    assert.deepEqual(err.errorMetadata, { tool: "x" });
    assert.equal(err.fieldViolations[0]?.field, "tools[0]");
  });
});

describe("headers", () => {
  it("sends the client's headers, a call's own winning", async () => {
    const c = createToolGuardClient({
      address: server.address,
      sessionId: "ts-headers",
      headers: { "x-request-id": "ts-client-id" },
    });
    try {
      let echoed: string | null = null;
      await c.getSession(undefined, { onHeader: (h) => (echoed = h.get("x-request-id")) });
      assert.equal(echoed, "ts-client-id");
      await c.validate("Write", {
        argumentsText: "{}",
        headers: { "x-request-id": "ts-call-id" },
        onHeader: (h) => (echoed = h.get("x-request-id")),
      });
      assert.equal(echoed, "ts-call-id");
    } finally {
      c.close();
    }
  });
});

describe("ListTools", () => {
  it("lists every built-in tool, rendered for each shape", async () => {
    const res = await client.listTools();
    assert.equal(res.modelFamily, "generic");
    const names = res.tools.map((t) => t.definition?.name);
    assert.deepEqual(names, [...names].sort());
    for (const name of ["apply_patch", "edit", "multi_edit", "replace_in_file", "todo_write", "write_to_file"]) {
      assert.ok(names.includes(name), `${name} missing from ${names}`);
    }
    const write = res.tools.find((t) => t.definition?.name === "write_to_file")!;
    assert.equal(write.builtin, true);
    assert.ok(write.definition?.aliases.includes("Write"));
    assert.deepEqual(write.definition?.parameters?.["required"], ["path", "content"]);
    assert.equal(write.openaiTool?.["type"], "function");
    assert.equal((write.openaiTool?.["function"] as { name?: string }).name, "write_to_file");
    assert.equal(write.anthropicTool?.["name"], "write_to_file");
    assert.ok(write.anthropicTool?.["input_schema"]);
    assert.match(write.xmlUsage, /<write_to_file>/);
  });

  it("renders the model family's variant", async () => {
    const res = await client.listTools("claude-sonnet-4-5");
    assert.equal(res.modelFamily, "native-next-gen");
    const write = res.tools.find((t) => t.definition?.name === "write_to_file")!;
    const props = write.definition?.parameters?.["properties"] as Record<string, unknown>;
    assert.ok("absolutePath" in props, `properties: ${Object.keys(props)}`);
  });
});

describe("GetSession and ResetSession", () => {
  it("counts consecutive mistakes until the limit, then resets", async () => {
    const c = session();
    const fresh = await c.getSession();
    assert.equal(fresh.sessionId, c.context.sessionId);
    assert.equal(fresh.exists, false);
    assert.equal(fresh.mistakes?.consecutive, 0);
    assert.equal(fresh.lastSeen, undefined);

    let verdict: Verdict | undefined;
    for (let i = 0; i < 3; i++) {
      verdict = await c.validate("Write", { argumentsText: '{"file_path": "src/app.py"}' });
    }
    assert.equal(verdict!.mistakes?.consecutive, 3);
    assert.equal(verdict!.mistakes?.limitReached, true);
    assert.deepEqual(codes(verdict!.violations), ["MISSING_REQUIRED", "REPEATED_CALL"]);
    assert.match(verdict!.feedback, /Stop retrying the same way/);

    const counted = await c.getSession();
    assert.equal(counted.exists, true);
    assert.equal(counted.mistakes?.consecutive, 3);
    assert.equal(counted.mistakes?.limit, 3);
    assert.equal(counted.mistakes?.limitReached, true);
    assert.ok(counted.lastSeen, "lastSeen is set once a call was recorded");

    const reset = await c.resetSession();
    assert.equal(reset.sessionId, c.context.sessionId);
    assert.equal(reset.mistakes?.consecutive, 0);
    assert.equal((await c.getSession()).mistakes?.consecutive, 0);
  });

  it("resets the counter on a usable call", async () => {
    const c = session();
    await c.validate("Write", { argumentsText: "{}" });
    assert.equal((await c.getSession()).mistakes?.consecutive, 1);
    const ok = await c.validate("Write", { argumentsText: '{"path": "a", "content": "b"}' });
    assert.equal(ok.mistakes?.consecutive, 0);
    assert.equal((await c.getSession()).mistakes?.consecutive, 0);
  });

  it("lets a request lower the mistake limit", async () => {
    const verdict = await session({ mistakeLimit: 1 }).validate("Write", { argumentsText: "{}" });
    assert.equal(verdict.mistakes?.limit, 1);
    assert.equal(verdict.mistakes?.limitReached, true);
  });
});

describe("ExecuteWrite", () => {
  it("writes the file inside the workspace", async () => {
    const content = 'print("hello")\n';
    const res = await session().write("Write", {
      argumentsText: JSON.stringify({ file_path: "src/hello.py", content }),
    });
    assert.equal(res.verdict?.ok, true, res.verdict?.feedback);
    assert.equal(res.change?.path, "src/hello.py");
    assert.equal(res.change?.kind, FileChangeKind.CREATED);
    assert.equal(res.change?.sha256, sha256(content));
    assert.equal(res.change?.size, BigInt(Buffer.byteLength(content)));
    assert.match(res.diff, /\+print\("hello"\)/);
    assert.equal(await readFile(join(server.workspace, "src/hello.py"), "utf8"), content);
  });

  it("writes nothing on a dry run", async () => {
    const res = await session().write("write_to_file", {
      arguments: { path: "dry/run.txt", content: "x" },
      dryRun: true,
    });
    assert.equal(res.verdict?.ok, true, res.verdict?.feedback);
    assert.match(res.diff, /\+x/);
    assert.equal(existsSync(join(server.workspace, "dry/run.txt")), false);
  });

  it("answers a path escaping the workspace with a violation, not an error", async () => {
    const res = await session().write("write_to_file", {
      argumentsText: '{"path": "../escape.txt", "content": "x"}',
    });
    assert.equal(res.verdict?.ok, false);
    assert.deepEqual(
      res.verdict?.violations.map((v) => [v.code, v.param]),
      [["OUTSIDE_WORKSPACE", "path"]],
    );
    assert.match(res.verdict!.feedback, /workspace/);
    assert.equal(res.change, undefined);
    assert.equal(existsSync(join(dirname(server.workspace), "escape.txt")), false);
  });

  it("refuses a file that changed since it was read: FAILED_PRECONDITION, FILE_CHANGED", async () => {
    await put("changed.txt", "new\n");
    const err = await rejection(() =>
      session().write("write_to_file", {
        arguments: { path: "changed.txt", content: "mine\n" },
        expectedSha256: sha256("old\n"),
      }),
    );
    assert.equal(err.code, Code.FailedPrecondition);
    assert.equal(err.reason, "FILE_CHANGED");
    assert.deepEqual(err.errorMetadata, { path: "changed.txt" });
    assert.equal(err.preconditionViolations[0]?.type, "FILE_CHANGED");
    assert.equal(err.preconditionViolations[0]?.subject, "changed.txt");
    assert.equal(await readFile(join(server.workspace, "changed.txt"), "utf8"), "new\n");
  });

  it("rejects an edit call sent to ExecuteWrite: WRONG_RPC", async () => {
    const err = await rejection(() => session().write("edit", { argumentsText: "{}" }));
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.reason, "WRONG_RPC");
    assert.equal(err.fieldViolations[0]?.field, "call.name");
  });

  it("rejects an unknown workspace: NOT_FOUND, WORKSPACE_NOT_FOUND", async () => {
    const err = await rejection(() =>
      client
        .withContext({ workspace: "no-such-workspace" })
        .write("write_to_file", { arguments: { path: "a", content: "b" } }),
    );
    assert.equal(err.code, Code.NotFound);
    assert.equal(err.reason, "WORKSPACE_NOT_FOUND");
    assert.deepEqual(err.errorMetadata, { workspace: "no-such-workspace" });
  });
});

describe("SearchFiles", () => {
  it("finds matching lines with context, counts and refuses a bad pattern", async () => {
    await put("search/mod.ts", "import x from 'x';\n\nexport function Find() {}\n");
    await put("search/blob.bin", "export\u0000");
    const res = await session().search("^export function \\w+", { path: "search", before: 1 });
    assert.equal(res.verdict?.ok, true, res.verdict?.feedback);
    assert.deepEqual(
      res.matches.map((m) => [m.path, m.line, m.text, m.before]),
      [["search/mod.ts", 3, "export function Find() {}", [""]]],
    );
    assert.deepEqual([res.totalMatches, res.binarySkipped], [1, 1]);
    assert.ok(res.text.includes("search/mod.ts:3: export function Find() {}"), res.text);
    const counted = await session().search("FIND", { literal: true, ignoreCase: true, outputMode: "count", include: "*.ts", path: "search" });
    assert.deepEqual(counted.files.map((f) => [f.path, f.count]), [["search/mod.ts", 1]]);
    const bad = await session().search("function (");
    assert.equal(bad.verdict?.ok, false);
    assert.deepEqual(bad.verdict?.violations.map((v) => v.code), ["INVALID_VALUE"]);
    assert.ok(bad.verdict?.feedback.includes("position 10"), bad.verdict?.feedback);
  });
});

describe("ReadFile", () => {
  it("reads a numbered range whose hash and text an edit takes back", async () => {
    const content = "a = 1\nb = 2\nc = 3\n";
    await put("read/r.py", content);
    const res = await session().read("read/r.py", { offset: 2, limit: 1, lineNumbers: true });
    assert.equal(res.verdict?.ok, true, res.verdict?.feedback);
    assert.equal(res.content, "   2 | b = 2\n");
    assert.equal(res.sha256, sha256(content));
    assert.deepEqual([res.size, res.totalLines, res.startLine, res.endLine, res.truncated], [18n, 3, 2, 2, false]);
    const edited = await session().edit("edit", {
      arguments: { path: "read/r.py", old_text: res.content, new_text: "b = 20\n" },
      expectedSha256: res.sha256,
    });
    assert.equal(edited.applied, true, edited.verdict?.feedback);
    assert.equal(await readFile(join(server.workspace, "read/r.py"), "utf8"), "a = 1\nb = 20\nc = 3\n");
  });

  it("reads on inside a long line with nextOffset and nextColumn", async () => {
    const content = "first\n" + "héllo wörld, ".repeat(50_000) + "\nlast\n";
    await put("read/long.txt", content);
    const pieces: string[] = [];
    let next = { offset: 0, column: 0 };
    let truncated = true;
    for (let reads = 0; truncated && reads < 10; reads++) {
      const res = await session().read("read/long.txt", next);
      assert.equal(res.verdict?.ok, true, res.verdict?.feedback);
      pieces.push(res.content);
      truncated = res.truncated;
      next = { offset: res.nextOffset, column: res.nextColumn };
    }
    assert.equal(truncated, false);
    assert.equal(pieces.join(""), content);

    const err = await rejection(() => session().read("read/long.txt", { offset: 2, column: 3 }));
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.reason, "INVALID_COLUMN");
    assert.equal(err.rawMessage, "column 3 of line 2 falls inside a character; give column 2, where it starts");
    assert.equal(err.fieldViolations[0]?.field, "column");
  });

  it("refuses an escape and a binary file as verdicts", async () => {
    await put("read/blob.bin", "\u0000\u0001");
    for (const [path, code] of [["../escape.txt", "OUTSIDE_WORKSPACE"], ["read/blob.bin", "BINARY_FILE"]] as const) {
      const res = await session().read(path);
      assert.equal(res.verdict?.ok, false);
      assert.deepEqual(res.verdict?.violations.map((v) => v.code), [code]);
      assert.ok(res.verdict?.feedback);
      assert.equal(res.content, "");
    }
  });
});

describe("ListDirectory and FindFiles", () => {
  it("lists a tree, cuts it honestly and finds by a glob", async () => {
    await put("look/a.py", "x = 1\n");
    await put("look/sub/b_test.py", "y\n");
    const res = await session().listDirectory("look", { depth: 2 });
    assert.equal(res.verdict?.ok, true, res.verdict?.feedback);
    assert.deepEqual(res.entries.map((e) => e.path), ["look/a.py", "look/sub", "look/sub/b_test.py"]);
    assert.deepEqual([res.files, res.directories, res.totalBytes], [2, 1, 8n]);
    assert.ok(res.text.includes("[FILE] look/a.py (6 B)"), res.text);
    const cut = await session().listDirectory("look", { depth: 2, maxEntries: 1 });
    assert.deepEqual([cut.entries.length, cut.omitted], [1, 2]);
    const found = await session().findFiles("*.py", { path: "look", exclude: ["*_test.py"] });
    assert.equal(found.verdict?.ok, true, found.verdict?.feedback);
    assert.deepEqual(found.matches.map((m) => m.path), ["look/a.py"]);
    for (const path of ["../", ".git"]) {
      const refused = await session().listDirectory(path);
      assert.equal(refused.verdict?.ok, false);
      assert.equal(refused.entries.length, 0);
    }
    const bad = await session().findFiles("[a-");
    assert.deepEqual(bad.verdict?.violations.map((v) => v.code), ["INVALID_VALUE"]);
  });
});

describe("GetFileInfo, ReadFiles, ReadMediaFile", () => {
  it("describes paths, reads several files and a media file, refusals beside each path", async () => {
    await put("look/a.py", "a\nb\nc\n");
    await writeFile(join(server.workspace, "look/dot.png"), Buffer.from("\x89PNG\r\n\x1a\n\x00\x00", "latin1"));
    const tail = await session().read("look/a.py", { tail: 1 });
    assert.equal(tail.content, "c\n");

    const info = await session().fileInfo(["look/a.py", ".git/config", "../x"]);
    assert.equal(info.verdict?.ok, true, info.verdict?.feedback);
    const [f, denied, outside] = info.files;
    assert.deepEqual([f?.type, f?.totalLines, f?.sha256], [FileType.FILE, 3, sha256("a\nb\nc\n")]);
    assert.equal(denied?.denied, true);
    assert.match(denied?.deniedBy ?? "", /\.git/);
    assert.equal(denied?.modified, undefined);
    assert.equal(outside?.error?.code, "OUTSIDE_WORKSPACE");

    const many = await session().readFiles(["look/a.py", "look/dot.png"], { head: 1 });
    assert.equal(many.verdict?.ok, true, many.verdict?.feedback);
    assert.equal(many.files[0]?.content, "a\n");
    assert.equal(many.files[1]?.error?.code, "BINARY_FILE");

    const media = await session().readMedia("look/dot.png");
    assert.equal(media.verdict?.ok, true, media.verdict?.feedback);
    assert.equal(media.mimeType, "image/png");
    assert.deepEqual(Buffer.from(media.data), Buffer.from("\x89PNG\r\n\x1a\n\x00\x00", "latin1"));

    const err = await rejection(() => session().fileInfo([]));
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.reason, "PATHS_REQUIRED");
  });
});

describe("ExecuteEdit", () => {
  it("applies an edit", async () => {
    await put("edit/app.py", 'def main():\n    print("hello")\n');
    const res = await session().edit("Edit", {
      argumentsText: JSON.stringify({
        file_path: "edit/app.py",
        old_string: 'print("hello")',
        new_string: 'print("hi")',
      }),
    });
    assert.equal(res.verdict?.ok, true, res.verdict?.feedback);
    assert.equal(res.applied, true);
    assert.equal(res.edits.length, 1);
    assert.equal(res.edits[0]?.status, EditStatus.APPLIED);
    assert.equal(res.edits[0]?.strategy, MatchStrategy.EXACT);
    assert.equal(res.edits[0]?.line, 2);
    assert.equal(res.edits[0]?.column, 5);
    assert.equal(res.changes[0]?.kind, FileChangeKind.MODIFIED);
    assert.match(res.diff, /\+    print\("hi"\)/);
    assert.equal(await readFile(join(server.workspace, "edit/app.py"), "utf8"), 'def main():\n    print("hi")\n');
  });

  it("inserts a line, then undoes it in the same session", async () => {
    await put("edit/insert.py", "one\ntwo\n");
    const s = session();
    const res = await s.edit("insert_text", { arguments: { path: "edit/insert.py", insert_line: 1, new_text: "mid" } });
    assert.equal(res.applied, true, res.verdict?.feedback);
    assert.equal(res.changes[0]?.kind, FileChangeKind.MODIFIED);
    assert.equal(await readFile(join(server.workspace, "edit/insert.py"), "utf8"), "one\nmid\ntwo\n");
    const undo = await s.edit("undo_edit", { arguments: { path: "edit/insert.py" } });
    assert.equal(undo.applied, true, undo.verdict?.feedback);
    assert.equal(await readFile(join(server.workspace, "edit/insert.py"), "utf8"), "one\ntwo\n");
    const again = await s.edit("undo_edit", { arguments: { path: "edit/insert.py" } });
    assert.deepEqual(
      again.verdict?.violations.map((v) => v.code),
      ["NO_HISTORY"],
    );
  });

  it("finds drifted old text (curly quotes) with the matching ladder", async () => {
    await put("edit/quotes.py", 'print("hello")\n');
    const res = await session().edit("str_replace", {
      arguments: { path: "edit/quotes.py", old_str: "print(“hello”)", new_str: 'print("hi")' },
    });
    assert.equal(res.verdict?.ok, true, res.verdict?.feedback);
    assert.equal(res.edits[0]?.strategy, MatchStrategy.UNICODE);
    assert.equal(await readFile(join(server.workspace, "edit/quotes.py"), "utf8"), 'print("hi")\n');
  });

  it("reports an edit whose old text is missing: EDIT_NOT_FOUND", async () => {
    await put("edit/missing.py", "one\ntwo\n");
    const res = await session().edit("edit", {
      arguments: { path: "edit/missing.py", old_text: "three", new_text: "3" },
    });
    assert.equal(res.verdict?.ok, false);
    assert.deepEqual(codes(res.verdict!.violations), ["EDIT_NOT_FOUND"]);
    assert.match(res.verdict!.feedback, /not found/);
    assert.equal(res.applied, false);
    assert.equal(res.edits[0]?.status, EditStatus.NOT_FOUND);
    assert.notEqual(res.edits[0]?.hint, "");
    assert.equal(res.verdict?.mistakes?.consecutive, 1);
    assert.equal(await readFile(join(server.workspace, "edit/missing.py"), "utf8"), "one\ntwo\n");
  });

  it("applies a batch all-or-nothing unless partial, checking expectedSha256", async () => {
    const original = "a = 1\nb = 2\n";
    await put("edit/batch.py", original);
    const batch = {
      arguments: {
        file_path: "edit/batch.py",
        edits: [
          { old_string: "a = 1", new_string: "a = 10" },
          { old_string: "c = 3", new_string: "c = 30" },
        ],
      },
      expectedSha256: sha256(original),
    };
    const all = await session().edit("MultiEdit", batch);
    assert.equal(all.verdict?.toolName, "multi_edit");
    assert.equal(all.verdict?.ok, false);
    assert.equal(all.applied, false);
    assert.deepEqual(
      all.edits.map((e) => [e.index, e.status]),
      [
        [0, EditStatus.APPLIED],
        [1, EditStatus.NOT_FOUND],
      ],
    );
    assert.equal(await readFile(join(server.workspace, "edit/batch.py"), "utf8"), original);

    const part = await session().edit("MultiEdit", { ...batch, partial: true });
    assert.equal(part.verdict?.ok, false, "an edit failed");
    assert.deepEqual(codes(part.verdict!.violations), ["EDIT_NOT_FOUND"]);
    assert.equal(part.applied, true);
    assert.equal(await readFile(join(server.workspace, "edit/batch.py"), "utf8"), "a = 10\nb = 2\n");
  });

  it("computes the diff of a dry run and writes nothing", async () => {
    await put("edit/dry.py", "a = 1\n");
    const res = await session().edit("edit", {
      arguments: { path: "edit/dry.py", old_text: "a = 1", new_text: "a = 2" },
      dryRun: true,
    });
    assert.equal(res.verdict?.ok, true, res.verdict?.feedback);
    assert.equal(res.applied, false);
    assert.match(res.diff, /-a = 1\n\+a = 2/);
    assert.equal(await readFile(join(server.workspace, "edit/dry.py"), "utf8"), "a = 1\n");
  });
});

// StreamToolCalls. These tests follow the proto contract; they fail with
// UNIMPLEMENTED until the server's handler lands.
describe("StreamToolCalls", { timeout: 180_000 }, () => {
  const prose = "I will create the file now.\n";
  const call = "<write_to_file>\n<path>src/streamed.py</path>\n<content>\nprint(1)\n</content>\n</write_to_file>";
  const tail = "\nDone.";

  it("parses an xml_tags response arriving in small chunks", async () => {
    const events = await collect(
      session().stream("xml_tags", chunks(prose + call + tail, 3), { finishReason: "stop" }),
    );
    const kinds = events.map((e) => e.case);
    assert.equal(kinds.at(-1), "done", `events: ${kinds}`);
    assert.equal(kinds.filter((k) => k === "done").length, 1);
    assert.deepEqual(
      events.filter((e) => e.case === "error"),
      [],
    );

    const text = events.flatMap((e) => (e.case === "text" ? [e.value.text] : [])).join("");
    assert.equal(text, prose + tail);

    const started = events.filter((e) => e.case === "callStarted");
    assert.equal(started.length, 1);
    assert.equal(started[0]!.value.index, 0);
    assert.equal(started[0]!.value.toolName, "write_to_file");
    assert.equal(started[0]!.value.rawName, "write_to_file");
    assert.equal(started[0]!.value.known, true);

    const params = new Map<string, string>();
    for (const e of events) {
      if (e.case !== "paramUpdate") continue;
      assert.equal(e.value.index, 0);
      if (e.value.value.case === "append") {
        params.set(e.value.param, (params.get(e.value.param) ?? "") + e.value.value.value);
      }
    }
    assert.ok(params.has("path") && params.has("content"), `param updates: ${[...params.keys()]}`);
    // Previews only grow; here each one ends as the verdict's value.
    assert.equal(params.get("path"), "src/streamed.py");
    assert.equal(params.get("content"), "print(1)");

    const complete = events.filter((e) => e.case === "callComplete");
    assert.equal(complete.length, 1);
    const done = complete[0]!.value;
    assert.equal(done.index, 0);
    assert.equal(done.truncated, false);
    assert.equal(done.verdict?.ok, true, done.verdict?.feedback);
    assert.equal(done.verdict?.toolName, "write_to_file");
    assert.deepEqual(done.verdict?.arguments, { path: "src/streamed.py", content: "print(1)" });
    assert.equal(done.execution, undefined);

    // Order: the call starts before its parameters, which come before its end.
    const first = (k: StreamEvent["case"]) => kinds.indexOf(k);
    assert.ok(first("callStarted") < first("paramUpdate"));
    assert.ok(kinds.lastIndexOf("paramUpdate") < first("callComplete"));
    assert.ok(first("callComplete") < first("done"));

    const end = events.at(-1)!;
    assert.ok(end.case === "done");
    assert.equal(end.value.finishReason, "stop");
    assert.equal(end.value.calls, 1);
    assert.equal(end.value.mistakes?.consecutive, 0);
  });

  it("executes a complete call when asked", async () => {
    const c = session();
    const events = await collect(
      c.stream(
        "xml_tags",
        chunks("<write_to_file><path>streamed/exec.txt</path><content>written while streaming</content></write_to_file>", 7),
        { finishReason: () => "stop", executeOnComplete: true, toolNames: ["write_to_file"] },
      ),
    );
    const complete = events.find((e) => e.case === "callComplete");
    assert.ok(complete?.case === "callComplete", `events: ${events.map((e) => e.case)}`);
    assert.equal(complete.value.verdict?.ok, true, complete.value.verdict?.feedback);
    assert.equal(complete.value.execution?.applied, true);
    assert.equal(complete.value.execution?.changes[0]?.kind, FileChangeKind.CREATED);
    assert.equal(await readFile(join(server.workspace, "streamed/exec.txt"), "utf8"), "written while streaming");
  });

  it("parses OpenAI tool-call deltas", async () => {
    const args = '{"file_path": "src/openai.py", "text": "x = 1\\n"}';
    const deltas = [
      "Let me write that.",
      { index: 0, id: "call_abc", name: "Write" },
      ...chunks(args, 5).map((a) => ({ index: 0, arguments: a })),
    ];
    const events = await collect(session().stream(StreamFormat.OPENAI, deltas, { finishReason: "tool_calls" }));
    const kinds = events.map((e) => e.case);
    assert.equal(kinds.at(-1), "done", `events: ${kinds}`);

    const text = events.flatMap((e) => (e.case === "text" ? [e.value.text] : [])).join("");
    assert.equal(text, "Let me write that.");

    const started = events.find((e) => e.case === "callStarted");
    assert.ok(started?.case === "callStarted");
    assert.equal(started.value.index, 0);
    assert.equal(started.value.id, "call_abc");
    assert.equal(started.value.rawName, "Write");
    assert.equal(started.value.toolName, "write_to_file");

    const complete = events.find((e) => e.case === "callComplete");
    assert.ok(complete?.case === "callComplete");
    assert.equal(complete.value.truncated, false);
    assert.equal(complete.value.verdict?.ok, true, complete.value.verdict?.feedback);
    assert.equal(complete.value.verdict?.callId, "call_abc");
    assert.deepEqual(complete.value.verdict?.arguments, { path: "src/openai.py", content: "x = 1\n" });
    assert.ok(codes(complete.value.verdict!.repairs).includes("ALIAS_RENAMED"));

    const end = events.at(-1)!;
    assert.ok(end.case === "done");
    assert.equal(end.value.finishReason, "tool_calls");
    assert.equal(end.value.calls, 1);
  });

  it("parses Anthropic tool_use blocks", async () => {
    const deltas = [
      { text: "Editing." },
      { index: 1, id: "toolu_1", name: "str_replace_based_edit_tool" },
      ...chunks('{"command": "create", "path": "src/anthropic.py", "file_text": "y = 2"}', 9).map((a) => ({
        index: 1,
        arguments: a,
      })),
      { index: 1, done: true },
    ];
    const events = await collect(session().stream("anthropic", deltas, { finishReason: "tool_use" }));
    const complete = events.find((e) => e.case === "callComplete");
    assert.ok(complete?.case === "callComplete", `events: ${events.map((e) => e.case)}`);
    assert.equal(complete.value.index, 1);
    assert.equal(complete.value.verdict?.ok, true, complete.value.verdict?.feedback);
    assert.equal(complete.value.verdict?.toolName, "write_to_file");
    assert.equal(complete.value.verdict?.callId, "toolu_1");
  });

  it("marks a call cut off by the length limit as TRUNCATED", async () => {
    const c = session();
    const events = await collect(
      c.stream(
        "xml_tags",
        chunks("Writing:\n<write_to_file><path>src/cut.py</path><content>def main():\n    print(", 4),
        { finishReason: "length", executeOnComplete: true },
      ),
    );
    const complete = events.filter((e) => e.case === "callComplete");
    assert.equal(complete.length, 1, `events: ${events.map((e) => e.case)}`);
    const value = complete[0]!.value;
    assert.equal(value.truncated, true);
    assert.equal(value.verdict?.ok, false);
    assert.ok(codes(value.verdict!.violations).includes("TRUNCATED"), `violations: ${codes(value.verdict!.violations)}`);
    assert.notEqual(value.verdict?.feedback, "");
    assert.equal(value.execution, undefined, "a truncated call is never executed");
    assert.equal(existsSync(join(server.workspace, "src/cut.py")), false);

    const end = events.at(-1)!;
    assert.ok(end.case === "done");
    assert.equal(end.value.finishReason, "length");
    assert.equal(end.value.calls, 1);
    assert.equal(end.value.mistakes?.consecutive, 1);
  });

  it("ends the stream with INVALID_ARGUMENT when the start frame is missing", async () => {
    async function* noStart() {
      yield { frame: { case: "delta" as const, value: { text: "hello" } } };
      yield { frame: { case: "end" as const, value: { finishReason: "stop" } } };
    }
    const err = await rejection(async () => {
      try {
        for await (const _ of client.raw.streamToolCalls(noStart())) {
          // drain
        }
      } catch (e) {
        throw ToolGuardError.wrap(e);
      }
    });
    assert.equal(err.code, Code.InvalidArgument);
  });

  it("decodes an error from the stream as a ToolGuardError", async () => {
    const err = await rejection(() => collect(client.withContext({ sessionId: "" }).stream("xml_tags", ["hi"])));
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.reason, "SESSION_ID_REQUIRED");
  });
});

/**
 * toolguard mcp driven by the official MCP TypeScript SDK, as a real client
 * does: spawned over stdio, and called over streamable HTTP.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";

import { buildToolguard } from "../testing/server.js";

interface TextItem {
  type: string;
  text?: string;
}

interface ToolResult {
  isError?: boolean;
  content: TextItem[];
  structuredContent?: Record<string, unknown>;
}

let tmp = "";
let bin = "";

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), "toolguard-mcp-"));
  bin = process.env.TOOLGUARD_BIN ? resolve(process.env.TOOLGUARD_BIN) : join(tmp, "toolguard");
  await buildToolguard(bin);
});

after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function newWorkspace(name: string): Promise<string> {
  const ws = join(tmp, name);
  await mkdir(ws, { recursive: true });
  return ws;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

function text(res: ToolResult): string {
  return res.content.map((c) => c.text ?? "").join("\n");
}

/** The session every transport goes through: the Go tests' walk, from a real client. */
async function walk(client: Client, ws: string): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name).sort(),
    ["apply_patch", "create_directory", "delete_file", "edit", "find_files", "get_file_info", "insert_text", "list_directory", "move_file", "multi_edit", "read_file", "read_media_file", "read_multiple_files", "replace_in_file", "search_files", "undo_edit", "write_to_file"],
  );

  // Claude Code's names for the path and the content: repaired.
  let res = await call(client, "write_to_file", { file_path: "app.py", text: 'def main():\n    print("hello")\n' });
  assert.equal(res.isError ?? false, false, text(res));
  assert.equal(await readFile(join(ws, "app.py"), "utf8"), 'def main():\n    print("hello")\n');
  assert.match(text(res), /app\.py: created/);

  // Curly quotes in the old text: the matching ladder finds it.
  res = await call(client, "edit", { path: "app.py", old_text: "print(“hello”)", new_text: 'print("hi")' });
  assert.equal(res.isError ?? false, false, text(res));
  assert.equal(await readFile(join(ws, "app.py"), "utf8"), 'def main():\n    print("hi")\n');

  res = await call(client, "read_file", { path: "app.py", offset: 2, line_numbers: true });
  assert.equal(res.content[0]?.text, '   2 |     print("hi")\n');
  const read = res.structuredContent?.read as Record<string, unknown>;
  assert.equal(read.total_lines, 2);

  // Three mistakes in a row: the third reaches the limit.
  const mistakes: Array<[string, Record<string, unknown>, string]> = [
    ["write_to_file", { path: "../escape.txt", content: "x" }, "OUTSIDE_WORKSPACE"],
    ["read_file", { path: ".git/config" }, "DENIED_PATH"],
    ["edit", { path: "app.py", new_text: "y" }, "MISSING_REQUIRED"],
  ];
  for (const [i, [tool, args, code]] of mistakes.entries()) {
    res = await call(client, tool, args);
    assert.equal(res.isError, true);
    const sc = res.structuredContent as { violations: Array<{ code: string }>; mistakes: { consecutive: number; limit_reached?: boolean } };
    assert.ok(sc.violations.some((v) => v.code === code), text(res));
    assert.equal(sc.mistakes.consecutive, i + 1);
    assert.ok(text(res).length > 0);
  }
  const last = res.structuredContent as { mistakes: { limit_reached?: boolean } };
  assert.equal(last.mistakes.limit_reached, true);
}

async function connect(transport: Transport): Promise<Client> {
  const client = new Client({ name: "toolguard-ts-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

describe("toolguard mcp over stdio", () => {
  it("is spawned by the SDK's stdio transport and guards every call", async () => {
    const ws = await newWorkspace("stdio");
    await writeFile(join(ws, "keep.txt"), "keep\n");
    const client = await connect(
      new StdioClientTransport({ command: bin, args: ["mcp", "--workspace", ws, "--log-level", "error"], stderr: "pipe" }),
    );
    try {
      await walk(client, ws);
    } finally {
      await client.close();
    }
  });
});

describe("toolguard mcp over streamable HTTP", () => {
  let child: ChildProcess | undefined;
  let url = "";
  let ws = "";

  before(async () => {
    ws = await newWorkspace("http");
    child = spawn(bin, ["mcp", "--http", "127.0.0.1:0", "--workspace", ws, "--log-format", "json"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    url = await new Promise<string>((res, rej) => {
      let pending = "";
      const timer = setTimeout(() => rej(new Error("toolguard mcp did not report its address")), 120_000);
      child!.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
        pending += chunk;
        for (const line of pending.split("\n")) {
          if (!line.includes("streamable HTTP")) continue;
          const entry = JSON.parse(line) as { address?: string };
          clearTimeout(timer);
          res(`http://${entry.address}/`);
        }
      });
      child!.on("exit", (code) => rej(new Error(`toolguard mcp exited with ${code}`)));
    });
  });

  after(async () => {
    if (!child) return;
    const exited = new Promise((res) => child!.on("exit", res));
    child.kill("SIGTERM");
    await exited;
  });

  it("answers the SDK's streamable HTTP client", async () => {
    const client = await connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      await walk(client, ws);
    } finally {
      await client.close();
    }
  });
});

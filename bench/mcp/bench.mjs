// toolguard mcp beside @modelcontextprotocol/server-filesystem on the same
// edits, both spawned over stdio and called with the official MCP client:
// which edits each applies correctly (the file byte for byte as intended, or
// a refusal that leaves it whole where no edit is right), and the time per
// call, measured in one run, alternating the two servers.
//
// usage: node bench.mjs path/to/toolguard [rounds]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = process.argv[2];
const rounds = Number(process.argv[3] ?? 60);
if (!bin) throw new Error("usage: node bench.mjs path/to/toolguard [rounds]");
const require = createRequire(import.meta.url);
const fsServer = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");

// expect null: no edit is right; the server must refuse and leave the file whole.
const cases = [
  { name: "exact", file: "def f():\n    return 1\n", old: "    return 1", new: "    return 2", expect: "def f():\n    return 2\n" },
  { name: "trailing whitespace drift", file: "x = 1   \ny = 2\n", old: "x = 1\ny = 2", new: "x = 10\ny = 20", expect: "x = 10\ny = 20\n" },
  { name: "indentation drift (nested)", file: "class A:\n    def f(self):\n        return 1\n", old: "def f(self):\n    return 1", new: "def f(self):\n    return 2", expect: "class A:\n    def f(self):\n        return 2\n" },
  { name: "tabs in the file, spaces in the edit", file: "\tif x:\n\t\treturn 1\n", old: "    if x:\n        return 1", new: "    if x:\n        return 2", expect: "\tif x:\n\t\treturn 2\n" },
  { name: "curly quotes", file: 'print("hello")\n', old: "print(\u201chello\u201d)", new: 'print("hi")', expect: 'print("hi")\n' },
  { name: "escaped newlines (\\n as two characters)", file: "a = 1\nb = 2\n", old: "a = 1\\nb = 2", new: "a = 1\\nb = 3", expect: "a = 1\nb = 3\n" },
  { name: "read-tool line numbers pasted", file: "a = 1\nb = 2\nc = 3\n", old: "   2 | b = 2\n   3 | c = 3", new: "b = 20\nc = 30", expect: "a = 1\nb = 20\nc = 30\n" },
  { name: "CRLF file", file: "a\r\nb\r\nc\r\n", old: "b\nc", new: "B\nC", expect: "a\r\nB\r\nC\r\n" },
  { name: "already applied", file: "x = 2\n", old: "x = 1", new: "x = 2", expect: "x = 2\n" },
  { name: "ambiguous (two matches)", file: "a = 0\nb = 1\na = 0\n", old: "a = 0", new: "a = 9", expect: null },
  { name: "not in the file", file: "a = 1\n", old: "zzz = 1", new: "zzz = 2", expect: null },
];

const servers = [
  {
    name: "toolguard mcp",
    transport: (root) => new StdioClientTransport({ command: bin, args: ["mcp", "--workspace", root, "--log-level", "error"], stderr: "ignore" }),
    edit: (root, path, oldText, newText) => ({ name: "edit", arguments: { path, old_text: oldText, new_text: newText } }),
  },
  {
    name: "server-filesystem",
    transport: (root) => new StdioClientTransport({ command: process.execPath, args: [fsServer, root], stderr: "ignore" }),
    edit: (root, path, oldText, newText) => ({ name: "edit_file", arguments: { path: join(root, path), edits: [{ oldText, newText }] } }),
  },
];

async function connect(server, root) {
  const client = new Client({ name: "toolguard-bench", version: "1.0.0" });
  await client.connect(server.transport(root));
  return client;
}

async function correctness(server) {
  const root = await mkdtemp(join(tmpdir(), "mcp-bench-"));
  const client = await connect(server, root);
  const out = [];
  try {
    for (const [i, c] of cases.entries()) {
      const path = `case${i}.txt`;
      await writeFile(join(root, path), c.file);
      let isError = false;
      try {
        const res = await client.callTool(server.edit(root, path, c.old, c.new));
        isError = res.isError === true;
      } catch {
        isError = true;
      }
      const after = await readFile(join(root, path), "utf8");
      let verdict;
      if (c.expect === null) verdict = isError && after === c.file ? "refused, right" : after !== c.file ? "WRONG FILE" : "no error, file whole";
      else if (!isError && after === c.expect) verdict = "applied";
      else if (after === c.file) verdict = "refused";
      else verdict = "WRONG FILE";
      out.push(verdict);
    }
  } finally {
    await client.close();
    await rm(root, { recursive: true, force: true });
  }
  return out;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// An exact edit toggled back and forth on a 200-line file, the servers
// alternating round by round so both see the same machine load.
async function timing() {
  const body = Array.from({ length: 200 }, (_, i) => `line ${i} = ${i * 7}`).join("\n") + "\n";
  const sessions = [];
  for (const server of servers) {
    const root = await mkdtemp(join(tmpdir(), "mcp-bench-t-"));
    await writeFile(join(root, "t.txt"), body);
    sessions.push({ server, root, client: await connect(server, root), ms: [] });
  }
  for (let r = 0; r < rounds; r++) {
    for (const s of sessions) {
      const [from, to] = r % 2 === 0 ? ["line 100 = 700", "line 100 = 701"] : ["line 100 = 701", "line 100 = 700"];
      const t0 = performance.now();
      const res = await s.client.callTool(s.server.edit(s.root, "t.txt", from, to));
      s.ms.push(performance.now() - t0);
      if (res.isError) throw new Error(`${s.server.name}: timing edit failed`);
    }
  }
  for (const s of sessions) {
    await s.client.close();
    await rm(s.root, { recursive: true, force: true });
  }
  return sessions.map((s) => median(s.ms.slice(5)));
}

const results = [];
for (const server of servers) results.push(await correctness(server));
console.log(`| edit | ${servers.map((s) => s.name).join(" | ")} |`);
console.log(`|---|${servers.map(() => "---").join("|")}|`);
for (const [i, c] of cases.entries()) console.log(`| ${c.name} | ${results.map((r) => r[i]).join(" | ")} |`);
const right = results.map((r) => r.filter((v) => v === "applied" || v === "refused, right").length);
console.log(`| right | ${right.map((n) => `${n}/${cases.length}`).join(" | ")} |`);
const ms = await timing();
console.log(`\nmedian ms per edit call (${rounds} rounds, first 5 dropped): ${servers.map((s, i) => `${s.name} ${ms[i].toFixed(2)}`).join(", ")}; ratio ${(ms[0] / ms[1]).toFixed(2)}`);

// toolguard mcp --profile filesystem as a drop-in for
// @modelcontextprotocol/server-filesystem: one script, written against the
// reference server, run against both over stdio with the official MCP
// client, each on its own copy of the same folder. Each call's answers are
// compared: text equal (the folder's path read as ROOT) where the
// reference's text is deterministic, the same shape otherwise. Prints the
// table (tool | reference | toolguard) and exits 1 on a difference that is
// not the expected one.
//
// usage: node dropin.mjs path/to/toolguard
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const bin = process.argv[2];
if (!bin) throw new Error("usage: node dropin.mjs path/to/toolguard");
const require = createRequire(import.meta.url);
const fsServer = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");

const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
const files = {
  "notes.txt": "one\ntwo\nthree\n",
  "plain.txt": "alpha\nbeta\ngamma",
  "src/m.py": "def f():\n    return 1\n",
  "src/util/u.py": "X = 1\n",
  "dot.png": png,
};

// What a comparison may find: "same" (text equal), "shape" (both succeed
// or both refuse, with the same kind of content).
const steps = [
  { tool: "list_allowed_directories", args: {}, want: "same" },
  { tool: "write_file", args: { path: "new.txt", content: "fresh\n" }, want: "same" },
  { tool: "read_text_file", args: { path: "notes.txt" }, want: "same" },
  { tool: "read_text_file", args: { path: "plain.txt", tail: 2 }, want: "same" },
  { tool: "read_file", args: { path: "ROOT/notes.txt", head: 2 }, want: "same" },
  { tool: "read_multiple_files", args: { paths: ["notes.txt", "src/m.py"] }, want: "same" },
  { tool: "read_multiple_files", args: { paths: ["notes.txt", "missing.txt"] }, want: "shape", note: "a missing file's error is worded differently" },
  { tool: "read_media_file", args: { path: "dot.png" }, want: "same" },
  { tool: "edit_file", args: { path: "src/m.py", edits: [{ oldText: "    return 1", newText: "    return 2" }], dryRun: true }, want: "same" },
  { tool: "edit_file", args: { path: "ROOT/src/m.py", edits: [{ oldText: "    return 1", newText: "    return 3" }] }, want: "same" },
  { tool: "edit_file", args: { path: "src/m.py", edits: [{ oldText: "zzz", newText: "y" }] }, want: "shape", note: "both refuse; toolguard shows the file's lines" },
  { tool: "create_directory", args: { path: "out/deep" }, want: "same" },
  { tool: "list_directory", args: { path: "." }, want: "same" },
  { tool: "list_directory_with_sizes", args: { path: "src" }, want: "same" },
  { tool: "list_directory_with_sizes", args: { path: "src", sortBy: "size" }, want: "shape", note: "the reference sorts a folder by its inode's size (4096 here), toolguard's folders weigh 0" },
  { tool: "directory_tree", args: { path: "ROOT", excludePatterns: ["util"] }, want: "same" },
  { tool: "move_file", args: { source: "new.txt", destination: "out/new.txt" }, want: "same" },
  { tool: "move_file", args: { source: "notes.txt", destination: "plain.txt" }, want: "shape", note: "both refuse an existing destination" },
  { tool: "search_files", args: { path: "ROOT", pattern: "**/*.py" }, want: "same" },
  { tool: "search_files", args: { path: ".", pattern: "*.txt" }, want: "same" },
  { tool: "get_file_info", args: { path: "out/new.txt" }, want: "same", note: "times read as TIME: the copies differ" },
  { tool: "read_text_file", args: { path: "/etc/passwd" }, want: "shape", note: "both refuse a path outside" },
  { tool: "read_text_file", args: { path: "escape/passwd" }, want: "shape", note: "both refuse a link out" },
];

async function fixture() {
  const root = await realpath(await mkdtemp(join(tmpdir(), "dropin-")));
  for (const [p, c] of Object.entries(files)) {
    await mkdir(join(root, p, ".."), { recursive: true });
    await writeFile(join(root, p), c);
  }
  await symlink("/etc", join(root, "escape"));
  return root;
}

async function connect(server, root, roots) {
  const client = new Client({ name: "dropin", version: "1" }, roots ? { capabilities: { roots: { listChanged: true } } } : {});
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: pathToFileURL(root).href, name: "project" }] }));
  const args = server === "reference" ? [fsServer, root] : ["mcp", "--profile", "filesystem", "--log-level", "error", root];
  await client.connect(new StdioClientTransport({ command: server === "reference" ? process.execPath : bin, args, stderr: "ignore" }));
  return client;
}

function rooted(args, root) {
  return JSON.parse(JSON.stringify(args).replaceAll("ROOT", root));
}

// A result as compared: the root read as ROOT, file info's times dropped.
function normal(res, root, tool) {
  const out = { isError: !!res.isError, content: res.content.map((c) => ({ ...c })) };
  for (const c of out.content) {
    if (c.type === "text") {
      c.text = c.text.replaceAll(root, "ROOT");
      if (tool === "get_file_info") c.text = c.text.replace(/^(created|modified|accessed): .*$/gm, "$1: TIME");
    }
  }
  return out;
}

function shape(r) {
  return JSON.stringify({ isError: r.isError, types: r.content.map((c) => c.type) });
}

function cell(r) {
  const c = r.content[0] ?? {};
  let s = c.type === "text" ? c.text : `${c.type} ${c.mimeType ?? c.resource?.mimeType ?? ""} (${(c.data ?? c.resource?.blob ?? "").length} base64 chars)`;
  s = (r.isError ? "error: " : "") + s.split("\n").slice(0, 3).join("⏎");
  return (s.length > 70 ? s.slice(0, 67) + "..." : s).replaceAll("|", "\\|");
}

async function run(withRoots) {
  const roots = { reference: await fixture(), toolguard: await fixture() };
  const clients = { reference: await connect("reference", roots.reference, withRoots), toolguard: await connect("toolguard", roots.toolguard, withRoots) };
  const rows = [];
  try {
    const listed = await Promise.all(Object.values(clients).map((c) => c.listTools()));
    const names = listed.map((l) => l.tools.map((t) => t.name).sort().join(","));
    if (names[0] !== names[1]) rows.push({ tool: "tools/list", ok: false, ref: names[0], tg: names[1] });
    for (const step of withRoots ? steps.slice(0, 1) : steps) {
      const got = {};
      for (const server of ["reference", "toolguard"]) {
        const res = await clients[server].callTool({ name: step.tool, arguments: rooted(step.args, roots[server]) });
        got[server] = normal(res, roots[server], step.tool);
      }
      const same = JSON.stringify(got.reference) === JSON.stringify(got.toolguard);
      const ok = step.want === "same" ? same : shape(got.reference) === shape(got.toolguard);
      rows.push({ tool: step.tool + (withRoots ? " (client roots)" : ""), args: JSON.stringify(step.args), ok, same, note: step.note, ref: cell(got.reference), tg: cell(got.toolguard) });
    }
  } finally {
    await Promise.all(Object.values(clients).map((c) => c.close()));
    await Promise.all(Object.values(roots).map((r) => rm(r, { recursive: true, force: true })));
  }
  return rows;
}

const rows = [...(await run(false)), ...(await run(true))];
console.log("| tool (arguments) | reference | toolguard --profile filesystem | compared |");
console.log("|---|---|---|---|");
for (const r of rows) {
  const verdict = r.same ? "same text" : r.ok ? `same shape: ${r.note ?? ""}` : "DIFFERENT";
  console.log(`| ${r.tool} \`${r.args ?? ""}\` | ${r.ref} | ${r.tg} | ${verdict} |`);
}
const bad = rows.filter((r) => !r.ok);
if (bad.length) {
  console.error(`${bad.length} answers differ from the reference's unexpectedly`);
  process.exit(1);
}

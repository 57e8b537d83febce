// Packs the client with npm pack, installs the tarball in a scratch project
// as an outside user would, and runs a short script with it against a real
// server.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";

import { startServer, type ToolGuardServer } from "../testing/server.js";

const SCRIPT = `
import { createToolGuardClient } from "@toolguard/client";
const client = createToolGuardClient({ address: process.argv[2], sessionId: "packed" });
const v = await client.validate("Write", { argumentsText: "{'file_path': 'a.py', 'text': 'x = 1'}" });
if (!v.ok || v.toolName !== "write_to_file") throw new Error("validate: " + JSON.stringify(v));
const w = await client.write("write_to_file", { argumentsText: '{"path": "a.py", "content": "x = 1\\\\n"}' });
if (!w.verdict?.ok) throw new Error("write failed");
client.close();
console.log("packed client ok");
`;

describe("npm pack", { timeout: 240_000 }, () => {
  let server: ToolGuardServer;
  let scratch: string;
  before(async () => {
    server = await startServer();
    scratch = await mkdtemp(join(tmpdir(), "toolguard-pack-"));
  });
  after(async () => {
    await rm(scratch, { recursive: true, force: true });
    assert.equal(await server.stop(), 0);
  });

  it("installs in an outside project and works there", async () => {
    const pkgDir = resolve(server.root, "clients", "typescript");
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: pkgDir, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }),
    ) as { filename: string; files: { path: string }[] }[];
    const files = packed[0]!.files.map((f) => f.path);
    assert.ok(files.includes("dist/src/index.js") && files.includes("dist/src/index.d.ts"), files.join("\n"));
    assert.ok(files.includes("LICENSE"), `no LICENSE in the tarball: ${files.join(", ")}`);
    assert.ok(!files.some((f) => f.startsWith("dist/test/") || f.startsWith("src/")), "tests or sources were packed");

    await writeFile(join(scratch, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
    execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", join(scratch, packed[0]!.filename)], {
      cwd: scratch,
      stdio: ["ignore", "ignore", "inherit"],
    });
    const installed = JSON.parse(await readFile(join(scratch, "node_modules", "@toolguard", "client", "package.json"), "utf8"));
    assert.equal(installed.license, "Apache-2.0");
    await writeFile(join(scratch, "use.mjs"), SCRIPT);
    const out = execFileSync("node", ["use.mjs", server.address], { cwd: scratch, encoding: "utf8" });
    assert.match(out, /packed client ok/);
    assert.equal(await readFile(join(server.workspace, "a.py"), "utf8"), "x = 1\n");
  });
});

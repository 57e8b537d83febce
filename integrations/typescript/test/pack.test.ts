// Installs the packages as docs/integrations.md says, from the tarballs of
// npm pack (the client's and this one's), in a scratch project beside the
// framework packages of this lock file, and runs a short script with the AI
// SDK middleware there against a real server: the integration must resolve
// its client and framework from the user's project.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";

import { startServer, type ToolGuardServer } from "../testing/server.js";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const client = join(pkg, "..", "..", "clients", "typescript");

const SCRIPT = `
import { createToolGuardClient } from "@toolguard/client";
import { toolguardMiddleware } from "@toolguard/integrations/ai-sdk";
import { generateText, stepCountIs, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";

const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } };
const model = new MockLanguageModelV3({ doGenerate: [
  { content: [{ type: "tool-call", toolCallId: "c", toolName: "get_weather", input: "{'City': 'Paris'}" }], finishReason: { unified: "tool-calls" }, usage, warnings: [] },
  { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop" }, usage, warnings: [] },
] });
const ran = [];
const tools = { get_weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async (i) => { ran.push(i); return "sunny"; } }) };
const client = createToolGuardClient({ address: process.argv[2], sessionId: "packed" });
await generateText({ model: wrapLanguageModel({ model, middleware: toolguardMiddleware({ client }) }), tools, prompt: "x", stopWhen: stepCountIs(3) });
client.close();
if (JSON.stringify(ran) !== '[{"city":"Paris"}]') throw new Error("ran " + JSON.stringify(ran));
console.log("packed integrations ok");
`;

// Without prepack's build: dist/ is built before the tests run, and other
// test files read it while this one runs.
function pack(dir: string, dest: string): { filename: string; files: { path: string }[] } {
  const out = execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dest], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  return (JSON.parse(out) as { filename: string; files: { path: string }[] }[])[0]!;
}

describe("npm pack", { timeout: 300_000 }, () => {
  let server: ToolGuardServer;
  let scratch: string;
  before(async () => {
    server = await startServer();
    scratch = await mkdtemp(join(tmpdir(), "toolguard-integrations-pack-"));
  });
  after(async () => {
    await rm(scratch, { recursive: true, force: true });
    assert.equal(await server.stop(), 0);
  });

  it("installs beside the client and a framework in an outside project and works there", async () => {
    const clientTgz = pack(client, scratch);
    const packed = pack(pkg, scratch);
    const files = packed.files.map((f) => f.path);
    for (const sub of ["index", "ai-sdk", "openai-agents", "langgraph"]) {
      assert.ok(files.includes(`dist/src/${sub}.js`) && files.includes(`dist/src/${sub}.d.ts`), files.join("\n"));
    }
    assert.ok(!files.some((f) => f.startsWith("dist/test/") || f.startsWith("dist/examples/") || f.startsWith("src/")), files.join("\n"));

    const lock = JSON.parse(await readFile(join(pkg, "package-lock.json"), "utf8")) as { packages: Record<string, { version: string }> };
    const pinned = (name: string) => `${name}@${lock.packages[`node_modules/${name}`]!.version}`;
    await writeFile(join(scratch, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
    execFileSync(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", join(scratch, clientTgz.filename), join(scratch, packed.filename), pinned("ai"), pinned("zod")],
      { cwd: scratch, stdio: ["ignore", "ignore", "inherit"] },
    );
    await writeFile(join(scratch, "use.mjs"), SCRIPT);
    const out = execFileSync("node", ["use.mjs", server.address], { cwd: scratch, encoding: "utf8" });
    assert.match(out, /packed integrations ok/);
  });
});

// Runs the examples as docs/integrations.md prints them: each console block
// there that runs `node dist/examples/...` is run against a real server
// (its address in place of 127.0.0.1:7700) and its output compared line by
// line.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";

import { startServer, type ToolGuardServer } from "../testing/server.js";

const run = promisify(execFile);
// dist/test/ -> the package folder, and the repository root above it.
const pkg = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const docs = join(pkg, "..", "..", "docs", "integrations.md");

interface Block {
  example: string;
  command: string;
  output: string;
}

/** The console blocks of the page that run an example: `$ node dist/examples/x.js 127.0.0.1:7700` and its output. */
function exampleBlocks(page: string): Block[] {
  const blocks: Block[] = [];
  for (const m of page.matchAll(/```console\n\$ (node dist\/examples\/([a-z-]+)\.js 127\.0\.0\.1:7700)\n([\s\S]*?)```/g)) {
    blocks.push({ command: m[1]!, example: m[2]!, output: m[3]! });
  }
  return blocks;
}

describe("examples, as docs/integrations.md prints them", { timeout: 120_000 }, () => {
  let server: ToolGuardServer;
  let blocks: Block[];
  before(async () => {
    server = await startServer();
    blocks = exampleBlocks(await readFile(docs, "utf8"));
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
  });

  for (const example of ["ai-sdk", "openai-agents", "langgraph"]) {
    it(`${example}: the printed output`, async () => {
      const block = blocks.find((b) => b.example === example);
      assert.ok(block, `docs/integrations.md has no console block running dist/examples/${example}.js`);
      const [node, script] = block.command.split(" ");
      const { stdout } = await run(node!, [script!, server.address], { cwd: pkg });
      assert.equal(stdout, block.output);
    });
  }
});

// The shared call guard: what every integration does when the server
// cannot be reached (it rejects; nothing runs unguarded).

import assert from "node:assert/strict";
import { createServer } from "node:net";
import { describe, it } from "node:test";

import { ToolGuardError, createToolGuardClient } from "@toolguard/client";

import { guardCall } from "../src/core.js";

/** A loopback port nothing listens on: one the system gave out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((res) => server.listen(0, "127.0.0.1", res));
  const { port } = server.address() as { port: number };
  await new Promise<void>((res) => server.close(() => res()));
  return port;
}

describe("core", () => {
  it("an unreachable server rejects with the client's error", async () => {
    const client = createToolGuardClient({ address: `127.0.0.1:${await closedPort()}`, sessionId: "core" });
    await assert.rejects(
      guardCall({ client }, [], { name: "get_weather", argumentsText: "{}" }),
      (err: unknown) => err instanceof ToolGuardError && err.code !== undefined,
    );
    client.close();
  });
});

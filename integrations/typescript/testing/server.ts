/**
 * Test fixture: the TypeScript client's server fixture
 * (clients/typescript/testing/server.ts, compiled with the client), which
 * builds toolguard from this repository (or uses $TOOLGUARD_BIN) and serves
 * it on a free loopback port. Loaded by path: the client package exports
 * only its API.
 */

import { createToolGuardClient, type ToolGuardClient } from "@toolguard/client";

/** The parts of the client fixture's ToolGuardServer these tests use. */
export interface ToolGuardServer {
  readonly address: string;
  readonly workspace: string;
  log(): string;
  stop(): Promise<number | null>;
}

interface Fixture {
  startServer(options?: { args?: string[] }): Promise<ToolGuardServer>;
}

// From dist/testing/ of this package to dist/testing/ of the client.
const FIXTURE = new URL("../../../../clients/typescript/dist/testing/server.js", import.meta.url);

export async function startServer(args: string[] = []): Promise<ToolGuardServer> {
  const fixture = (await import(FIXTURE.href)) as Fixture;
  return fixture.startServer({ args });
}

/** A client for one test's session. */
export function clientFor(server: ToolGuardServer, sessionId: string): ToolGuardClient {
  return createToolGuardClient({ address: server.address, sessionId });
}

// End-to-end tests of bearer tokens, grants, rate limits and TLS against
// real toolguard servers (see testing/server.ts): one with a tokens file and
// --rate-limit 1 --rate-burst 2, one serving TLS with a tokens file.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import { Code, ConnectError } from "@connectrpc/connect";

import { createToolGuardClient, ToolGuardError, type StreamEvent, type ToolGuardClient } from "../src/index.js";
import { startServer, type ToolGuardServer } from "../testing/server.js";

function newToken(): string {
  return randomBytes(32).toString("hex");
}

/**
 * Writes an --auth-tokens-file: for each principal its token (stored as its
 * hex SHA-256, as the server wants it) and its workspaces.
 */
async function writeTokensFile(path: string, tokens: Record<string, { token: string; workspaces: string[] }>): Promise<string> {
  const lines = ["tokens:"];
  for (const [principal, { token, workspaces }] of Object.entries(tokens)) {
    lines.push(
      `  - principal: ${principal}`,
      `    sha256: ${createHash("sha256").update(token).digest("hex")}`,
      `    workspaces: [${workspaces.map((w) => JSON.stringify(w)).join(", ")}]`,
    );
  }
  await writeFile(path, lines.join("\n") + "\n");
  return path;
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

function assertRefused(err: ToolGuardError, code: Code, reason: string): void {
  assert.deepEqual([err.code, err.reason, err.domain], [code, reason, "toolguard.dev"], err.message);
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const ev of events) out.push(ev);
  return out;
}

async function stopCleanly(server: ToolGuardServer | undefined): Promise<void> {
  if (!server) return;
  const code = await server.stop();
  assert.equal(code, 0, `toolguard did not exit cleanly on SIGTERM; log:\n${server.log()}`);
  assert.match(server.log(), /"msg":"server stopped"/);
}

// Each test has a principal of its own, so no two share a rate-limit bucket
// (refusals for lack of a valid token come before the limit and cost nothing).
const TOKENS = {
  alice: { token: newToken(), workspaces: ["*"] },
  streamer: { token: newToken(), workspaces: ["*"] },
  "default-only": { token: newToken(), workspaces: ["default"] },
  bursty: { token: newToken(), workspaces: ["*"] },
};
type Principal = keyof typeof TOKENS;

describe("a server with tokens and a rate limit", () => {
  let server: ToolGuardServer;
  const clients: ToolGuardClient[] = [];

  before(async () => {
    server = await startServer({
      args: ["--rate-limit", "1", "--rate-burst", "2"],
      async prepare(dir) {
        await mkdir(join(dir, "docs"));
        const tokens = await writeTokensFile(join(dir, "tokens.yaml"), TOKENS);
        return ["--auth-tokens-file", tokens, "--workspaces", `docs=${join(dir, "docs")}`];
      },
    });
  });

  after(async () => {
    for (const c of clients) c.close();
    await stopCleanly(server);
  });

  /** A client with the principal's token, or with the token given. */
  function clientOf(who: Principal | { token?: string }, extra: { workspace?: string; headers?: Record<string, string> } = {}): ToolGuardClient {
    const token = typeof who === "string" ? TOKENS[who].token : who.token;
    const c = createToolGuardClient({
      address: server.address,
      sessionId: `ts-auth-${randomUUID()}`,
      timeoutMs: 30_000,
      ...(token !== undefined ? { token } : {}),
      ...extra,
    });
    clients.push(c);
    return c;
  }

  it("lets calls with the token in", async () => {
    const alice = clientOf("alice");
    const verdict = await alice.validate("write_to_file", { argumentsText: '{"path": "a.py", "content": "x"}' });
    assert.equal(verdict.ok, true);
    // A client for another session keeps the token.
    const written = await alice.withContext({ sessionId: `ts-auth-${randomUUID()}` }).write("write_to_file", {
      arguments: { path: "alice.txt", content: "hi" },
    });
    assert.equal(written.verdict?.ok, true, written.verdict?.feedback);
    assert.equal(await readFile(join(server.workspace, "alice.txt"), "utf8"), "hi");
    assert.match(server.log(), /"principal":"alice"/);
  });

  it("refuses a call without a token: TOKEN_REQUIRED", async () => {
    const err = await rejection(() => clientOf({}).getSession());
    assertRefused(err, Code.Unauthenticated, "TOKEN_REQUIRED");
    assert.equal(err.retryDelayMs, undefined);
    // Another scheme than Bearer is no token at all.
    const basic = clientOf({}, { headers: { authorization: `Basic ${TOKENS.alice.token}` } });
    assertRefused(await rejection(() => basic.getSession()), Code.Unauthenticated, "TOKEN_REQUIRED");
  });

  it("refuses a wrong token: TOKEN_INVALID", async () => {
    const err = await rejection(() => clientOf({ token: newToken() }).validate("Write", { argumentsText: "{}" }));
    assertRefused(err, Code.Unauthenticated, "TOKEN_INVALID");
  });

  it("refuses a workspace not granted: WORKSPACE_NOT_GRANTED", async () => {
    const docs = clientOf("default-only", { workspace: "docs" });
    const err = await rejection(() => docs.write("write_to_file", { arguments: { path: "d.txt", content: "x" } }));
    assertRefused(err, Code.PermissionDenied, "WORKSPACE_NOT_GRANTED");
    assert.equal(existsSync(join(server.dir, "docs", "d.txt")), false);
    // The granted workspace works.
    const written = await docs.withContext({ workspace: "" }).write("write_to_file", {
      arguments: { path: "d.txt", content: "x" },
    });
    assert.equal(written.verdict?.ok, true, written.verdict?.feedback);
    assert.equal(existsSync(join(server.workspace, "d.txt")), true);
  });

  it("refuses a call over the burst: RATE_LIMITED with a retry delay", async () => {
    const bursty = clientOf("bursty");
    let succeeded = 0;
    const err = await rejection(async () => {
      for (let i = 0; i < 10; i++) {
        await bursty.getSession();
        succeeded++;
      }
    });
    assertRefused(err, Code.ResourceExhausted, "RATE_LIMITED");
    assert.ok(succeeded >= 2, `the burst of 2 should pass, ${succeeded} did`);
    assert.equal(err.errorMetadata.principal, "bursty");
    assert.ok(err.retryDelayMs !== undefined && err.retryDelayMs > 0, `retryDelayMs ${err.retryDelayMs}`);
    assert.ok(err.retryDelayMs <= 1000, `one token a second, yet retryDelayMs ${err.retryDelayMs}`);
    // Waiting as told works.
    await sleep(err.retryDelayMs + 50);
    assert.equal((await bursty.getSession()).exists, false);
  });

  it("streams with the token", async () => {
    const response = "<write_to_file><path>streamed.txt</path><content>s</content></write_to_file>";
    const events = await collect(
      clientOf("streamer").stream("xml_tags", [response.slice(0, 20), response.slice(20)], { executeOnComplete: true }),
    );
    const complete = events.filter((e) => e.case === "callComplete");
    assert.equal(complete.length, 1);
    assert.equal(complete[0]!.value.execution?.applied, true, complete[0]!.value.verdict?.feedback);
    assert.equal(events.at(-1)?.case, "done");
    assert.equal(await readFile(join(server.workspace, "streamed.txt"), "utf8"), "s");
    // Without it, the stream is refused.
    const err = await rejection(() => collect(clientOf({}).stream("xml_tags", [response])));
    assertRefused(err, Code.Unauthenticated, "TOKEN_REQUIRED");
  });
});

describe("a TLS server with tokens", () => {
  let server: ToolGuardServer;
  const token = newToken();

  before(async () => {
    server = await startServer({
      async prepare(dir) {
        // A self-signed certificate for 127.0.0.1, made with openssl.
        const cert = join(dir, "cert.pem");
        const key = join(dir, "key.pem");
        execFileSync("openssl", [
          "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
          "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=toolguard-test",
          "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ], { stdio: ["ignore", "ignore", "pipe"] });
        const tokens = await writeTokensFile(join(dir, "tokens.yaml"), { "tls-user": { token, workspaces: ["*"] } });
        return ["--tls-cert", cert, "--tls-key", key, "--auth-tokens-file", tokens];
      },
    });
  });

  after(() => stopCleanly(server));

  it("takes calls and streams over https with the CA and the token", async () => {
    const ca = await readFile(join(server.dir, "cert.pem"));
    const client = createToolGuardClient({
      address: `https://${server.address}`,
      sessionId: `ts-tls-${randomUUID()}`,
      token,
      nodeOptions: { ca },
      timeoutMs: 30_000,
    });
    try {
      const verdict = await client.validate("write_to_file", { argumentsText: '{"path": "a", "content": "b"}' });
      assert.equal(verdict.ok, true);
      const events = await collect(
        client.stream("xml_tags", ["<write_to_file><path>a</path><content>b</content>", "</write_to_file>"]),
      );
      const complete = events.find((e) => e.case === "callComplete");
      assert.equal(complete?.case === "callComplete" && complete.value.verdict?.ok, true);
    } finally {
      client.close();
    }
  });

  it("speaks TLS to balanced targets (ipv4:, dns:) given TLS settings", async () => {
    const ca = await readFile(join(server.dir, "cert.pem"));
    const port = server.address.slice(server.address.lastIndexOf(":") + 1);
    for (const address of [`ipv4:${server.address}`, `dns:///localhost:${port}`]) {
      const client = createToolGuardClient({ address, sessionId: `ts-tls-${randomUUID()}`, token, nodeOptions: { ca }, timeoutMs: 30_000 });
      try {
        // localhost may resolve to ::1 as well, where no server listens:
        // that address fails UNAVAILABLE once and is passed over.
        let verdict;
        for (let i = 0; i < 3 && !verdict; i++) {
          verdict = await client.validate("write_to_file", { argumentsText: '{"path": "a", "content": "b"}' }).catch((err: unknown) => {
            if (!(err instanceof ConnectError) || err.code !== Code.Unavailable) throw err;
            return undefined;
          });
        }
        assert.equal(verdict?.ok, true, address);
      } finally {
        client.close();
      }
    }
  });

  it("refuses a client that does not trust the certificate", async () => {
    const client = createToolGuardClient({ address: `https://${server.address}`, sessionId: "s", token, timeoutMs: 30_000 });
    try {
      // Connect reports Node's TLS failure as INTERNAL.
      const err = await rejection(() => client.getSession());
      assert.match(err.message, /self-signed certificate/);
    } finally {
      client.close();
    }
  });
});

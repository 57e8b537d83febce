// Client-side balancing against two real toolguard servers: a target
// naming a resolver spreads calls over both, in turn; a DNS name is
// resolved again when a call finds its address unavailable. Each server has
// its own workspace, so the files written show which one served each call.

import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { after, before, describe, it } from "node:test";

import { Code, ConnectError } from "@connectrpc/connect";

import { createToolGuardClient, type ToolGuardClient } from "../src/index.js";
import { createBalancedChannel, parseBalancedTarget } from "../src/balance.js";
import { startServer, type ToolGuardServer } from "../testing/server.js";

let servers: ToolGuardServer[] = [];
let port = 0;

before(async () => {
  // The second server on another loopback address and the same port, as
  // the pods behind one DNS name are.
  const first = await startServer();
  servers.push(first);
  port = Number(first.address.slice(first.address.lastIndexOf(":") + 1));
  servers.push(await startServer({ args: ["--listen", `127.0.0.2:${port}`] }));
});

after(async () => {
  const codes = await Promise.all(servers.map((s) => s.stop()));
  servers = [];
  assert.deepEqual(codes, [0, 0], "a server did not exit cleanly on SIGTERM");
});

async function counts(folder: string): Promise<number[]> {
  return Promise.all(
    servers.map(async (s) => (await readdir(`${s.workspace}/${folder}`).catch(() => [] as string[])).length),
  );
}

function writer(client: ToolGuardClient, folder: string): () => Promise<void> {
  let n = 0;
  return async () => {
    const res = await client.write("write_to_file", { arguments: { path: `${folder}/f${n++}.txt`, content: "x" } });
    assert.ok(res.verdict?.ok, res.verdict?.feedback);
  };
}

/** Calls until both servers have had one (bounded), then 10 more: 5 each. */
async function assertSpread(client: ToolGuardClient, folder: string): Promise<void> {
  const write = writer(client, folder);
  for (let i = 0; i < 1000 && (await counts(folder)).includes(0); i++) await write();
  const [a, b] = await counts(folder);
  assert.ok(a && b, `${a} and ${b} calls per server: not spread`);
  for (let i = 0; i < 10; i++) await write();
  const [c, d] = await counts(folder);
  assert.deepEqual([c! - a!, d! - b!], [5, 5]);
}

describe("balanced targets", () => {
  it("spreads an ipv4: list's calls over its servers in turn", async () => {
    const client = createToolGuardClient({
      address: `ipv4:${servers.map((s) => s.address).join(",")}`,
      sessionId: "balanced",
      timeoutMs: 30_000,
    });
    try {
      await assertSpread(client, "ipv4");
    } finally {
      client.close();
    }
  });

  it("keeps one server for a plain host:port", async () => {
    const client = createToolGuardClient({ address: servers[0]!.address, sessionId: "pinned", timeoutMs: 30_000 });
    try {
      const write = writer(client, "pinned");
      for (let i = 0; i < 10; i++) await write();
      assert.deepEqual(await counts("pinned"), [10, 0]);
    } finally {
      client.close();
    }
  });

  it("resolves a DNS name to every address, again when one is unavailable", async () => {
    // First a name with one address where nothing listens, then the name
    // with both servers' addresses, as a headless Service's after a rollout.
    const answers = [["127.0.0.3"], ["127.0.0.1", "127.0.0.2"]];
    const asked: string[] = [];
    const channel = createBalancedChannel(parseBalancedTarget(`dns:///toolguard.test:${port}`), {
      scheme: "http",
      defaultTimeoutMs: 30_000,
      minRefreshMs: 0,
      resolve: async (host) => {
        asked.push(host);
        return answers[Math.min(asked.length - 1, answers.length - 1)]!;
      },
    });
    const client = createToolGuardClient({ address: "unused:1", sessionId: "dns", transport: channel.transport });
    try {
      const err = await client.getSession().catch((e: unknown) => e);
      assert.ok(err instanceof ConnectError, String(err));
      assert.equal(err.code, Code.Unavailable);
      let ok = false;
      for (let i = 0; i < 100 && !ok; i++) ok = await client.getSession().then(() => true, () => false);
      assert.ok(ok, "no call succeeded after the name changed");
      assert.equal(asked[0], "toolguard.test");
      assert.ok(asked.length >= 2, `resolved ${asked.length} times`);
      await assertSpread(client, "dns");
    } finally {
      channel.close();
    }
  });

  it("resolves localhost through the system resolver", async () => {
    const client = createToolGuardClient({ address: `dns:///localhost:${port}`, sessionId: "localhost", timeoutMs: 30_000 });
    try {
      // localhost may resolve to ::1 as well, where no server listens: a
      // call there fails UNAVAILABLE and the address is passed over.
      let session;
      for (let i = 0; i < 3 && !session; i++) session = await client.getSession().catch(() => undefined);
      assert.equal(session?.sessionId, "localhost");
    } finally {
      client.close();
    }
  });
});

describe("parseBalancedTarget", () => {
  const cases: [string, ReturnType<typeof parseBalancedTarget> | RegExp][] = [
    ["dns:///toolguard-headless.toolguard:7700", { host: "toolguard-headless.toolguard", port: 7700 }],
    ["dns:toolguard:7700", { host: "toolguard", port: 7700 }],
    ["dns:///toolguard", { host: "toolguard", port: 443 }],
    ["dns:///[::1]:7700", { host: "::1", port: 7700 }],
    ["ipv4:10.0.0.1:7700,10.0.0.2:7701", { addresses: ["10.0.0.1:7700", "10.0.0.2:7701"] }],
    ["ipv6:[::1]:7700,[fe80::1]:7700", { addresses: ["[::1]:7700", "[fe80::1]:7700"] }],
    ["dns://8.8.8.8/toolguard:7700", /DNS authority/],
    ["dns:///toolguard:0", /port from 1 to 65535/],
    ["dns:///toolguard:99999", /port from 1 to 65535/],
    ["ipv4:", /want ipv4:address:port/],
    ["dns:///a b:1", /port from 1 to 65535/],
  ];
  for (const [address, want] of cases) {
    it(address, () => {
      if (want instanceof RegExp) assert.throws(() => parseBalancedTarget(address), want);
      else assert.deepEqual(parseBalancedTarget(address), want);
    });
  }
});

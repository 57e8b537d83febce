// The client's unary transport against a stand-in HTTP/2 server on
// 127.0.0.1 that answers as each test needs: headers sent, deadlines,
// cancellation, error statuses and malformed answers.

import assert from "node:assert/strict";
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";

import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";

import { createToolGuardClient, GetSessionResponseSchema, type ToolGuardClient } from "../src/index.js";

type Answer = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void;

let server: http2.Http2Server;
let address = "";
let answer: Answer = () => {};
const open = new Set<http2.ServerHttp2Stream>();

before(async () => {
  server = http2.createServer();
  server.on("stream", (stream, headers) => {
    open.add(stream);
    stream.on("close", () => open.delete(stream));
    stream.on("error", () => {});
    stream.resume();
    stream.on("end", () => answer(stream, headers));
  });
  await new Promise<void>((res) => server.listen(0, "127.0.0.1", res));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const s of open) s.close();
  await new Promise((res) => server.close(res));
});

function frame(bytes: Uint8Array): Buffer {
  const out = Buffer.alloc(5 + bytes.length);
  out.writeUInt32BE(bytes.length, 1);
  out.set(bytes, 5);
  return out;
}

const session = frame(toBinary(GetSessionResponseSchema, create(GetSessionResponseSchema, { session: { sessionId: "s", exists: true } })));

function ok(body: Buffer = session): Answer {
  return (stream) => {
    stream.respond({ ":status": 200, "content-type": "application/grpc+proto", "x-echo": "1" }, { waitForTrailers: true });
    stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
    stream.end(body);
  };
}

async function codeOf(p: Promise<unknown>): Promise<[Code, string]> {
  const err = await p.then(
    () => assert.fail("the call succeeded"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ConnectError, String(err));
  return [err.code, err.rawMessage];
}

function client(more: Partial<Parameters<typeof createToolGuardClient>[0]> = {}): ToolGuardClient {
  return createToolGuardClient({ address, sessionId: "s", ...more });
}

describe("unary transport", () => {
  it("sends the gRPC headers, the client's and the call's own, and reads the answer", async () => {
    let got: http2.IncomingHttpHeaders = {};
    answer = (stream, headers) => {
      got = headers;
      ok()(stream, headers);
    };
    const c = client({ headers: { "X-Request-Id": "client", "x-tenant": "t" }, token: "tok", timeoutMs: 5000 });
    try {
      let echoed: string | null = null;
      const s = await c.getSession(undefined, {
        headers: [["x-request-id", "call"]],
        onHeader: (h) => (echoed = h.get("x-echo")),
      });
      assert.equal(s.sessionId, "s");
      assert.equal(echoed, "1");
      assert.equal(got[":path"], "/toolguard.v1.ToolGuardService/GetSession");
      assert.equal(got["content-type"], "application/grpc+proto");
      assert.equal(got["te"], "trailers");
      assert.equal(got["grpc-timeout"], "5000m");
      assert.equal(got["x-request-id"], "call");
      assert.equal(got["x-tenant"], "t");
      assert.equal(got["authorization"], "Bearer tok");
      await c.getSession(undefined, { headers: new Headers({ "X-Request-Id": "h" }), timeoutMs: 0 });
      assert.equal(got["x-request-id"], "h");
      assert.equal(got["grpc-timeout"], undefined);
    } finally {
      c.close();
    }
  });

  const statuses: [string, Answer, Code, RegExp][] = [
    [
      "a trailers-only error status",
      (stream) => {
        stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": "5", "grpc-message": "no%20such" }, { endStream: true });
      },
      Code.NotFound,
      /^no such$/,
    ],
    [
      "an error status in the trailers",
      (stream) => {
        stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
        stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "9", "grpc-message": "changed" }));
        stream.end();
      },
      Code.FailedPrecondition,
      /^changed$/,
    ],
    ["an HTTP 503", (stream) => stream.respond({ ":status": 503 }, { endStream: true }), Code.Unavailable, /503/],
    ["no status at all", (stream) => stream.respond({ ":status": 200, "content-type": "application/grpc" }, { endStream: true }), Code.Internal, /missing status/],
    ["two messages", ok(Buffer.concat([session, session])), Code.Unimplemented, /not one output message/],
    ["no message", ok(Buffer.alloc(0)), Code.Unimplemented, /missing output message/],
    ["a compressed message", ok(Buffer.from([1, 0, 0, 0, 0])), Code.Internal, /compressed/],
    ["a reset stream", (stream) => stream.close(http2.constants.NGHTTP2_REFUSED_STREAM), Code.Unavailable, /REFUSED|code 7/],
  ];
  for (const [name, a, code, message] of statuses) {
    it(`turns ${name} into ${Code[code]}`, async () => {
      answer = a;
      const c = client();
      try {
        const [got, msg] = await codeOf(c.getSession());
        assert.equal(Code[got], Code[code]);
        assert.match(msg, message);
      } finally {
        c.close();
      }
    });
  }

  it("gives up at the deadline and on a signal, and sends nothing for an aborted signal", async () => {
    let calls = 0;
    answer = () => calls++; // never answers
    const c = client();
    try {
      assert.equal((await codeOf(c.getSession(undefined, { timeoutMs: 20 })))[0], Code.DeadlineExceeded);
      const ac = new AbortController();
      const p = c.getSession(undefined, { signal: ac.signal });
      ac.abort();
      assert.equal((await codeOf(p))[0], Code.Canceled);
      const before = calls;
      assert.equal((await codeOf(c.getSession(undefined, { signal: AbortSignal.abort() })))[0], Code.Canceled);
      assert.equal(calls, before);
    } finally {
      c.close();
    }
  });

  it("answers UNAVAILABLE where no server listens", async () => {
    const probe = http2.createServer();
    await new Promise<void>((res) => probe.listen(0, "127.0.0.1", res));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((res) => probe.close(res));
    const c = createToolGuardClient({ address: `127.0.0.1:${port}`, sessionId: "s" });
    try {
      assert.equal((await codeOf(c.getSession()))[0], Code.Unavailable);
    } finally {
      c.close();
    }
  });
});

// Unit tests of the client's conversions; no server needed.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport } from "@connectrpc/connect";

import {
  BadRequestSchema,
  CLIENT_HEADER,
  createToolGuardClient,
  ErrorInfoSchema,
  parseStreamFormat,
  PreconditionFailureSchema,
  RetryInfoSchema,
  StreamFormat,
  toBaseUrl,
  toStreamDelta,
  toToolCall,
  toToolDefinition,
  ToolDefinitionSchema,
  ToolGuardError,
  VERSION,
  type HeadersInit,
} from "../src/index.js";
import { servingAddress } from "../testing/server.js";

describe("toToolDefinition", () => {
  const parameters = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };

  it("converts a plain object, parameter aliases as a map", () => {
    const def = toToolDefinition({
      name: "t",
      parameters,
      aliases: ["T"],
      paramAliases: { a: ["alpha", "A"] },
      contentParams: ["a"],
    });
    assert.equal(def.$typeName, "toolguard.v1.ToolDefinition");
    assert.equal(def.name, "t");
    assert.equal(def.description, "");
    assert.deepEqual(def.parameters, parameters);
    assert.deepEqual(def.aliases, ["T"]);
    assert.deepEqual(
      def.paramAliases.map((p) => [p.param, p.aliases, p.allowEmpty]),
      [["a", ["alpha", "A"], false]],
    );
    assert.deepEqual(def.contentParams, ["a"]);
  });

  it("takes parameter aliases as a list with allowEmpty", () => {
    const def = toToolDefinition({ name: "t", parameters, paramAliases: [{ param: "a", aliases: [], allowEmpty: true }] });
    assert.equal(def.paramAliases[0]?.allowEmpty, true);
  });

  it("passes a ToolDefinition message through", () => {
    const msg = create(ToolDefinitionSchema, { name: "m", parameters });
    assert.equal(toToolDefinition(msg), msg);
  });

  it("refuses a missing name or non-object parameters", () => {
    assert.throws(() => toToolDefinition({ name: "", parameters }), TypeError);
    assert.throws(() => toToolDefinition({ name: "t", parameters: [] as never }), TypeError);
    assert.throws(() => toToolDefinition({ name: "t" } as never), TypeError);
  });
});

describe("toToolCall", () => {
  it("builds each argument form", () => {
    assert.deepEqual(toToolCall("Write", { argumentsText: "{}", callId: "c1" }), {
      name: "Write",
      id: "c1",
      arguments: { case: "argumentsText", value: "{}" },
    });
    const params = toToolCall("w", { params: { path: "a" } });
    assert.equal(params.arguments?.case, "params");
    assert.deepEqual(toToolCall("", { xmlBlock: "<x/>" }).arguments, { case: "xmlBlock", value: "<x/>" });
    assert.deepEqual(toToolCall("w", { arguments: { path: "a" } }).arguments, {
      case: "argumentsText",
      value: '{"path":"a"}',
    });
    assert.equal(toToolCall("w", {}).arguments, undefined);
  });

  it("refuses two forms at once", () => {
    assert.throws(() => toToolCall("w", { argumentsText: "{}", xmlBlock: "<x/>" } as never), /one form/);
  });
});

describe("streams", () => {
  it("parses format names", () => {
    assert.equal(parseStreamFormat("xml_tags"), StreamFormat.XML_TAGS);
    assert.equal(parseStreamFormat("OpenAI"), StreamFormat.OPENAI);
    assert.equal(parseStreamFormat("STREAM_FORMAT_QWEN_XML"), StreamFormat.QWEN_XML);
    assert.equal(parseStreamFormat(StreamFormat.MINIMAX), StreamFormat.MINIMAX);
    assert.equal(parseStreamFormat("deepseek_v31"), StreamFormat.DEEPSEEK_V31);
    assert.equal(parseStreamFormat("Kimi_K2"), StreamFormat.KIMI_K2);
    assert.equal(parseStreamFormat("llama3_json"), StreamFormat.LLAMA3_JSON);
    assert.equal(parseStreamFormat("GLM45"), StreamFormat.GLM45);
    assert.equal(parseStreamFormat("stream_format_pythonic"), StreamFormat.PYTHONIC);
    assert.equal(parseStreamFormat("claude_xml"), StreamFormat.CLAUDE_XML);
    assert.equal(parseStreamFormat("auto"), StreamFormat.AUTO);
    assert.throws(() => parseStreamFormat("yaml"), TypeError);
    assert.throws(() => parseStreamFormat(StreamFormat.UNSPECIFIED), TypeError);
  });

  it("converts deltas", () => {
    assert.deepEqual(toStreamDelta("hi"), { text: "hi" });
    assert.deepEqual(toStreamDelta({ index: 2, arguments: "{" }), {
      toolCalls: [{ index: 2, id: "", name: "", arguments: "{", done: false }],
    });
    assert.deepEqual(toStreamDelta({ text: "t", toolCalls: [{ index: 0, done: true }] }), {
      text: "t",
      toolCalls: [{ index: 0, id: "", name: "", arguments: "", done: true }],
    });
  });

  it("refuses an unknown format at once", () => {
    const client = createToolGuardClient({ address: "127.0.0.1:1", sessionId: "s" });
    assert.throws(() => client.stream("nope" as never, []), TypeError);
    client.close();
  });
});

describe("ToolGuardError", () => {
  function connectError(): ConnectError {
    return new ConnectError("context.session_id: a session id is required", Code.InvalidArgument, undefined, [
      { desc: ErrorInfoSchema, value: { reason: "SESSION_ID_REQUIRED", domain: "toolguard.dev", metadata: { k: "v" } } },
      {
        desc: BadRequestSchema,
        value: { fieldViolations: [{ field: "context.session_id", description: "required", reason: "SESSION_ID_REQUIRED" }] },
      },
      { desc: PreconditionFailureSchema, value: { violations: [{ type: "FILE_CHANGED", subject: "a", description: "d" }] } },
    ]);
  }

  it("decodes ErrorInfo, BadRequest and PreconditionFailure", () => {
    const err = new ToolGuardError(connectError());
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.reason, "SESSION_ID_REQUIRED");
    assert.equal(err.domain, "toolguard.dev");
    assert.deepEqual(err.errorMetadata, { k: "v" });
    assert.deepEqual(err.fieldViolations, [
      { field: "context.session_id", description: "required", reason: "SESSION_ID_REQUIRED" },
    ]);
    assert.deepEqual(err.preconditionViolations, [{ type: "FILE_CHANGED", subject: "a", description: "d" }]);
    assert.equal(err.message, "[invalid_argument] context.session_id: a session id is required");
  });

  it("is a ConnectError, and only ToolGuardErrors are ToolGuardErrors", () => {
    const plain = connectError();
    const err = ToolGuardError.wrap(plain);
    assert.ok(err instanceof ToolGuardError);
    assert.ok(err instanceof ConnectError);
    assert.equal(ConnectError.from(err), err);
    assert.ok(!(plain instanceof ToolGuardError));
    assert.equal(ToolGuardError.wrap(err), err);
    const other = new TypeError("x");
    assert.equal(ToolGuardError.wrap(other), other);
  });

  it("leaves reason undefined without an ErrorInfo", () => {
    const err = new ToolGuardError(new ConnectError("boom", Code.Internal));
    assert.equal(err.reason, undefined);
    assert.deepEqual(err.fieldViolations, []);
    assert.equal(err.retryDelayMs, undefined);
  });

  it("decodes RetryInfo as retryDelayMs", () => {
    const err = new ToolGuardError(
      new ConnectError("over the rate limit", Code.ResourceExhausted, undefined, [
        { desc: ErrorInfoSchema, value: { reason: "RATE_LIMITED", domain: "toolguard.dev" } },
        { desc: RetryInfoSchema, value: { retryDelay: { seconds: 1n, nanos: 250_000_000 } } },
      ]),
    );
    assert.equal(err.reason, "RATE_LIMITED");
    assert.equal(err.retryDelayMs, 1250);
  });
});

describe("token and headers", () => {
  /** A transport that records each call's headers and fails it. */
  function recorder(): { transport: Transport; headers: Headers[] } {
    const headers: Headers[] = [];
    const fail = (h: HeadersInit | undefined): Promise<never> => {
      headers.push(new Headers(h));
      return Promise.reject(new ConnectError("recorded", Code.Unavailable));
    };
    return {
      headers,
      transport: {
        unary: (_m, _s, _t, h) => fail(h),
        stream: (_m, _s, _t, h) => fail(h),
      },
    };
  }

  it("sends the token and the headers with unary calls and streams; a call's own headers win", async () => {
    const rec = recorder();
    const client = createToolGuardClient({
      address: "127.0.0.1:1",
      sessionId: "s",
      token: "t0k3n",
      headers: { "x-request-id": "r1" },
      transport: rec.transport,
    });
    await assert.rejects(client.getSession(), ToolGuardError);
    await assert.rejects(client.withContext({ sessionId: "s2" }).validate("w", { headers: { "x-request-id": "r2" } }));
    await assert.rejects(async () => {
      for await (const _ of client.stream("xml_tags", ["x"])) void _;
    }, ToolGuardError);
    await assert.rejects(client.listTools(undefined, { headers: { authorization: "Bearer other" } }));
    assert.deepEqual(
      rec.headers.map((h) => [h.get("authorization"), h.get("x-request-id")]),
      [
        ["Bearer t0k3n", "r1"],
        ["Bearer t0k3n", "r2"],
        ["Bearer t0k3n", "r1"],
        ["Bearer other", "r1"],
      ],
    );
    assert.deepEqual(
      rec.headers.map((h) => h.get(CLIENT_HEADER)),
      Array(4).fill(`typescript/${VERSION}`),
    );
  });

  it("names itself unless the caller's headers do", async () => {
    const rec = recorder();
    const client = createToolGuardClient({ address: "127.0.0.1:1", sessionId: "s", headers: { "X-Toolguard-Client": "mine/1" }, transport: rec.transport });
    await assert.rejects(client.getSession(), ToolGuardError);
    assert.equal(rec.headers[0]!.get(CLIENT_HEADER), "mine/1");
  });

  it("refuses malformed tokens and conflicting options", () => {
    const base = { address: "127.0.0.1:1", sessionId: "s" };
    assert.throws(() => createToolGuardClient({ ...base, token: "abc\n" }), /visible ASCII/);
    assert.throws(() => createToolGuardClient({ ...base, token: "abc", headers: { Authorization: "Bearer x" } }), /not both/);
    assert.throws(() => createToolGuardClient({ ...base, nodeOptions: { ca: "pem" } }), /https:\/\//);
    assert.throws(
      () => createToolGuardClient({ ...base, nodeOptions: {}, transport: recorder().transport }),
      /nodeOptions/,
    );
    createToolGuardClient({ ...base, address: "https://127.0.0.1:1", nodeOptions: { ca: "pem" }, token: "" }).close();
  });
});

describe("addresses", () => {
  it("builds base URLs", () => {
    assert.equal(toBaseUrl("127.0.0.1:7700"), "http://127.0.0.1:7700");
    assert.equal(toBaseUrl("[::1]:7700"), "http://[::1]:7700");
    assert.equal(toBaseUrl("https://guard.internal/"), "https://guard.internal");
    assert.throws(() => toBaseUrl(""), TypeError);
  });

  it("reads the server's address from its log line", () => {
    assert.equal(
      servingAddress('{"level":"info","msg":"serving gRPC","address":"127.0.0.1:40123"}'),
      "127.0.0.1:40123",
    );
    assert.equal(servingAddress('{"msg":"starting toolguard","listen":"127.0.0.1:0"}'), undefined);
    assert.equal(servingAddress("not json"), undefined);
  });
});

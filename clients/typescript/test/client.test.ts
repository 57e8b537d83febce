// Unit tests of the client's conversions; no server needed.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";

import {
  BadRequestSchema,
  createToolGuardClient,
  ErrorInfoSchema,
  parseStreamFormat,
  PreconditionFailureSchema,
  StreamFormat,
  toBaseUrl,
  toStreamDelta,
  toToolCall,
  toToolDefinition,
  ToolDefinitionSchema,
  ToolGuardError,
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

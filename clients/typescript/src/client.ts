/**
 * A thin, typed client for the toolguard gRPC service (toolguard.v1).
 *
 * It speaks gRPC over HTTP/2 through Connect for Node.js and adds only what
 * every caller otherwise writes by hand: the toolguard.v1.RequestContext on
 * each call, tool definitions from plain objects, stream frames from plain
 * deltas, and errors whose google.rpc details are decoded
 * ({@link ToolGuardError}). Everything else is the generated API, re-exported
 * from the package root; {@link ToolGuardClient.raw} is the generated client
 * for anything this one does not wrap.
 *
 * @example
 * ```ts
 * const client = createToolGuardClient({ address: "127.0.0.1:7700", sessionId: "task-42" });
 * const verdict = await client.validate("Write", { argumentsText: '{"file_path": "a.py", "text": "x"}' });
 * if (!verdict.ok) sendToModel(verdict.feedback);
 * ```
 *
 * @packageDocumentation
 */

import { create, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createClient,
  type CallOptions,
  type Client,
  type Transport,
} from "@connectrpc/connect";
import type * as http2 from "node:http2";

import { createBalancedChannel, isBalancedTarget, parseBalancedTarget } from "./balance.js";
import { createChannel, type Channel } from "./transport.js";

import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  RetryInfoSchema,
} from "./gen/google/rpc/error_details_pb.js";
import {
  StreamFormat,
  StringParamsSchema,
  ToolDefinitionSchema,
  ToolGuardService,
  type ExecuteEditResponse,
  type ExecuteWriteResponse,
  type GetFileInfoResponse,
  type ListToolsResponse,
  type ReadFileResponse,
  type SearchFilesResponse,
  type ListDirectoryResponse,
  type FindFilesResponse,
  type ReadFilesResponse,
  type ReadMediaFileResponse,
  type RequestContextSchema,
  type Session,
  type StreamDelta,
  type StreamDeltaSchema,
  type StreamToolCallsRequestSchema,
  type StreamToolCallsResponse,
  type ToolCallDeltaSchema,
  type ToolCallSchema,
  type ToolDefinition,
  type Verdict,
} from "./gen/toolguard/v1/toolguard_pb.js";
import { CLIENT_HEADER, VERSION } from "./version.js";

/** Headers as `new Headers(init)` takes them: an object, pairs or a Headers. */
export type HeadersInit = NonNullable<ConstructorParameters<typeof Headers>[0]>;

/** The error domain of toolguard's google.rpc.ErrorInfo details. */
export const ERROR_DOMAIN = "toolguard.dev";

// ---------------------------------------------------------------------------
// Options

/** Options of {@link createToolGuardClient}. */
export interface ToolGuardClientOptions {
  /**
   * The server: `host:port` (`"127.0.0.1:7700"`, `"[::1]:7700"`) for
   * plaintext HTTP/2, or a base URL (`"http://127.0.0.1:7700"`, or
   * `"https://toolguard.internal:7700"` for TLS; see
   * {@link ToolGuardClientOptions.nodeOptions}).
   *
   * A target naming a resolver is balanced, as gRPC's `round_robin`:
   * `"dns:///toolguard-headless.toolguard:7700"` (A and AAAA records),
   * `"ipv4:10.0.1.7:7700,10.0.1.8:7700"` or `"ipv6:[::1]:7700,..."`. The
   * client keeps one HTTP/2 connection per address and sends each call to
   * the next one; a DNS name is resolved again every 30 seconds and when a
   * call fails with UNAVAILABLE, so servers added behind the name (a
   * headless Service's pods) get calls. Such a target speaks TLS when
   * `nodeOptions` has TLS settings (`ca`, `cert`, `key`, `pfx`) or a
   * `servername` (with Node's own CAs: `{ servername: "toolguard.internal" }`);
   * certificates are checked against the DNS name.
   */
  address: string;
  /**
   * Session whose consecutive mistakes are counted, usually one agent task.
   * Required by the server on every call-carrying request (at most 256
   * bytes); an empty one is the caller's mistake (INVALID_ARGUMENT,
   * reason SESSION_ID_REQUIRED).
   */
  sessionId: string;
  /**
   * Model that produces the calls, e.g. `"claude-sonnet-4-5"`. Selects
   * model-specific content fixes and the tool variant the model was shown.
   */
  modelId?: string;
  /** Named workspace for ExecuteWrite/ExecuteEdit; empty: the server's default. */
  workspace?: string;
  /**
   * Consecutive mistakes after which a verdict reports `limitReached`. May
   * only lower the server's limit; 0 or unset means the server's.
   */
  mistakeLimit?: number;
  /**
   * The bearer token of a server started with `--auth-tokens-file`: every
   * call, streams included, then carries `authorization: Bearer <token>`.
   * Empty or unset: none. Not together with an `authorization` header in
   * `headers`.
   */
  token?: string;
  /**
   * Headers sent with every call (tracing, `x-request-id`, which toolguard
   * logs and echoes); a call's own headers win.
   */
  headers?: HeadersInit;
  /**
   * Options of Node's `http2.connect()` for the connection built from
   * `address`, chiefly TLS with an `https://` address: `ca` (the CA of a
   * server certificate not in Node's store), and `cert` and `key` for
   * mutual TLS (`--tls-client-ca`).
   */
  nodeOptions?: http2.SecureClientSessionOptions;
  /** Default timeout of every call in milliseconds; unset: none. */
  timeoutMs?: number;
  /**
   * A transport to use instead of the HTTP/2 one built from `address`
   * (interceptors, tests; not with `nodeOptions`). `token` and `headers`
   * still apply. {@link ToolGuardClient.close} then leaves it alone.
   */
  transport?: Transport;
}

/** The parts of the RequestContext a client puts on every call. */
export interface ContextInit {
  /** See {@link ToolGuardClientOptions.sessionId}. */
  sessionId: string;
  /** See {@link ToolGuardClientOptions.modelId}. */
  modelId?: string;
  /** See {@link ToolGuardClientOptions.workspace}. */
  workspace?: string;
  /** See {@link ToolGuardClientOptions.mistakeLimit}. */
  mistakeLimit?: number;
}

/** Options every method accepts, passed to Connect. */
export interface RequestOptions {
  /** Cancels the call (the error then has code Canceled). */
  signal?: AbortSignal;
  /** Timeout of this call in milliseconds. */
  timeoutMs?: number;
  /** Headers for this call only; they win over the client's headers. */
  headers?: HeadersInit;
  /** Called with the response headers (toolguard echoes `x-request-id`). */
  onHeader?(headers: Headers): void;
  /** Called with the response trailers. */
  onTrailer?(trailers: Headers): void;
}

// ---------------------------------------------------------------------------
// Tools

/** Alternative names of one parameter, as in toolguard's tools file. */
export interface ParamAliasesInit {
  /** Canonical parameter name as declared in the schema. */
  param: string;
  /** Names models use instead, e.g. `["file_path", "filePath"]`. */
  aliases: string[];
  /** Whether an empty string is a legal value (e.g. `new_text: ""` deletes). */
  allowEmpty?: boolean;
}

/**
 * A tool the server does not know (or an override of one of its tools, for
 * one request), as a plain object.
 */
export interface ToolInit {
  /** Canonical tool name, e.g. `"add_semantic_memory"`. */
  name: string;
  /** What the tool does, for the model. */
  description?: string;
  /**
   * JSON Schema of the arguments object: the `parameters` of an OpenAI tool
   * or the `input_schema` of an Anthropic tool.
   */
  parameters: JsonObject;
  /** Other names the model may use for the tool. */
  aliases?: string[];
  /**
   * Other names the model may use for each parameter: a map from the
   * canonical name to its aliases, or a list with `allowEmpty` flags.
   */
  paramAliases?: Record<string, string[]> | ParamAliasesInit[];
  /**
   * Parameters that carry file content: in XML forms their values run to
   * the last closing tag, so a literal `</content>` in a file survives.
   */
  contentParams?: string[];
}

/** A tool as a plain object, or a generated ToolDefinition (e.g. from ListTools). */
export type ToolInput = ToolInit | ToolDefinition;

/**
 * Converts a plain tool object to the API's ToolDefinition. A
 * ToolDefinition message is returned as it is.
 *
 * @throws TypeError when the name is missing or `parameters` is not a JSON object.
 */
export function toToolDefinition(tool: ToolInput): ToolDefinition {
  if (isMessage(tool, "toolguard.v1.ToolDefinition")) {
    return tool as ToolDefinition;
  }
  const t = tool as ToolInit;
  if (typeof t.name !== "string" || t.name === "") {
    throw new TypeError("tool definition: name is required");
  }
  if (!isJsonObject(t.parameters)) {
    throw new TypeError(`tool definition ${t.name}: parameters must be a JSON Schema object`);
  }
  let paramAliases: ParamAliasesInit[] = [];
  if (Array.isArray(t.paramAliases)) {
    paramAliases = t.paramAliases;
  } else if (t.paramAliases) {
    paramAliases = Object.entries(t.paramAliases).map(([param, aliases]) => ({ param, aliases }));
  }
  return create(ToolDefinitionSchema, {
    name: t.name,
    description: t.description ?? "",
    // google.protobuf.Struct fields are JsonObject in protobuf-es v2; the
    // runtime converts them to and from Struct on the wire.
    parameters: t.parameters,
    aliases: t.aliases ?? [],
    paramAliases: paramAliases.map((p) => ({
      param: p.param,
      aliases: p.aliases,
      allowEmpty: p.allowEmpty ?? false,
    })),
    contentParams: t.contentParams ?? [],
  });
}

// ---------------------------------------------------------------------------
// Calls

/**
 * The arguments of a call, in exactly one form. Omitting all of them sends
 * a call without arguments (the server treats that as `{}`).
 */
export type CallArguments =
  | {
      /** Arguments text exactly as the model wrote it: JSON, broken JSON, a Python dict... */
      argumentsText: string;
      params?: undefined;
      xmlBlock?: undefined;
      arguments?: undefined;
    }
  | {
      argumentsText?: undefined;
      /** Parameters already split out of an XML tool block, each a string. */
      params: Record<string, string>;
      xmlBlock?: undefined;
      arguments?: undefined;
    }
  | {
      argumentsText?: undefined;
      params?: undefined;
      /** A whole XML tool block; the call's name may then be empty. */
      xmlBlock: string;
      arguments?: undefined;
    }
  | {
      argumentsText?: undefined;
      params?: undefined;
      xmlBlock?: undefined;
      /**
       * Arguments already parsed (an Anthropic `input`): sent as
       * `argumentsText` with JSON.stringify.
       */
      arguments: JsonObject;
    }
  | {
      argumentsText?: undefined;
      params?: undefined;
      xmlBlock?: undefined;
      arguments?: undefined;
    };

/** What every call-carrying method takes besides the arguments. */
export interface CallInit extends RequestOptions {
  /** The id the model or orchestrator gave the call; echoed in `verdict.callId`. */
  callId?: string;
  /** Tools the server does not know, for this request only. */
  tools?: ToolInput[];
}

/** Input of {@link ToolGuardClient.validate}. */
export type ValidateInput = CallArguments & CallInit;

/** Input of {@link ToolGuardClient.write}. */
export type WriteInput = CallArguments &
  CallInit & {
    /**
     * Hex SHA-256 of the file as the model last read it. When the file has
     * changed since (or does not exist) the call fails with
     * FAILED_PRECONDITION, reason FILE_CHANGED, and nothing is written.
     */
    expectedSha256?: string;
    /** Validate and compute the diff, but write nothing. */
    dryRun?: boolean;
  };

/** Input of {@link ToolGuardClient.edit}. */
export type EditInput = WriteInput & {
  /**
   * Apply the edits that can be applied and report the others. By default
   * a batch is all-or-nothing.
   */
  partial?: boolean;
};

/** Input of {@link ToolGuardClient.read}. */
/** Options of a listing (ListDirectory). */
export interface ListInput extends RequestOptions {
  /** Levels to list, 1 to 32; 0 or absent for 1. */
  depth?: number;
  /** The most entries to return; 0 or absent for 200 (capped at 5000). */
  maxEntries?: number;
  /** Glob patterns to leave out: a name without "/", a path below the folder with it. */
  exclude?: string[];
  /** Leave out what the .gitignore files ignore. */
  gitignore?: boolean;
}

/** Options of a find (FindFiles). */
export interface FindInput extends RequestOptions {
  /** The folder to search in; empty or absent for the root. */
  path?: string;
  /** Glob patterns of paths to leave out. */
  exclude?: string[];
  /** The most paths to return; 0 or absent for 200 (capped at 5000). */
  maxResults?: number;
  /** Leave out what the .gitignore files ignore. */
  gitignore?: boolean;
}

export interface ReadInput extends RequestOptions {
  /** 1-based first line; 0 or absent for the first. */
  offset?: number;
  /** How many lines; 0 or absent for all of them. */
  limit?: number;
  /**
   * Number the lines as `"  12 | code"`, the shape an edit's old text may
   * carry back.
   */
  lineNumbers?: boolean;
  /**
   * 1-based byte of line `offset` to start at, to read on inside a line
   * longer than one answer (a truncated response's `nextColumn`); 0 or
   * absent for its first.
   */
  column?: number;
  /** Only the first `head` lines; not with `tail`, `offset` or `limit`. */
  head?: number;
  /** Only the last `tail` lines. */
  tail?: number;
}

/** Options of {@link ToolGuardClient.readFiles}. */
export interface ReadFilesInput extends RequestOptions {
  /** Only each file's first `head` lines. */
  head?: number;
  /** Only each file's last `tail` lines (not with `head`). */
  tail?: number;
  /** Number the lines as `"  12 | code"`. */
  lineNumbers?: boolean;
}

/** What {@link ToolGuardClient.search} takes besides the pattern. */
export interface SearchInput extends RequestOptions {
  /** The folder to search in; absent for the workspace root. */
  path?: string;
  /** A glob of the files to search (`"*.ts"`, `"src/**\/*.go"`). */
  include?: string;
  /** Globs of paths to leave out; a folder left out is not searched. */
  exclude?: string[];
  /** Search for the pattern as written, not as a regular expression. */
  literal?: boolean;
  /** Match regardless of letter case. */
  ignoreCase?: boolean;
  /** Match regardless of case unless the pattern has an upper-case letter. */
  smartCase?: boolean;
  /** Context lines before and after each match (0 to 20). */
  contextLines?: number;
  /** Context lines before each match, overriding contextLines. */
  before?: number;
  /** Context lines after each match, overriding contextLines. */
  after?: number;
  /** The most matching lines (or files); absent for 100. */
  maxResults?: number;
  /** `content` (the default), `files_with_matches` or `count`. */
  outputMode?: "content" | "files_with_matches" | "count";
  /** Leave out what the `.gitignore` files ignore. */
  gitignore?: boolean;
}

/**
 * Builds the API's ToolCall from a name and {@link CallArguments}.
 *
 * @throws TypeError when more than one argument form is given.
 */
export function toToolCall(name: string, args: CallArguments & { callId?: string }): MessageInitShape<typeof ToolCallSchema> {
  const forms = (["argumentsText", "params", "xmlBlock", "arguments"] as const).filter(
    (k) => args[k] !== undefined,
  );
  if (forms.length > 1) {
    throw new TypeError(`a tool call has one form of arguments, got ${forms.join(" and ")}`);
  }
  let argumentsInit: MessageInitShape<typeof ToolCallSchema>["arguments"];
  if (args.argumentsText !== undefined) {
    argumentsInit = { case: "argumentsText", value: args.argumentsText };
  } else if (args.params !== undefined) {
    argumentsInit = { case: "params", value: create(StringParamsSchema, { values: args.params }) };
  } else if (args.xmlBlock !== undefined) {
    argumentsInit = { case: "xmlBlock", value: args.xmlBlock };
  } else if (args.arguments !== undefined) {
    argumentsInit = { case: "argumentsText", value: JSON.stringify(args.arguments) };
  }
  return {
    name,
    id: args.callId ?? "",
    ...(argumentsInit ? { arguments: argumentsInit } : {}),
  };
}

// ---------------------------------------------------------------------------
// Streams

/** Stream format names, as the server's CLI spells them. */
export type StreamFormatName =
  | "xml_tags"
  | "openai"
  | "anthropic"
  | "hermes"
  | "qwen_xml"
  | "minimax"
  | "glm45"
  | "harmony"
  | "deepseek_v3"
  | "deepseek_v31"
  | "kimi_k2"
  | "mistral"
  | "pythonic"
  | "llama3_json"
  | "claude_xml"
  | "auto";

const formatNames: Record<StreamFormatName, StreamFormat> = {
  xml_tags: StreamFormat.XML_TAGS,
  openai: StreamFormat.OPENAI,
  anthropic: StreamFormat.ANTHROPIC,
  hermes: StreamFormat.HERMES,
  qwen_xml: StreamFormat.QWEN_XML,
  minimax: StreamFormat.MINIMAX,
  glm45: StreamFormat.GLM45,
  pythonic: StreamFormat.PYTHONIC,
  claude_xml: StreamFormat.CLAUDE_XML,
  harmony: StreamFormat.HARMONY,
  deepseek_v3: StreamFormat.DEEPSEEK_V3,
  deepseek_v31: StreamFormat.DEEPSEEK_V31,
  kimi_k2: StreamFormat.KIMI_K2,
  mistral: StreamFormat.MISTRAL,
  llama3_json: StreamFormat.LLAMA3_JSON,
  auto: StreamFormat.AUTO,
};

/**
 * Returns the StreamFormat for a name (`"xml_tags"`, `"openai"`,
 * `"anthropic"`, `"hermes"`, `"qwen_xml"`, `"minimax"`, `"glm45"`,
 * `"harmony"`, `"deepseek_v3"`, `"deepseek_v31"`, `"kimi_k2"`, `"mistral"`,
 * `"pythonic"`, `"llama3_json"`, `"claude_xml"`, `"auto"`, case-insensitive,
 * with or without the `STREAM_FORMAT_` prefix) or passes an enum value
 * through.
 *
 * @throws TypeError for an unknown name or UNSPECIFIED.
 */
export function parseStreamFormat(format: StreamFormat | StreamFormatName | string): StreamFormat {
  if (typeof format === "number") {
    if (format === StreamFormat.UNSPECIFIED || StreamFormat[format] === undefined) {
      throw new TypeError(`unknown stream format ${format}`);
    }
    return format;
  }
  const name = format.toLowerCase().replace(/^stream_format_/, "") as StreamFormatName;
  const f = formatNames[name];
  if (f === undefined) {
    throw new TypeError(
      `unknown stream format "${format}": want ${Object.keys(formatNames).join(", ")}`,
    );
  }
  return f;
}

/**
 * One fragment of a structured tool call (OpenAI `delta.tool_calls[]`, one
 * Anthropic content-block event). Fragments of one call share `index`.
 */
export interface ToolCallDeltaInit {
  /** The call's position in the response. */
  index: number;
  /** The call id, usually on the first fragment only. */
  id?: string;
  /** The tool name (or a piece of it), usually on the first fragment only. */
  name?: string;
  /** The next fragment of the arguments text. */
  arguments?: string;
  /** The call is complete (Anthropic `content_block_stop`). */
  done?: boolean;
}

/** A whole StreamDelta frame: text and/or structured fragments. */
export interface StreamDeltaInit {
  /** Model text: the whole output for text formats, the message content for OpenAI/Anthropic. */
  text?: string;
  /** Structured tool call fragments (OpenAI and Anthropic only). */
  toolCalls?: ToolCallDeltaInit[];
}

/**
 * One piece of the model's output: a string is text, an object with an
 * `index` is one tool call fragment, anything else a whole delta frame.
 */
export type StreamDeltaInput = string | ToolCallDeltaInit | StreamDeltaInit;

/** Converts a {@link StreamDeltaInput} to the API's StreamDelta. */
export function toStreamDelta(delta: StreamDeltaInput): MessageInitShape<typeof StreamDeltaSchema> {
  if (typeof delta === "string") {
    return { text: delta };
  }
  if (isMessage(delta, "toolguard.v1.StreamDelta")) {
    return delta as StreamDelta;
  }
  if ("index" in delta && typeof delta.index === "number") {
    return { toolCalls: [toToolCallDelta(delta)] };
  }
  const d = delta as StreamDeltaInit;
  return { text: d.text ?? "", toolCalls: (d.toolCalls ?? []).map(toToolCallDelta) };
}

function toToolCallDelta(d: ToolCallDeltaInit): MessageInitShape<typeof ToolCallDeltaSchema> {
  return {
    index: d.index,
    id: d.id ?? "",
    name: d.name ?? "",
    arguments: d.arguments ?? "",
    done: d.done ?? false,
  };
}

/** Options of {@link ToolGuardClient.stream}. */
export interface StreamInit extends RequestOptions {
  /**
   * The model's finish reason as its API gave it (`"stop"`, `"tool_calls"`,
   * `"end_turn"`, `"tool_use"`, `"length"`, `"max_tokens"`...), sent in the
   * end frame. A length limit marks every call still open as truncated.
   * A function is called once the deltas are exhausted, for finish reasons
   * that arrive at the end of the model's own stream.
   */
  finishReason?: string | (() => string | undefined);
  /** Tools the server does not know, for this stream. */
  tools?: ToolInput[];
  /**
   * Names of the server's tools in play; empty: every registered tool. For
   * `xml_tags` only these (and `tools`) open a call.
   */
  toolNames?: string[];
  /** Execute each complete, usable write or edit call as soon as it closes. */
  executeOnComplete?: boolean;
  /** With `executeOnComplete`: compute results and diffs, write nothing. */
  dryRun?: boolean;
  /** With `executeOnComplete`: apply what can be applied of an edit batch. */
  partial?: boolean;
  /** Largest size of one call in bytes; may only lower the server's limit. */
  maxCallBytes?: number;
  /** Largest size of one parameter value in bytes; may only lower the server's limit. */
  maxParamBytes?: number;
}

/**
 * One event of a stream, a discriminated union on `case`: `"text"`,
 * `"callStarted"`, `"paramUpdate"`, `"callComplete"`, `"error"` and, last,
 * `"done"`; `value` is the event message.
 */
export type StreamEvent = Exclude<StreamToolCallsResponse["event"], { case: undefined }>;

// ---------------------------------------------------------------------------
// Errors

/** One bad field of a request (google.rpc.BadRequest.FieldViolation). */
export interface FieldViolation {
  /** The field, as a path into the request: `"context.session_id"`, `"tools[0]"`. */
  field: string;
  /** What is wrong with it. */
  description: string;
  /** Stable reason, usually the ErrorInfo reason. */
  reason: string;
}

/** One failed precondition (google.rpc.PreconditionFailure.Violation). */
export interface PreconditionViolation {
  /** The kind of precondition, e.g. `"FILE_CHANGED"`. */
  type: string;
  /** What it concerns, e.g. the workspace-relative path. */
  subject: string;
  /** How to fix it. */
  description: string;
}

/**
 * An error status from the server, with its google.rpc details decoded.
 *
 * toolguard answers a model's mistakes with verdicts; errors are for the
 * caller's mistakes (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION...)
 * and the server's faults (INTERNAL, UNAVAILABLE). Every error the server
 * makes carries a google.rpc.ErrorInfo whose `reason` is stable, e.g.
 * `SESSION_ID_REQUIRED`, `INVALID_TOOL_DEFINITION`, `WORKSPACE_NOT_FOUND`,
 * `WRONG_RPC`, `FILE_CHANGED`.
 *
 * It is a ConnectError (its `name` stays `"ConnectError"` so that
 * `err instanceof ConnectError` and `ConnectError.from(err)` keep
 * recognising it; `err instanceof ToolGuardError` works as usual), so
 * `findDetails` decodes any other detail.
 */
export class ToolGuardError extends ConnectError {
  /** google.rpc.ErrorInfo `reason`, when the server sent one. */
  readonly reason: string | undefined;
  /** google.rpc.ErrorInfo `domain` (`"toolguard.dev"` for toolguard's own errors). */
  readonly domain: string | undefined;
  /** google.rpc.ErrorInfo `metadata`, e.g. `{tool: "..."}` or `{path: "..."}`. */
  readonly errorMetadata: Record<string, string>;
  /** google.rpc.BadRequest field violations. */
  readonly fieldViolations: FieldViolation[];
  /** google.rpc.PreconditionFailure violations. */
  readonly preconditionViolations: PreconditionViolation[];
  /**
   * How long to wait before retrying, in milliseconds, from a
   * google.rpc.RetryInfo (RESOURCE_EXHAUSTED, reason `RATE_LIMITED` or
   * `SERVER_MEMORY_BUSY`);
   * undefined when the status carries none.
   */
  readonly retryDelayMs: number | undefined;

  /** Wraps a ConnectError, decoding its details. */
  constructor(err: ConnectError) {
    super(err.rawMessage, err.code, err.metadata, undefined, err.cause);
    this.details = err.details;
    const info = err.findDetails(ErrorInfoSchema)[0];
    this.reason = info?.reason;
    this.domain = info?.domain;
    this.errorMetadata = { ...(info?.metadata ?? {}) };
    this.fieldViolations = err.findDetails(BadRequestSchema).flatMap((b) =>
      b.fieldViolations.map((v) => ({ field: v.field, description: v.description, reason: v.reason })),
    );
    this.preconditionViolations = err.findDetails(PreconditionFailureSchema).flatMap((p) =>
      p.violations.map((v) => ({ type: v.type, subject: v.subject, description: v.description })),
    );
    const delay = err.findDetails(RetryInfoSchema)[0]?.retryDelay;
    this.retryDelayMs = delay ? Math.max(0, Number(delay.seconds) * 1000 + delay.nanos / 1e6) : undefined;
  }

  /**
   * Converts anything caught from a call: a ConnectError becomes a
   * ToolGuardError, a ToolGuardError and anything else are returned as
   * they are.
   */
  static wrap(err: unknown): unknown {
    if (err instanceof ToolGuardError) return err;
    if (err instanceof ConnectError) return new ToolGuardError(err);
    return err;
  }

  /** Plain prototype-chain instanceof (ConnectError's checks by name). */
  static override [Symbol.hasInstance](v: unknown): boolean {
    return Function.prototype[Symbol.hasInstance].call(this, v);
  }
}

// ---------------------------------------------------------------------------
// The client

/**
 * A toolguard client bound to one session (and optionally a model and a
 * workspace). Create it with {@link createToolGuardClient}; derive clients
 * for other sessions with {@link ToolGuardClient.withContext}, which share
 * the connection.
 *
 * Every method rejects with a {@link ToolGuardError} on an error status; a
 * model's mistake is never an error but a Verdict with `ok: false`.
 */
export class ToolGuardClient {
  /** The generated Connect client, for anything this class does not wrap. */
  readonly raw: Client<typeof ToolGuardService>;
  /** The context sent with every call-carrying request. */
  readonly context: Readonly<ContextInit>;
  readonly #close: () => void;

  /** @internal Use {@link createToolGuardClient}. */
  constructor(raw: Client<typeof ToolGuardService>, context: ContextInit, close: () => void) {
    this.raw = raw;
    this.context = Object.freeze({ ...context });
    this.#close = close;
  }

  /**
   * A client for another session (or model, workspace, limit) over the
   * same connection. Fields not given are kept.
   */
  withContext(context: Partial<ContextInit>): ToolGuardClient {
    return new ToolGuardClient(this.raw, { ...this.context, ...context }, this.#close);
  }

  /**
   * ValidateToolCall: repairs and validates one tool call exactly as the
   * model emitted it and counts the outcome in the session. Never touches
   * the file system.
   *
   * @param name the tool name as the model wrote it (`"Write"`,
   *   `"str_replace"`...); may be `""` with `xmlBlock`.
   * @returns the verdict: `ok`, the canonical `toolName` and `arguments`,
   *   `repairs`, `violations`, `feedback` for the model, `mistakes`.
   */
  async validate(name: string, input: ValidateInput = {}): Promise<Verdict> {
    const request = {
      context: this.#requestContext(),
      call: toToolCall(name, input),
      tools: (input.tools ?? []).map(toToolDefinition),
    };
    const res = await this.#unary(() => this.raw.validateToolCall(request, callOptions(input)));
    if (!res.verdict) throw missing("a verdict");
    return res.verdict;
  }

  /**
   * ExecuteWrite: validates a write_to_file call (under any of its names)
   * and writes the file atomically inside the context's workspace. A
   * model's mistake, including a path outside the workspace, is a verdict
   * with feedback, and nothing is written.
   */
  async write(name: string, input: WriteInput = {}): Promise<ExecuteWriteResponse> {
    const request = {
      context: this.#requestContext(),
      call: toToolCall(name, input),
      tools: (input.tools ?? []).map(toToolDefinition),
      expectedSha256: input.expectedSha256 ?? "",
      dryRun: input.dryRun ?? false,
    };
    return this.#unary(() => this.raw.executeWrite(request, callOptions(input)));
  }

  /**
   * ExecuteEdit: validates an edit call (`edit`, `multi_edit`,
   * `replace_in_file`, `apply_patch`, under any of their names) and applies
   * it inside the context's workspace: exact matching first, then the
   * fuzzy ladder. An edit that cannot be applied (NOT_FOUND, AMBIGUOUS) is
   * a verdict violation (`EDIT_NOT_FOUND`, `EDIT_AMBIGUOUS`) with feedback.
   */
  async edit(name: string, input: EditInput = {}): Promise<ExecuteEditResponse> {
    const request = {
      context: this.#requestContext(),
      call: toToolCall(name, input),
      tools: (input.tools ?? []).map(toToolDefinition),
      expectedSha256: input.expectedSha256 ?? "",
      dryRun: input.dryRun ?? false,
      partial: input.partial ?? false,
    };
    return this.#unary(() => this.raw.executeEdit(request, callOptions(input)));
  }

  /**
   * ReadFile: reads a text file of the context's workspace, confined and
   * deny-aware as writes are. A refused path, a binary file or an offset
   * past the end is a verdict (`OUTSIDE_WORKSPACE`, `DENIED_PATH`,
   * `FILE_NOT_FOUND`, `BINARY_FILE`, `INVALID_VALUE`) counted in the
   * session, not an exception. A `column` past the end of its line or
   * inside a character is an `INVALID_ARGUMENT` error (`INVALID_COLUMN`)
   * naming the column to give.
   *
   * @param path the file, as the model wrote it.
   * @returns `verdict`, `path`, `content`, `sha256` of the whole file (for
   *   a later `expectedSha256`), `size`, `totalLines`, `startLine`,
   *   `endLine`, `truncated`, and when truncated `nextOffset` and
   *   `nextColumn`: the `offset` and `column` of the read that returns the
   *   rest.
   */
  async read(path: string, input: ReadInput = {}): Promise<ReadFileResponse> {
    const request = {
      context: this.#requestContext(),
      path,
      offset: input.offset ?? 0,
      limit: input.limit ?? 0,
      lineNumbers: input.lineNumbers ?? false,
      column: input.column ?? 0,
      head: input.head ?? 0,
      tail: input.tail ?? 0,
    };
    return this.#unary(() => this.raw.readFile(request, callOptions(input)));
  }

  /**
   * SearchFiles: searches the contents of the context's workspace for a
   * regular expression (Go RE2 syntax: no look-around, no back-references),
   * matched within a line, or with `literal` the text itself. A refused
   * folder or a bad pattern is a verdict (`OUTSIDE_WORKSPACE`,
   * `DENIED_PATH`, `INVALID_VALUE` naming the position) counted in the
   * session, not an exception.
   *
   * @returns `verdict`, `matches` (`path`, `line`, `column`, `text`,
   *   `before`, `after`) by path then line, `files` in the other output
   *   modes, `totalMatches`, `omitted`, `filesSearched`, `binarySkipped`,
   *   `partial`, `cut`, and `text`, the answer as a model reads it.
   */
  async search(pattern: string, input: SearchInput = {}): Promise<SearchFilesResponse> {
    const request = {
      context: this.#requestContext(),
      pattern,
      path: input.path ?? "",
      include: input.include ?? "",
      exclude: input.exclude ?? [],
      literal: input.literal ?? false,
      ignoreCase: input.ignoreCase ?? false,
      smartCase: input.smartCase ?? false,
      contextLines: input.contextLines ?? 0,
      before: input.before ?? 0,
      after: input.after ?? 0,
      maxResults: input.maxResults ?? 0,
      outputMode: input.outputMode ?? "",
      gitignore: input.gitignore ?? false,
    };
    return this.#unary(() => this.raw.searchFiles(request, callOptions(input)));
  }

  /**
   * ListDirectory: a folder of the context's workspace, or a tree with
   * `depth`: each entry's type, size and a link's target (never followed);
   * denied and ignored paths never appear. A refused folder or a bad
   * pattern is a verdict counted in the session, not an exception.
   *
   * @param path the folder, as the model wrote it; "" for the root.
   * @returns `verdict`, `path`, `entries` (tree order, `omitted` on a folder
   *   the bound cut), totals, `omitted`, `partial` and `text`.
   */
  async listDirectory(path = "", input: ListInput = {}): Promise<ListDirectoryResponse> {
    const request = {
      context: this.#requestContext(),
      path,
      depth: input.depth ?? 0,
      maxEntries: input.maxEntries ?? 0,
      exclude: input.exclude ?? [],
      gitignore: input.gitignore ?? false,
    };
    return this.#unary(() => this.raw.listDirectory(request, callOptions(input)));
  }

  /**
   * FindFiles: paths of the context's workspace matching a glob (`**`
   * across folders; a pattern without "/" matches names at any depth). A
   * bad pattern is a verdict (`INVALID_VALUE`) with feedback.
   *
   * @returns `verdict`, `path`, `matches` (by name, folder by folder),
   *   `omitted`, `partial` and `text`.
   */
  async findFiles(pattern: string, input: FindInput = {}): Promise<FindFilesResponse> {
    const request = {
      context: this.#requestContext(),
      pattern,
      path: input.path ?? "",
      exclude: input.exclude ?? [],
      maxResults: input.maxResults ?? 0,
      gitignore: input.gitignore ?? false,
    };
    return this.#unary(() => this.raw.findFiles(request, callOptions(input)));
  }

  /**
   * GetFileInfo: describes paths of the context's workspace: type, size,
   * mode, times, a link's target (never followed), a text file's line
   * count and SHA-256, and whether the path is denied. Each path's refusal
   * is beside it (`files[i].error`); a denied path carries only `denied`
   * and `deniedBy`. The verdict is a mistake only when no path could be
   * described; no path, or more than 100, is `INVALID_ARGUMENT`.
   */
  async fileInfo(paths: string[], input: RequestOptions = {}): Promise<GetFileInfoResponse> {
    const request = { context: this.#requestContext(), paths };
    return this.#unary(() => this.raw.getFileInfo(request, callOptions(input)));
  }

  /**
   * ReadFiles: reads several text files, each through {@link read}'s
   * checks, sharing the answer's bytes. Each file's refusal is beside it;
   * the verdict is a mistake only when no file could be read.
   */
  async readFiles(paths: string[], input: ReadFilesInput = {}): Promise<ReadFilesResponse> {
    const request = {
      context: this.#requestContext(),
      paths,
      head: input.head ?? 0,
      tail: input.tail ?? 0,
      lineNumbers: input.lineNumbers ?? false,
    };
    return this.#unary(() => this.raw.readFiles(request, callOptions(input)));
  }

  /**
   * ReadMediaFile: an image, audio or other media file as bytes and MIME
   * type, up to the server's `--max-media-bytes`; a refusal is a verdict.
   */
  async readMedia(path: string, input: RequestOptions = {}): Promise<ReadMediaFileResponse> {
    const request = { context: this.#requestContext(), path };
    return this.#unary(() => this.raw.readMediaFile(request, callOptions(input)));
  }

  /**
   * ListTools: every tool the server knows, rendered for a model family
   * (OpenAI and Anthropic shapes, XML usage text, aliases).
   *
   * @param modelId the model the tools are for; it selects the family
   *   (`modelFamily` in the answer: `"generic"`, `"native-next-gen"`,
   *   `"native-gpt-5"`). Defaults to the client's modelId.
   */
  async listTools(modelId: string | undefined = this.context.modelId, options: RequestOptions = {}): Promise<ListToolsResponse> {
    return this.#unary(() => this.raw.listTools({ modelId: modelId ?? "" }, callOptions(options)));
  }

  /**
   * GetSession: the session's mistake state. An unknown or expired session
   * comes back with `exists: false` and zero mistakes.
   */
  async getSession(sessionId: string = this.context.sessionId, options: RequestOptions = {}): Promise<Session> {
    const res = await this.#unary(() => this.raw.getSession({ sessionId }, callOptions(options)));
    if (!res.session) throw missing("a session");
    return res.session;
  }

  /** ResetSession: clears the session's mistake counter and call history. */
  async resetSession(sessionId: string = this.context.sessionId, options: RequestOptions = {}): Promise<Session> {
    const res = await this.#unary(() => this.raw.resetSession({ sessionId }, callOptions(options)));
    if (!res.session) throw missing("a session");
    return res.session;
  }

  /**
   * StreamToolCalls: parses tool calls out of a model's response while it
   * streams. Sends a start frame, one delta frame per item of `deltas` as
   * it arrives, then the end frame; yields the server's events as soon as
   * they come: text outside calls, `callStarted`, `paramUpdate`,
   * `callComplete` (with the verdict, and the execution when
   * `executeOnComplete` is set), `error` (problems that do not end the
   * stream) and a final `done`.
   *
   * Breaking out of the loop cancels the call. A caller's mistake ends the
   * iteration with a {@link ToolGuardError}.
   *
   * @example
   * ```ts
   * for await (const ev of client.stream("xml_tags", modelChunks, { finishReason: "stop" })) {
   *   if (ev.case === "callComplete" && !ev.value.verdict?.ok) console.log(ev.value.verdict?.feedback);
   * }
   * ```
   *
   * @param format how the model writes tool calls.
   * @param deltas the model's output, piece by piece: strings are text,
   *   {@link ToolCallDeltaInit} objects are structured fragments.
   * @throws TypeError (at once) for an unknown format.
   */
  stream(
    format: StreamFormat | StreamFormatName,
    deltas: AsyncIterable<StreamDeltaInput> | Iterable<StreamDeltaInput>,
    init: StreamInit = {},
  ): AsyncIterable<StreamEvent> {
    const start = {
      context: this.#requestContext(),
      format: parseStreamFormat(format),
      tools: (init.tools ?? []).map(toToolDefinition),
      toolNames: init.toolNames ?? [],
      options: {
        executeOnComplete: init.executeOnComplete ?? false,
        dryRun: init.dryRun ?? false,
        partial: init.partial ?? false,
        maxCallBytes: BigInt(init.maxCallBytes ?? 0),
        maxParamBytes: BigInt(init.maxParamBytes ?? 0),
      },
    };
    const raw = this.raw;
    const options = callOptions(init);
    async function* frames(): AsyncGenerator<MessageInitShape<typeof StreamToolCallsRequestSchema>> {
      yield { frame: { case: "start", value: start } };
      for await (const delta of deltas) {
        yield { frame: { case: "delta", value: toStreamDelta(delta) } };
      }
      const reason = typeof init.finishReason === "function" ? init.finishReason() : init.finishReason;
      yield { frame: { case: "end", value: { finishReason: reason ?? "" } } };
    }
    async function* events(): AsyncGenerator<StreamEvent> {
      try {
        for await (const res of raw.streamToolCalls(frames(), options)) {
          // An event of a newer API version this client does not know.
          if (res.event.case === undefined) continue;
          yield res.event;
        }
      } catch (err) {
        throw ToolGuardError.wrap(err);
      }
    }
    return events();
  }

  /**
   * Closes the HTTP/2 connection the client opened (and so every client
   * derived with {@link withContext}). Open calls fail. An idle connection
   * does not keep the process alive, so closing is optional.
   */
  close(): void {
    this.#close();
  }

  #requestContext(): MessageInitShape<typeof RequestContextSchema> {
    return {
      sessionId: this.context.sessionId,
      modelId: this.context.modelId ?? "",
      workspace: this.context.workspace ?? "",
      mistakeLimit: this.context.mistakeLimit ?? 0,
    };
  }

  async #unary<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw ToolGuardError.wrap(err);
    }
  }
}

/**
 * Creates a client for the toolguard server at `options.address`, over gRPC
 * on HTTP/2 (Connect's gRPC transport for Node.js): plaintext for
 * `host:port` or `http://`, TLS for `https://`.
 *
 * The connection opens on the first call and is kept; see
 * {@link ToolGuardClient.close}.
 *
 * @throws TypeError for a malformed address or token, a token beside an
 *   `authorization` header, TLS `nodeOptions` with a plaintext address, or
 *   `nodeOptions` with a `transport`.
 */
export function createToolGuardClient(options: ToolGuardClientOptions): ToolGuardClient {
  const headers = new Headers(options.headers);
  if (!headers.has(CLIENT_HEADER)) headers.set(CLIENT_HEADER, `typescript/${VERSION}`);
  if (options.token) {
    if (!/^[\x21-\x7e]+$/.test(options.token)) {
      throw new TypeError("token: only visible ASCII characters, no spaces or newlines (trim a token read from a file)");
    }
    if (headers.has(AUTHORIZATION)) {
      throw new TypeError("give the bearer token as token or as an authorization header, not both");
    }
    headers.set(AUTHORIZATION, `Bearer ${options.token}`);
  }
  let transport = options.transport;
  let close = (): void => {};
  if (transport) {
    if (options.nodeOptions) {
      throw new TypeError("nodeOptions apply to the transport built from address, not to a transport given");
    }
  } else {
    const channel = createChannelFor(options, headers);
    close = channel.close;
    transport = channel.transport;
  }
  if (options.transport && [...headers.keys()].length > 0) {
    transport = withHeaders(transport!, headers);
  }
  const context: ContextInit = { sessionId: options.sessionId };
  if (options.modelId !== undefined) context.modelId = options.modelId;
  if (options.workspace !== undefined) context.workspace = options.workspace;
  if (options.mistakeLimit !== undefined) context.mistakeLimit = options.mistakeLimit;
  return new ToolGuardClient(createClient(ToolGuardService, transport!), context, close);
}

/** The connection (or, for a target naming a resolver, the connections) of options.address. */
function createChannelFor(options: ToolGuardClientOptions, headers: Headers): Channel {
  const nodeOptions = options.nodeOptions ?? {};
  const common = {
    nodeOptions,
    headers,
    ...(options.timeoutMs !== undefined ? { defaultTimeoutMs: options.timeoutMs } : {}),
  };
  if (isBalancedTarget(options.address)) {
    const tls = [...TLS_OPTIONS, "servername" as const].some((k) => nodeOptions[k] !== undefined);
    return createBalancedChannel(parseBalancedTarget(options.address), { ...common, scheme: tls ? "https" : "http" });
  }
  const baseUrl = toBaseUrl(options.address);
  if (baseUrl.startsWith("http:") && TLS_OPTIONS.some((k) => nodeOptions[k] !== undefined)) {
    throw new TypeError(`TLS nodeOptions (${TLS_OPTIONS.join(", ")}) need an https:// address, not ${options.address}`);
  }
  return createChannel({ ...common, baseUrl });
}

/**
 * The base URL for an address: `host:port` becomes `http://host:port`; a
 * URL with a scheme is kept.
 */
export function toBaseUrl(address: string): string {
  if (/^https?:\/\//i.test(address)) return address.replace(/\/+$/, "");
  if (address === "" || /[/\s]/.test(address)) {
    throw new TypeError(`toolguard address "${address}": want host:port or a http(s):// URL`);
  }
  return `http://${address}`;
}

// ---------------------------------------------------------------------------
// Internals

/** The header of the bearer token. */
const AUTHORIZATION = "authorization";

/** The nodeOptions that only make sense over TLS. */
const TLS_OPTIONS = ["ca", "cert", "key", "pfx"] as const;

/**
 * A transport that sends `defaults` with every call, unary and streaming; a
 * call's own headers win.
 */
function withHeaders(transport: Transport, defaults: Headers): Transport {
  const merge = (own: HeadersInit | undefined): Headers => {
    const out = new Headers(defaults);
    new Headers(own).forEach((value, key) => out.set(key, value));
    return out;
  };
  return {
    unary(method, signal, timeoutMs, header, input, contextValues) {
      return transport.unary(method, signal, timeoutMs, merge(header), input, contextValues);
    },
    stream(method, signal, timeoutMs, header, input, contextValues) {
      return transport.stream(method, signal, timeoutMs, merge(header), input, contextValues);
    },
  };
}

function callOptions(o: RequestOptions): CallOptions {
  const out: CallOptions = {};
  if (o.signal) out.signal = o.signal;
  if (o.timeoutMs !== undefined) out.timeoutMs = o.timeoutMs;
  if (o.headers) out.headers = o.headers;
  if (o.onHeader) out.onHeader = o.onHeader;
  if (o.onTrailer) out.onTrailer = o.onTrailer;
  return out;
}

function isMessage(v: unknown, typeName: string): boolean {
  return typeof v === "object" && v !== null && (v as { $typeName?: unknown }).$typeName === typeName;
}

function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An answer without its one required field: the server's fault. */
function missing(what: string): ToolGuardError {
  return new ToolGuardError(new ConnectError(`response without ${what}`, Code.Internal));
}

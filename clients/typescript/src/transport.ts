/**
 * The client's HTTP/2 transport: unary calls straight on one HTTP/2 session,
 * streams through Connect's gRPC transport on the same session.
 *
 * Connect's unary path runs every call through async-iterable pipes,
 * per-call abort signals and header objects; for toolguard's small unary
 * calls that was about two thirds of the client's CPU per call
 * (docs/benchmarks.md, "The TypeScript client per call"). Here a unary call
 * is one request on the session kept by Connect's Http2SessionManager
 * (reconnects, keepalive pings and idle close stay Connect's), one frame
 * out and one in; errors are decoded by Connect's gRPC protocol code, so
 * they are the same ConnectErrors, details included.
 *
 * @internal Not part of the package's API.
 */

import { create, fromBinary, isMessage, toBinary, type DescMessage, type DescMethod, type DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport, type UnaryResponse } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { codeFromHttpStatus, findTrailerError } from "@connectrpc/connect/protocol-grpc";
import * as http2 from "node:http2";

/** A transport and what closes its connections. */
export interface Channel {
  readonly transport: Transport;
  /** Closes the connection now; open calls fail. */
  close(): void;
  /** Closes the connection once its open unary calls are done (a stream open then fails). */
  drain(): void;
}

/** Options of {@link createChannel}. */
export interface ChannelOptions {
  /** `http://host:port` or `https://host:port`. */
  baseUrl: string;
  /** Options of `http2.connect()` (TLS). */
  nodeOptions?: http2.SecureClientSessionOptions;
  /** Timeout of a call without its own, in ms; unset: none. */
  defaultTimeoutMs?: number;
  /** Headers sent with every call; a call's own win. */
  headers?: Headers;
}

/** The most a unary answer may hold: the server's own limit is lower. */
const MAX_ANSWER_BYTES = 64 << 20;

const USER_AGENT = "toolguard-client-ts connect-es/2";

/** One HTTP/2 connection to one server. */
export function createChannel(options: ChannelOptions): Channel {
  const { baseUrl, defaultTimeoutMs } = options;
  const sessionManager = new Http2SessionManager(baseUrl, undefined, options.nodeOptions ?? {});
  const streams = createGrpcTransport({
    baseUrl,
    sessionManager,
    ...(defaultTimeoutMs !== undefined ? { defaultTimeoutMs } : {}),
  });
  const defaults: Record<string, string> = {};
  options.headers?.forEach((value, key) => (defaults[key] = value));
  const hasDefaults = Object.keys(defaults).length > 0;
  // Open unary calls, so that drain() closes the connection after them.
  let open = 0;
  let draining = false;
  const done = () => {
    if (--open === 0 && draining) sessionManager.abort();
  };
  const transport: Transport = {
    unary(method, signal, timeoutMs, header, input) {
      const t = timeoutMs === undefined ? defaultTimeoutMs : timeoutMs <= 0 ? undefined : timeoutMs;
      const h: http2.OutgoingHttpHeaders = {
        ":method": "POST",
        ":path": `/${method.parent.typeName}/${method.name}`,
        "content-type": "application/grpc+proto",
        te: "trailers",
        "user-agent": USER_AGENT,
      };
      if (t !== undefined) h["grpc-timeout"] = `${Math.max(1, Math.ceil(t))}m`;
      if (hasDefaults) Object.assign(h, defaults);
      if (header !== undefined) setHeaders(h, header);
      const msg = isMessage(input, method.input) ? input : create(method.input as DescMessage, input);
      const body = toBinary(method.input as DescMessage, msg);
      const frame = Buffer.allocUnsafe(5 + body.length);
      frame[0] = 0;
      frame.writeUInt32BE(body.length, 1);
      frame.set(body, 5);
      open++;
      return unaryCall(sessionManager, h, frame, signal, t).then(
        (r) => {
          done();
          return new UnaryAnswer(method, r.header, r.trailer, fromBinary(method.output, r.body));
        },
        (err: unknown) => {
          done();
          throw err;
        },
      ) as unknown as Promise<UnaryResponse<never, never>>;
    },
    stream(method, signal, timeoutMs, header, input, contextValues) {
      return streams.stream(method, signal, timeoutMs, withDefaults(defaults, hasDefaults, header), input, contextValues);
    },
  } as Transport;
  return {
    transport,
    close: () => sessionManager.abort(),
    drain: () => {
      draining = true;
      if (open === 0) sessionManager.abort();
    },
  };
}

/** A unary exchange's answer as read off the stream. */
interface Answer {
  header: http2.IncomingHttpHeaders;
  trailer: http2.IncomingHttpHeaders | undefined;
  body: Uint8Array;
}

/**
 * A UnaryResponse whose headers become Headers objects only when asked
 * for: most calls never read them (onHeader, onTrailer).
 */
class UnaryAnswer {
  readonly stream = false;
  readonly service: DescService;
  #hd: http2.IncomingHttpHeaders;
  #tr: http2.IncomingHttpHeaders | undefined;
  #header: Headers | undefined;
  #trailer: Headers | undefined;

  constructor(
    readonly method: DescMethod,
    hd: http2.IncomingHttpHeaders,
    tr: http2.IncomingHttpHeaders | undefined,
    readonly message: unknown,
  ) {
    this.service = method.parent;
    this.#hd = hd;
    this.#tr = tr;
  }

  get header(): Headers {
    return (this.#header ??= toHeaders(this.#hd));
  }

  get trailer(): Headers {
    return (this.#trailer ??= this.#tr ? toHeaders(this.#tr) : new Headers());
  }
}

/**
 * One gRPC unary exchange on the manager's session. The deadline and the
 * signal count from the call, connecting included.
 */
function unaryCall(
  sm: Http2SessionManager,
  h: http2.OutgoingHttpHeaders,
  frame: Buffer,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): Promise<Answer> {
  if (signal?.aborted) return Promise.reject(canceled(signal));
  return new Promise<Answer>((resolve, reject) => {
    let stream: http2.ClientHttp2Stream | undefined;
    let status = 0;
    let resHeaders: http2.IncomingHttpHeaders | undefined;
    let trailers: http2.IncomingHttpHeaders | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let failure: ConnectError | undefined;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      if (signal) signal.removeEventListener("abort", onAbort);
      try {
        resolve(settle(failure, stream?.rstCode, status, resHeaders, trailers, chunks, size));
      } catch (err) {
        reject(err);
      }
    };
    // Before the stream exists the call ends at once; after, when it closes.
    const fail = (err: ConnectError) => {
      failure ??= err;
      if (stream) stream.close(http2.constants.NGHTTP2_CANCEL);
      else finish();
    };
    const onAbort = () => fail(canceled(signal!));
    if (signal) signal.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => fail(new ConnectError("the operation timed out", Code.DeadlineExceeded)), timeoutMs);
    }
    sm.request("POST", h[":path"] as string, h, {}).then(
      (s) => {
        if (settled) {
          s.on("error", () => {}); // the call has its answer already
          s.close(http2.constants.NGHTTP2_CANCEL);
          return;
        }
        stream = s;
        s.on("response", (hd) => {
          resHeaders = hd;
          status = Number(hd[":status"]);
        });
        s.on("data", (chunk: Buffer) => {
          sm.notifyResponseByteRead(s);
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) {
            fail(new ConnectError(`answer over ${MAX_ANSWER_BYTES} bytes`, Code.ResourceExhausted));
            return;
          }
          chunks.push(chunk);
        });
        s.on("trailers", (t) => (trailers = t));
        s.on("error", (err) => (failure ??= resetError(s.rstCode) ?? fromNodeError(err)));
        s.on("close", finish);
        s.end(frame);
      },
      (err: unknown) => {
        failure ??= fromNodeError(err);
        finish();
      },
    );
  });
}

/** The answer of a closed stream, or the error it stands for. */
function settle(
  failure: ConnectError | undefined,
  rstCode: number | undefined,
  status: number,
  resHeaders: http2.IncomingHttpHeaders | undefined,
  trailers: http2.IncomingHttpHeaders | undefined,
  chunks: Buffer[],
  size: number,
): Answer {
  if (failure) throw failure;
  if (!resHeaders) throw resetError(rstCode) ?? new ConnectError("stream closed without an answer", Code.Unavailable);
  if (status !== 200) {
    throw new ConnectError(`HTTP ${status}`, codeFromHttpStatus(status), toHeaders(resHeaders));
  }
  // A trailers-only answer carries its status in the headers.
  const statusAt = trailers?.["grpc-status"] !== undefined ? trailers : resHeaders;
  const grpcStatus = statusAt["grpc-status"];
  if (grpcStatus === undefined) {
    throw resetError(rstCode) ?? new ConnectError("protocol error: missing status", Code.Internal);
  }
  if (grpcStatus !== "0") {
    const err = findTrailerError(toHeaders(statusAt));
    if (err) throw err;
  }
  const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  if (data.length < 5) throw new ConnectError("protocol error: missing output message for unary method", Code.Unimplemented);
  if (data[0] !== 0) throw new ConnectError("protocol error: compressed answer not asked for", Code.Internal);
  const n = data.readUInt32BE(1);
  if (data.length !== 5 + n) throw new ConnectError("protocol error: not one output message for unary method", Code.Unimplemented);
  return { header: resHeaders, trailer: trailers, body: data.subarray(5) };
}

function toHeaders(hd: http2.IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const key in hd) {
    if (key.charCodeAt(0) === 58 /* ":" */) continue;
    const v = hd[key];
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) out.append(key, x);
    else out.append(key, v);
  }
  return out;
}

type HeadersArg = ConstructorParameters<typeof Headers>[0];

/** Sets a call's own headers (any form `new Headers()` takes) over h. */
function setHeaders(h: http2.OutgoingHttpHeaders, init: HeadersArg): void {
  if (init instanceof Headers) {
    init.forEach((value, key) => (h[key] = value));
  } else if (Array.isArray(init)) {
    for (const [key, value] of init as [string, string][]) h[key.toLowerCase()] = value;
  } else if (init) {
    for (const [key, value] of Object.entries(init as Record<string, string>)) h[key.toLowerCase()] = value;
  }
}

function withDefaults(defaults: Record<string, string>, has: boolean, own: HeadersArg | undefined): HeadersArg | undefined {
  if (!has) return own;
  const out = new Headers(defaults);
  new Headers(own).forEach((value, key) => out.set(key, value));
  return out;
}

function canceled(signal: AbortSignal): ConnectError {
  return ConnectError.from(signal.reason ?? "operation was aborted", Code.Canceled);
}

/** Node's errors as Connect maps them (connect-node's node-error.js). */
function fromNodeError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  let c = Code.Internal;
  if (code === "ERR_STREAM_WRITE_AFTER_END" || code === "ERR_STREAM_DESTROYED" || code === "ERR_HTTP2_INVALID_STREAM" || code === "ECONNRESET") {
    c = Code.Aborted;
  } else if (code === "ETIMEDOUT" || code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "ECONNREFUSED" || code === "ERR_HTTP2_GOAWAY_SESSION" || code === "ERR_HTTP2_STREAM_CANCEL") {
    c = Code.Unavailable;
  }
  const ce = ConnectError.from(err, c);
  if (ce !== err) ce.cause = err;
  return ce;
}

/** The error an HTTP/2 stream reset stands for (connect-node's mapping); none for NO_ERROR. */
function resetError(rstCode: number | undefined): ConnectError | undefined {
  const c = http2.constants;
  if (rstCode === undefined || rstCode === c.NGHTTP2_NO_ERROR || rstCode === c.NGHTTP2_STREAM_CLOSED) return undefined;
  const name = `http/2 stream closed with error code ${rstCode}`;
  switch (rstCode) {
    case c.NGHTTP2_REFUSED_STREAM:
      return new ConnectError(name, Code.Unavailable);
    case c.NGHTTP2_CANCEL:
      return new ConnectError(name, Code.Canceled);
    case c.NGHTTP2_ENHANCE_YOUR_CALM:
      return new ConnectError(name, Code.ResourceExhausted);
    case c.NGHTTP2_INADEQUATE_SECURITY:
    case c.NGHTTP2_HTTP_1_1_REQUIRED:
      return new ConnectError(name, Code.PermissionDenied);
    default:
      return new ConnectError(name, Code.Internal);
  }
}

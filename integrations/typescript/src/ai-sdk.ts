/**
 * toolguard for the Vercel AI SDK (`ai`, v6): a language-model middleware
 * that repairs every tool call of `generateText` and `streamText` before the
 * SDK parses it, and a tool-call repair function for
 * `experimental_repairToolCall`, which the SDK calls on a call it could not
 * parse. A call toolguard refuses reaches the model as the tool's error,
 * carrying toolguard's feedback.
 *
 * @example
 * ```ts
 * const guard = { client: createToolGuardClient({ address, sessionId }) };
 * const result = await generateText({
 *   model: wrapLanguageModel({ model, middleware: toolguardMiddleware(guard) }),
 *   tools,
 *   experimental_repairToolCall: toolguardRepairToolCall(guard),
 *   stopWhen: stepCountIs(5),
 * });
 * ```
 *
 * @packageDocumentation
 */

import type { ToolInit } from "@toolguard/client";
import type { LanguageModelMiddleware, ToolCallRepairFunction, ToolSet } from "ai";

import { guardCall, type GuardOptions } from "./core.js";

export type { GuardOptions } from "./core.js";

type JsonObject = ToolInit["parameters"];
type WrapGenerate = NonNullable<LanguageModelMiddleware["wrapGenerate"]>;
type WrapStream = NonNullable<LanguageModelMiddleware["wrapStream"]>;
type CallOptions = Parameters<WrapGenerate>[0]["params"];
type Model = Parameters<WrapGenerate>[0]["model"];
type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
type Content = GenerateResult["content"][number];
type ToolCall = Extract<Content, { type: "tool-call" }>;
type StreamResult = Awaited<ReturnType<WrapStream>>;
type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;

/**
 * How the middleware marks a call toolguard refused: the call's input
 * becomes this prefix and the feedback, text that is not JSON, so the SDK
 * never runs the tool; {@link toolguardRepairToolCall} turns it into the
 * tool error the model reads.
 */
export const REFUSED_PREFIX = "toolguard refused this call:\n";

/** The error a refused call ends in: its message is toolguard's feedback. */
export class ToolCallRefused extends Error {
  constructor(feedback: string) {
    super(feedback);
    this.name = "ToolCallRefused";
  }
}

function toolsOf(params: CallOptions): ToolInit[] {
  return (params.tools ?? []).flatMap((t) =>
    t.type === "function"
      ? [{ name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.inputSchema as JsonObject }]
      : [],
  );
}

function forModel(options: GuardOptions, model: Model): GuardOptions {
  return options.client.context.modelId ? options : { ...options, client: options.client.withContext({ modelId: model.modelId }) };
}

async function guardPart(options: GuardOptions, tools: ToolInit[], part: ToolCall, signal?: AbortSignal): Promise<ToolCall> {
  if (part.providerExecuted) return part;
  const out = await guardCall(options, tools, {
    name: part.toolName,
    argumentsText: part.input,
    callId: part.toolCallId,
    ...(signal ? { signal } : {}),
  });
  return out.ok ? { ...part, toolName: out.toolName, input: out.argumentsJson } : { ...part, input: REFUSED_PREFIX + out.feedback };
}

/**
 * A middleware for `wrapLanguageModel` that sends each tool call of the
 * model's answer through toolguard: a repaired call replaces the original
 * before the SDK parses it; a refused call is marked with
 * {@link REFUSED_PREFIX} and its feedback, so the SDK reports it to the
 * model as an invalid call instead of running it (use
 * {@link toolguardRepairToolCall} too, so the model reads the feedback
 * alone). Streams pass through untouched but for the complete `tool-call`
 * parts.
 */
export function toolguardMiddleware(options: GuardOptions): LanguageModelMiddleware {
  return {
    specificationVersion: "v3",
    async wrapGenerate({ doGenerate, params, model }) {
      const result = await doGenerate();
      const guard = forModel(options, model);
      const tools = toolsOf(params);
      const content: Content[] = [];
      for (const part of result.content) {
        content.push(part.type === "tool-call" ? await guardPart(guard, tools, part, params.abortSignal) : part);
      }
      return { ...result, content };
    },
    async wrapStream({ doStream, params, model }) {
      const { stream, ...rest } = await doStream();
      const guard = forModel(options, model);
      const tools = toolsOf(params);
      const transform = new TransformStream<StreamPart, StreamPart>({
        async transform(part, controller) {
          controller.enqueue(part.type === "tool-call" ? await guardPart(guard, tools, part, params.abortSignal) : part);
        },
      });
      return { ...rest, stream: stream.pipeThrough(transform) };
    },
  };
}

/**
 * A function for `experimental_repairToolCall`: the SDK calls it with a
 * call it could not parse (no such tool, or input that fails the tool's
 * schema). It returns toolguard's repaired call, or throws
 * {@link ToolCallRefused} with the feedback, which the SDK gives the model
 * as the tool's error (`Error repairing tool call: <feedback>`). A call the
 * middleware already refused is not sent again.
 */
export function toolguardRepairToolCall<TOOLS extends ToolSet = ToolSet>(options: GuardOptions): ToolCallRepairFunction<TOOLS> {
  return async ({ toolCall, tools, inputSchema }) => {
    if (toolCall.input.startsWith(REFUSED_PREFIX)) {
      throw new ToolCallRefused(toolCall.input.slice(REFUSED_PREFIX.length));
    }
    const defs: ToolInit[] = [];
    for (const name of Object.keys(tools)) {
      const description = tools[name]?.description;
      defs.push({ name, ...(description ? { description } : {}), parameters: (await inputSchema({ toolName: name })) as JsonObject });
    }
    const out = await guardCall(options, defs, { name: toolCall.toolName, argumentsText: toolCall.input, callId: toolCall.toolCallId });
    if (!out.ok) throw new ToolCallRefused(out.feedback);
    return { ...toolCall, toolName: out.toolName, input: out.argumentsJson };
  };
}

/**
 * toolguard for the OpenAI Agents SDK for JavaScript (`@openai/agents`), in
 * two parts used together:
 *
 * - {@link guardModel} wraps the agent's Model: each function call of the
 *   model's answer goes through toolguard before the runner parses it, so a
 *   call in broken JSON, under another tool name or with misnamed
 *   parameters arrives repaired. A refused call keeps its name and carries
 *   toolguard's feedback in place of its arguments.
 * - {@link guardTools} wraps the function tools: a call the model wrapper
 *   refused never runs, and its feedback is the tool's output, which the
 *   model reads on its next turn. On their own (any model) the wrapped tools
 *   repair and refuse JSON arguments the same way; broken JSON never reaches
 *   them, since the runner parses the arguments first.
 *
 * Why not a tool input guardrail: a guardrail may allow or reject a call
 * but cannot change its arguments, so a call toolguard repairs would still
 * fail the tool's own schema.
 *
 * @example
 * ```ts
 * const guard = { client: createToolGuardClient({ address, sessionId }) };
 * const agent = new Agent({
 *   name: "weather",
 *   model: guardModel(await provider.getModel("gpt-5-mini"), guard),
 *   tools: guardTools([getWeather], guard),
 * });
 * ```
 *
 * @packageDocumentation
 */

import type { ToolInit } from "@toolguard/client";
import type { FunctionTool, Model, ModelRequest, ModelResponse, StreamEvent } from "@openai/agents";

import { guardCall, type GuardOptions } from "./core.js";

export type { GuardOptions } from "./core.js";

type JsonObject = ToolInit["parameters"];
type OutputItem = ModelResponse["output"][number];
type FunctionCall = Extract<OutputItem, { type: "function_call" }>;

/**
 * The key of the arguments object that stands for a refused call: valid
 * JSON, so the runner hands it to the wrapped tool, which answers with the
 * feedback it holds.
 */
export const REFUSED_KEY = "toolguard_refused";

/** The tool as toolguard reads it: its name, description and JSON Schema. */
export function toolDefinition(tool: Pick<FunctionTool<any, any, any>, "name" | "description" | "parameters">): ToolInit {
  return { name: tool.name, description: tool.description, parameters: tool.parameters as unknown as JsonObject };
}

function refusedFeedback(argumentsText: string): string | undefined {
  if (!argumentsText.includes(REFUSED_KEY)) return undefined;
  try {
    const parsed = JSON.parse(argumentsText) as Record<string, unknown>;
    const feedback = parsed[REFUSED_KEY];
    return typeof feedback === "string" && Object.keys(parsed).length === 1 ? feedback : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A copy of a function tool whose `invoke` first sends the arguments text
 * through toolguard, with the tool's schema. The model keeps seeing the
 * same tool (name, description, schema, strictness).
 */
export function guardTool<T extends FunctionTool<any, any, any>>(tool: T, options: GuardOptions): T {
  const def = [toolDefinition(tool)];
  const invoke: T["invoke"] = async (runContext, input, details) => {
    const refused = refusedFeedback(input);
    if (refused !== undefined) return refused;
    const callId = details?.toolCall?.callId;
    const out = await guardCall(options, def, {
      name: tool.name,
      argumentsText: input,
      ...(callId ? { callId } : {}),
      ...(details?.signal ? { signal: details.signal } : {}),
    });
    if (!out.ok) return out.feedback;
    return tool.invoke(runContext, out.argumentsJson, details);
  };
  return { ...tool, invoke };
}

/** {@link guardTool} over a list of tools; other kinds of tools (hosted, computer, shell) are left as they are. */
export function guardTools<T extends { type: string }>(tools: T[], options: GuardOptions): T[] {
  return tools.map((t) => (t.type === "function" ? (guardTool(t as unknown as FunctionTool<any, any, any>, options) as unknown as T) : t));
}

/**
 * A Model whose answers' function calls are repaired by toolguard, with the
 * request's function tools, before the runner sees them; streamed answers
 * are repaired in their final `response_done` event, from which the runner
 * takes the calls. Use it with {@link guardTools}: a refused call reaches
 * the wrapped tool, which returns the feedback to the model.
 */
export function guardModel(model: Model, options: GuardOptions): Model {
  async function repair(request: ModelRequest, output: OutputItem[]): Promise<OutputItem[]> {
    const tools = request.tools.flatMap((t) => (t.type === "function" ? [toolDefinition(t)] : []));
    const names = new Set(tools.map((t) => t.name));
    const repaired: OutputItem[] = [];
    for (const item of output) {
      repaired.push(item.type === "function_call" ? await repairCall(item, tools, names) : item);
    }
    return repaired;
  }
  async function repairCall(item: FunctionCall, tools: ToolInit[], names: Set<string>): Promise<FunctionCall> {
    const out = await guardCall(options, tools, {
      name: item.name,
      argumentsText: item.arguments,
      callId: item.callId,
    });
    if (out.ok) return { ...item, name: out.toolName, arguments: out.argumentsJson };
    // Keep a name the runner knows, so the refusal reaches the wrapped tool.
    const name = names.has(item.name) ? item.name : names.has(out.verdict.toolName) ? out.verdict.toolName : item.name;
    return { ...item, name, arguments: JSON.stringify({ [REFUSED_KEY]: out.feedback }) };
  }
  return {
    async getResponse(request) {
      const response = await model.getResponse(request);
      return { ...response, output: await repair(request, response.output) };
    },
    async *getStreamedResponse(request): AsyncIterable<StreamEvent> {
      for await (const event of model.getStreamedResponse(request)) {
        if (event.type === "response_done") {
          const output = await repair(request, event.response.output as unknown as OutputItem[]);
          yield { ...event, response: { ...event.response, output: output as unknown as typeof event.response.output } };
        } else {
          yield event;
        }
      }
    },
    ...(model.getRetryAdvice ? { getRetryAdvice: model.getRetryAdvice.bind(model) } : {}),
  };
}

/**
 * toolguard for LangGraph.js and LangChain.js (`@langchain/langgraph`,
 * `@langchain/core`): the tool calls of the last AIMessage go through
 * toolguard before the tools run. A repaired call replaces the original in
 * the message (same message id, so the messages reducer updates it in
 * place); a call toolguard refuses is answered at once with a ToolMessage
 * (status "error") holding the feedback, which a ToolNode then skips and the
 * model reads on its next turn. Calls LangChain could not parse
 * (`invalid_tool_calls`, e.g. a Python dict) are repaired too.
 *
 * @example
 * ```ts
 * const guard = { client: createToolGuardClient({ address, sessionId }) };
 * const graph = new StateGraph(MessagesAnnotation)
 *   .addNode("agent", callModel)
 *   .addNode("tools", guardedToolNode(tools, guard))   // in place of new ToolNode(tools)
 *   .addEdge(START, "agent")
 *   .addConditionalEdges("agent", toolsCondition, ["tools", END])
 *   .addEdge("tools", "agent")
 *   .compile();
 * ```
 *
 * @packageDocumentation
 */

import type { ToolInit } from "@toolguard/client";
import { AIMessage, ToolMessage, isAIMessage, type BaseMessage } from "@langchain/core/messages";
import type { InvalidToolCall, ToolCall } from "@langchain/core/messages/tool";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { ToolNode } from "@langchain/langgraph/prebuilt";

import { argumentsText, guardCall, type GuardOptions } from "./core.js";

export type { GuardOptions } from "./core.js";

type JsonObject = ToolInit["parameters"];
type Tool = StructuredToolInterface;

/** A LangChain tool as toolguard reads it: its name, description and JSON Schema. */
export function toolDefinition(tool: Tool): ToolInit {
  return { name: tool.name, description: tool.description, parameters: toJsonSchema(tool.schema as Parameters<typeof toJsonSchema>[0]) as JsonObject };
}

/** What {@link repairToolCalls} returns. */
export interface RepairedMessage {
  /** The message with its calls repaired (the same id), or the message itself when nothing changed. */
  message: AIMessage;
  /** One ToolMessage per refused call, with toolguard's feedback. */
  feedback: ToolMessage[];
}

/**
 * Repairs the tool calls of one AIMessage: accepted calls (repaired or not)
 * stay in `tool_calls` with toolguard's name and arguments; a refused call
 * stays as the model wrote it, answered by a ToolMessage in `feedback`.
 */
export async function repairToolCalls(message: AIMessage, tools: Tool[] | ToolInit[], options: GuardOptions): Promise<RepairedMessage> {
  const defs = tools.map((t) => ("schema" in t ? toolDefinition(t) : t));
  const calls: ToolCall[] = [];
  const invalid: InvalidToolCall[] = [];
  const feedback: ToolMessage[] = [];
  let changed = false;
  const raw: { call: ToolCall | InvalidToolCall; text: string; parsed: boolean }[] = [
    ...(message.tool_calls ?? []).map((call) => ({ call, text: argumentsText(call.args), parsed: true })),
    ...(message.invalid_tool_calls ?? []).map((call) => ({ call, text: call.args ?? "", parsed: false })),
  ];
  for (const { call, text, parsed } of raw) {
    const name = call.name ?? "";
    const out = await guardCall(options, defs, { name, argumentsText: text, ...(call.id ? { callId: call.id } : {}) });
    if (out.ok) {
      const args = JSON.parse(out.argumentsJson) as Record<string, unknown>;
      changed ||= out.repaired || !parsed || out.toolName !== name;
      calls.push({ name: out.toolName, args, ...(call.id ? { id: call.id } : {}), type: "tool_call" });
      continue;
    }
    if (parsed) calls.push(call as ToolCall);
    else invalid.push(call as InvalidToolCall);
    feedback.push(new ToolMessage({ content: out.feedback, tool_call_id: call.id ?? "", name, status: "error" }));
  }
  if (!changed) return { message, feedback };
  const { tool_calls: _rawCalls, ...kwargs } = message.additional_kwargs ?? {};
  const repaired = new AIMessage({
    content: message.content,
    ...(message.id ? { id: message.id } : {}),
    ...(message.name ? { name: message.name } : {}),
    additional_kwargs: kwargs,
    response_metadata: message.response_metadata,
    ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
    tool_calls: calls,
    invalid_tool_calls: invalid,
  });
  return { message: repaired, feedback };
}

type MessagesState = { messages: BaseMessage[] };

function lastAIMessage(messages: BaseMessage[]): AIMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (isAIMessage(m)) return m;
  }
  return undefined;
}

/**
 * A graph node (for a messages state) to put between the model and the
 * ToolNode: it returns the repaired AIMessage (same id: the messages
 * reducer replaces it) and a ToolMessage per refused call.
 */
export function toolguardNode(tools: Tool[] | ToolInit[], options: GuardOptions) {
  return async (state: MessagesState): Promise<MessagesState> => {
    const last = lastAIMessage(state.messages);
    if (!last) return { messages: [] };
    const { message, feedback } = await repairToolCalls(last, tools, options);
    return { messages: message === last ? feedback : [message, ...feedback] };
  };
}

/**
 * A drop-in for `new ToolNode(tools)`: repairs the last AIMessage's calls,
 * answers the refused ones with toolguard's feedback, and runs the rest with
 * a ToolNode. Returns the repaired AIMessage (same id), the feedback and the
 * tools' results.
 */
export function guardedToolNode(tools: Tool[], options: GuardOptions & { handleToolErrors?: boolean }) {
  const node = new ToolNode(tools, { ...(options.handleToolErrors !== undefined ? { handleToolErrors: options.handleToolErrors } : {}) });
  return async (state: MessagesState, config?: RunnableConfig): Promise<MessagesState> => {
    const last = lastAIMessage(state.messages);
    if (!last) return { messages: [] };
    const { message, feedback } = await repairToolCalls(last, tools, options);
    const messages = state.messages.map((m) => (m === last ? message : m)).concat(feedback);
    const ran = (await node.invoke({ messages }, config)) as MessagesState | unknown[];
    if (Array.isArray(ran)) {
      throw new Error("guardedToolNode: a tool returned a Command; put toolguardNode before a ToolNode instead");
    }
    return { messages: [...(message === last ? [] : [message]), ...feedback, ...ran.messages] };
  };
}

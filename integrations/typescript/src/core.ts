/**
 * The part every integration shares: one tool call, as a framework holds it,
 * through toolguard's ValidateToolCall, and back as either a call the
 * framework may run (repaired name and arguments) or the feedback to give
 * the model instead of running it.
 *
 * @packageDocumentation
 */

import type { ToolGuardClient, ToolInit, Verdict } from "@toolguard/client";

/** What every integration takes. */
export interface GuardOptions {
  /**
   * A client bound to the agent's session (its mistakes are counted there);
   * derive one per task with `client.withContext({ sessionId })`.
   */
  client: ToolGuardClient;
  /**
   * Whether to send the framework's tool schemas with each call (default
   * true). Turn it off when the server's tools file already declares them.
   */
  sendTools?: boolean;
  /** Called with every verdict, for logging or metrics. */
  onVerdict?(verdict: Verdict): void;
}

/** A call toolguard accepted, possibly repaired. */
export interface AcceptedCall {
  ok: true;
  /** The tool to run: the canonical name of one of the declared tools. */
  toolName: string;
  /** The arguments to run it with, as compact JSON text. */
  argumentsJson: string;
  /** Whether toolguard changed anything (name, arguments). */
  repaired: boolean;
  verdict: Verdict;
}

/** A call toolguard refused: give `feedback` to the model as the tool's result. */
export interface RefusedCall {
  ok: false;
  feedback: string;
  verdict: Verdict;
}

export type GuardedCall = AcceptedCall | RefusedCall;

/** One tool call as the model wrote it. */
export interface RawCall {
  name: string;
  /** The arguments text exactly as the model wrote it (JSON, broken JSON, a Python dict...). */
  argumentsText: string;
  callId?: string;
  signal?: AbortSignal;
}

/**
 * Repairs and validates one call. The tools are the ones the framework
 * offered the model; a call toolguard maps to a tool outside them (one of
 * its built-in tools, kept beside the ones sent: `create_file` when only
 * `Write` is offered) is refused, since the framework could not run it.
 */
export async function guardCall(options: GuardOptions, tools: readonly ToolInit[], call: RawCall): Promise<GuardedCall> {
  const verdict = await options.client.validate(call.name, {
    argumentsText: call.argumentsText,
    ...(call.callId ? { callId: call.callId } : {}),
    ...(call.signal ? { signal: call.signal } : {}),
    tools: options.sendTools === false ? [] : [...tools],
  });
  options.onVerdict?.(verdict);
  if (!verdict.ok) {
    return { ok: false, feedback: verdict.feedback, verdict };
  }
  const names = tools.map((t) => t.name);
  if (names.length > 0 && !names.includes(verdict.toolName)) {
    return { ok: false, feedback: unknownToolFeedback(call.name, names), verdict };
  }
  let argumentsJson = verdict.argumentsJson;
  // A value too large to send back is elided from the answer; without a
  // repair the model's own text is the same call.
  if (verdict.elided.some((e) => e.sha256 !== "" && argumentsJson.includes(e.sha256))) {
    if (verdict.repairs.length > 0) {
      throw new Error(`toolguard: the repaired arguments of ${call.name} are too large to be returned; raise the server's send limit`);
    }
    argumentsJson = call.argumentsText;
  }
  return { ok: true, toolName: verdict.toolName, argumentsJson, repaired: verdict.repairs.length > 0, verdict };
}

function unknownToolFeedback(name: string, names: string[]): string {
  return `Error: there is no tool named ${JSON.stringify(name)} here. Available tools: ${names.join(", ")}.\nCall one of them instead.\n`;
}

/** Arguments held as an object (LangChain, an Anthropic `input`) as the text toolguard reads. */
export function argumentsText(args: unknown): string {
  return typeof args === "string" ? args : JSON.stringify(args ?? {});
}

// Example: the Vercel AI SDK with toolguard. A mock model stands in for a
// real one (put yours, e.g. openai("gpt-5-mini"), in its place): it first
// calls get_weather with a Python dict, then with a call missing its city.
//
//   npm run build && node dist/examples/ai-sdk.js 127.0.0.1:7700
//
// (start a server with `make run` in the repository root).

import { createToolGuardClient } from "@toolguard/client";
import { generateText, stepCountIs, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";

import { toolguardMiddleware, toolguardRepairToolCall } from "../src/ai-sdk.js";

const address = process.argv[2] ?? "127.0.0.1:7700";
const client = createToolGuardClient({ address, sessionId: `ai-sdk-example-${process.pid}` });
const guard = { client };

const tools = {
  get_weather: tool({
    description: "The weather of a city",
    inputSchema: z.object({ city: z.string(), days: z.number().int().optional() }),
    execute: async ({ city, days }) => `sunny in ${city} for ${days ?? 1} day(s)`,
  }),
};

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const call = (input: string) => ({
  content: [{ type: "tool-call" as const, toolCallId: "call_1", toolName: "get_weather", input }],
  finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
  usage,
  warnings: [],
});
const done = { content: [{ type: "text" as const, text: "done" }], finishReason: { unified: "stop" as const, raw: "stop" }, usage, warnings: [] };

for (const input of ["{'city': 'Paris', 'days': '3',}", '{"days": 3}']) {
  const mock = new MockLanguageModelV3({ doGenerate: [call(input), done] });
  const result = await generateText({
    model: wrapLanguageModel({ model: mock, middleware: toolguardMiddleware(guard) }),
    tools,
    experimental_repairToolCall: toolguardRepairToolCall(guard),
    stopWhen: stepCountIs(3),
    prompt: "What is the weather in Paris?",
  });
  console.log(`== the model wrote get_weather(${input})`);
  for (const part of result.steps[0]!.content) {
    if (part.type === "tool-result") console.log(`tool ran with ${JSON.stringify(part.input)}: ${JSON.stringify(part.output)}`);
    if (part.type === "tool-error") console.log(`tool did not run; the model reads:\n${String(part.error).trimEnd()}`);
  }
}
client.close();

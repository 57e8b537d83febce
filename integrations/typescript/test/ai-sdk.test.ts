// The Vercel AI SDK integration against a real toolguard server, with the
// SDK's own mock model (MockLanguageModelV3 of ai/test): a broken call is
// repaired before the tool runs; a refused one never runs and its feedback
// is what the model reads on the next step.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { generateText, stepCountIs, streamText, tool, wrapLanguageModel, type ModelMessage } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import { z } from "zod";

import { REFUSED_PREFIX, toolguardMiddleware, toolguardRepairToolCall } from "../src/ai-sdk.js";
import { clientFor, startServer, type ToolGuardServer } from "../testing/server.js";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function toolCallStep(toolName: string, input: string) {
  return {
    content: [{ type: "tool-call" as const, toolCallId: "call_1", toolName, input }],
    finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
    usage,
    warnings: [],
  };
}

const doneStep = {
  content: [{ type: "text" as const, text: "done" }],
  finishReason: { unified: "stop" as const, raw: "stop" },
  usage,
  warnings: [],
};

/** A weather tool that records what it ran with. */
function weatherTools(ran: unknown[]) {
  return {
    get_weather: tool({
      description: "The weather of a city",
      inputSchema: z.object({ city: z.string(), days: z.number().int().optional() }),
      execute: async (input) => {
        ran.push(input);
        return `sunny in ${input.city}`;
      },
    }),
  };
}

/** The tool results of the prompt the model got on its second step. */
function toolResults(prompt: ModelMessage[] | unknown[]): unknown[] {
  return (prompt as { role: string; content: unknown }[])
    .filter((m) => m.role === "tool")
    .flatMap((m) => m.content as unknown[]);
}

describe("ai-sdk", { timeout: 120_000 }, () => {
  let server: ToolGuardServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
  });

  const cases = [
    { name: "a Python dict with a string number", toolName: "get_weather", input: "{'city': 'Paris', 'days': '3',}", want: { city: "Paris", days: 3 } },
    { name: "a parameter under another name", toolName: "get_weather", input: '{"City": "Paris"}', want: { city: "Paris" } },
    { name: "the tool under another name", toolName: "getWeather", input: '{"city": "Paris"}', want: { city: "Paris" } },
  ];

  for (const mode of ["middleware", "repair hook"] as const) {
    for (const c of cases) {
      it(`generateText, ${mode}: ${c.name} is repaired before the tool runs`, async () => {
        const guard = { client: clientFor(server, `ai-${mode}-${c.name}`) };
        const mock = new MockLanguageModelV3({ doGenerate: [toolCallStep(c.toolName, c.input), doneStep] });
        const ran: unknown[] = [];
        const result = await generateText({
          model: mode === "middleware" ? wrapLanguageModel({ model: mock, middleware: toolguardMiddleware(guard) }) : mock,
          tools: weatherTools(ran),
          prompt: "weather?",
          experimental_repairToolCall: toolguardRepairToolCall(guard),
          stopWhen: stepCountIs(3),
        });
        guard.client.close();
        assert.deepEqual(ran, [c.want]);
        assert.equal(result.text, "done");
        const [res] = toolResults(mock.doGenerateCalls[1]!.prompt) as { output: unknown }[];
        assert.deepEqual(res?.output, { type: "text", value: "sunny in Paris" });
      });
    }

    it(`generateText, ${mode}: a refused call does not run and the model reads the feedback`, async () => {
      const guard = { client: clientFor(server, `ai-${mode}-refused`) };
      const mock = new MockLanguageModelV3({ doGenerate: [toolCallStep("get_weather", '{"days": 3}'), doneStep] });
      const ran: unknown[] = [];
      await generateText({
        model: mode === "middleware" ? wrapLanguageModel({ model: mock, middleware: toolguardMiddleware(guard) }) : mock,
        tools: weatherTools(ran),
        prompt: "weather?",
        experimental_repairToolCall: toolguardRepairToolCall(guard),
        stopWhen: stepCountIs(3),
      });
      const session = await guard.client.getSession();
      guard.client.close();
      assert.deepEqual(ran, []);
      const [res] = toolResults(mock.doGenerateCalls[1]!.prompt) as { output: { type: string; value: string } }[];
      assert.equal(res?.output.type, "error-text");
      assert.match(res!.output.value, /^Error repairing tool call: Error: the get_weather tool call could not be used\./);
      assert.match(res!.output.value, /Missing required parameter "city"/);
      assert.ok(!res!.output.value.includes(REFUSED_PREFIX));
      assert.equal(session.mistakes?.consecutive, 1, "the refusal is counted once");
    });
  }

  it("a call toolguard maps to one of its built-in tools, not offered here, is refused", async () => {
    const guard = { client: clientFor(server, "ai-builtin") };
    const mock = new MockLanguageModelV3({ doGenerate: [toolCallStep("Write", '{"file_path": "a.txt", "text": "hi"}'), doneStep] });
    const ran: unknown[] = [];
    await generateText({
      model: wrapLanguageModel({ model: mock, middleware: toolguardMiddleware(guard) }),
      tools: weatherTools(ran),
      prompt: "write",
      experimental_repairToolCall: toolguardRepairToolCall(guard),
      stopWhen: stepCountIs(3),
    });
    guard.client.close();
    assert.deepEqual(ran, []);
    const [res] = toolResults(mock.doGenerateCalls[1]!.prompt) as { output: { value: string } }[];
    assert.match(res!.output.value, /there is no tool named "Write" here\. Available tools: get_weather\./);
  });

  it("a call named like a built-in's alias runs the agent's own tool of that spelling", async () => {
    const guard = { client: clientFor(server, "ai-own-write") };
    const mock = new MockLanguageModelV3({ doGenerate: [toolCallStep("write", '{"file_path": "a.txt", "content": "hi"}'), doneStep] });
    const ran: unknown[] = [];
    await generateText({
      model: wrapLanguageModel({ model: mock, middleware: toolguardMiddleware(guard) }),
      tools: {
        Write: tool({
          description: "Write a file",
          inputSchema: z.object({ file_path: z.string(), content: z.string() }),
          execute: async (input) => {
            ran.push(input);
            return "written";
          },
        }),
      },
      prompt: "write",
      experimental_repairToolCall: toolguardRepairToolCall(guard),
      stopWhen: stepCountIs(3),
    });
    guard.client.close();
    assert.deepEqual(ran, [{ file_path: "a.txt", content: "hi" }]);
  });

  it("streamText with the middleware: the streamed call is repaired before the tool runs", async () => {
    const guard = { client: clientFor(server, "ai-stream") };
    const input = "{'city': 'Paris', 'days': '2'}";
    const mock = new MockLanguageModelV3({
      doStream: [
        {
          stream: convertArrayToReadableStream([
            { type: "stream-start" as const, warnings: [] },
            { type: "tool-input-start" as const, id: "call_1", toolName: "get_weather" },
            { type: "tool-input-delta" as const, id: "call_1", delta: input },
            { type: "tool-input-end" as const, id: "call_1" },
            { type: "tool-call" as const, toolCallId: "call_1", toolName: "get_weather", input },
            { type: "finish" as const, finishReason: { unified: "tool-calls" as const, raw: "tool_calls" }, usage },
          ]),
        },
        {
          stream: convertArrayToReadableStream([
            { type: "text-start" as const, id: "t" },
            { type: "text-delta" as const, id: "t", delta: "done" },
            { type: "text-end" as const, id: "t" },
            { type: "finish" as const, finishReason: { unified: "stop" as const, raw: "stop" }, usage },
          ]),
        },
      ],
    });
    const ran: unknown[] = [];
    const result = streamText({
      model: wrapLanguageModel({ model: mock, middleware: toolguardMiddleware(guard) }),
      tools: weatherTools(ran),
      prompt: "weather?",
      experimental_repairToolCall: toolguardRepairToolCall(guard),
      stopWhen: stepCountIs(3),
    });
    assert.equal(await result.text, "done");
    guard.client.close();
    assert.deepEqual(ran, [{ city: "Paris", days: 2 }]);
  });

  it("streamText with the middleware: a refused streamed call becomes the model's feedback", async () => {
    const guard = { client: clientFor(server, "ai-stream-refused") };
    const input = '{"days": 2}';
    const mock = new MockLanguageModelV3({
      doStream: [
        {
          stream: convertArrayToReadableStream([
            { type: "tool-call" as const, toolCallId: "call_1", toolName: "get_weather", input },
            { type: "finish" as const, finishReason: { unified: "tool-calls" as const, raw: "tool_calls" }, usage },
          ]),
        },
        {
          stream: convertArrayToReadableStream([
            { type: "finish" as const, finishReason: { unified: "stop" as const, raw: "stop" }, usage },
          ]),
        },
      ],
    });
    const ran: unknown[] = [];
    const result = streamText({
      model: wrapLanguageModel({ model: mock, middleware: toolguardMiddleware(guard) }),
      tools: weatherTools(ran),
      prompt: "weather?",
      experimental_repairToolCall: toolguardRepairToolCall(guard),
      stopWhen: stepCountIs(3),
    });
    await result.consumeStream();
    await result.text;
    guard.client.close();
    assert.deepEqual(ran, []);
    const [res] = toolResults(mock.doStreamCalls[1]!.prompt) as { output: { type: string; value: string } }[];
    assert.match(res!.output.value, /Missing required parameter "city"/);
  });
});

// The OpenAI Agents SDK integration against a real toolguard server, with a
// scripted Model (the SDK's interface for custom models): a broken call is
// repaired before the tool runs; a refused one never runs and toolguard's
// feedback is the tool output the model reads on its next turn.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  Agent,
  Runner,
  Usage,
  setTracingDisabled,
  tool,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from "@openai/agents";
import { z } from "zod";

import { guardModel, guardTools } from "../src/openai-agents.js";
import { clientFor, startServer, type ToolGuardServer } from "../testing/server.js";

setTracingDisabled(true);

/** A model that answers with one function call, then with "done"; it keeps every request. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(
    private readonly name: string,
    private readonly args: string,
  ) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output: ModelResponse["output"] =
      this.requests.length === 1
        ? [{ type: "function_call", callId: "call_1", name: this.name, arguments: this.args, status: "completed" }]
        : [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done" }] }];
    return { usage: new Usage(), output };
  }

  /** The same answers, streamed: the runner takes the calls from `response_done`. */
  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const { output } = await this.getResponse(request);
    yield { type: "response_started" };
    yield {
      type: "response_done",
      response: { id: `r${this.requests.length}`, usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, output },
    } as StreamEvent;
  }
}

function weatherTool(ran: unknown[]) {
  return tool({
    name: "get_weather",
    description: "The weather of a city",
    parameters: z.object({ city: z.string(), days: z.number().int().nullable() }),
    execute: async (input) => {
      ran.push(input);
      return `sunny in ${input.city}`;
    },
  });
}

/** The function call outputs the model was given on its second turn. */
function callOutputs(model: ScriptedModel): { callId: string; output: unknown }[] {
  const input = model.requests[1]?.input;
  assert.ok(Array.isArray(input), "the model was called a second time with items");
  return (input as AgentInputItem[]).filter((i) => i.type === "function_call_result") as unknown as { callId: string; output: unknown }[];
}

function outputText(output: unknown): string {
  return typeof output === "string" ? output : (output as { text: string }).text;
}

describe("openai-agents", { timeout: 120_000 }, () => {
  let server: ToolGuardServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
  });

  const repaired = [
    { name: "a Python dict with a string number", tool: "get_weather", args: "{'city': 'Paris', 'days': '3',}", want: { city: "Paris", days: 3 } },
    { name: "JSON in a code fence", tool: "get_weather", args: '```json\n{"city": "Paris", "days": 2}\n```', want: { city: "Paris", days: 2 } },
    { name: "a parameter under another name", tool: "get_weather", args: '{"City": "Paris", "days": null}', want: { city: "Paris", days: null } },
    { name: "the tool under another name", tool: "getWeather", args: '{"city": "Paris", "days": 1}', want: { city: "Paris", days: 1 } },
  ];
  for (const stream of [false, true]) {
    for (const c of repaired) {
      it(`${stream ? "streamed: " : ""}${c.name} is repaired before the tool runs`, async () => {
        const guard = { client: clientFor(server, `agents-${stream}-${c.name}`) };
        const ran: unknown[] = [];
        const model = new ScriptedModel(c.tool, c.args);
        const agent = new Agent({ name: "weather", model: guardModel(model, guard), tools: guardTools([weatherTool(ran)], guard) });
        const result = stream ? await new Runner().run(agent, "weather in Paris?", { stream: true }) : await new Runner().run(agent, "weather in Paris?");
        if (stream) await (result as { completed: Promise<void> }).completed;
        guard.client.close();
        assert.deepEqual(ran, [c.want]);
        assert.equal(result.finalOutput, "done");
        const [out] = callOutputs(model);
        assert.equal(out?.callId, "call_1");
        assert.equal(outputText(out?.output), "sunny in Paris");
      });
    }
  }

  it("the wrapped tools alone repair JSON arguments", async () => {
    const client = clientFor(server, "agents-tools-alone");
    const ran: unknown[] = [];
    const model = new ScriptedModel("get_weather", '{"City": "Paris", "days": "4"}');
    const agent = new Agent({ name: "weather", model, tools: guardTools([weatherTool(ran)], { client }) });
    await new Runner().run(agent, "weather?");
    client.close();
    assert.deepEqual(ran, [{ city: "Paris", days: 4 }]);
  });

  it("a refused call does not run and its feedback is the tool output", async () => {
    const client = clientFor(server, "agents-refused");
    const guard = { client };
    const ran: unknown[] = [];
    const model = new ScriptedModel("get_weather", "{'days': 3}");
    const agent = new Agent({ name: "weather", model: guardModel(model, guard), tools: guardTools([weatherTool(ran)], guard) });
    await new Runner().run(agent, "weather?");
    const session = await client.getSession();
    client.close();
    assert.deepEqual(ran, []);
    const [out] = callOutputs(model);
    assert.match(outputText(out?.output), /^Error: the get_weather tool call could not be used\.\n- Missing required parameter "city"\./);
    assert.equal(session.mistakes?.consecutive, 1);
  });

  it("without the wrapper the same broken call fails the tool's schema", async () => {
    const ran: unknown[] = [];
    const model = new ScriptedModel("get_weather", repaired[0]!.args);
    const agent = new Agent({ name: "weather", model, tools: [weatherTool(ran)] });
    await new Runner().run(agent, "weather?");
    assert.deepEqual(ran, []);
    assert.doesNotMatch(outputText(callOutputs(model)[0]?.output), /sunny/);
  });
});

// Example: the OpenAI Agents SDK with toolguard. A scripted model stands in
// for a real one (put yours, e.g. await new OpenAIProvider().getModel(), in
// its place): it first calls get_weather with a Python dict, then with a
// call missing its city.
//
//   npm run build && node dist/examples/openai-agents.js 127.0.0.1:7700
//
// (start a server with `make run` in the repository root).

import { createToolGuardClient } from "@toolguard/client";
import { Agent, Runner, Usage, setTracingDisabled, tool, type Model, type ModelResponse, type StreamEvent } from "@openai/agents";
import { z } from "zod";

import { guardModel, guardTools } from "../src/openai-agents.js";

setTracingDisabled(true); // no OpenAI key in this example

const address = process.argv[2] ?? "127.0.0.1:7700";
const client = createToolGuardClient({ address, sessionId: `agents-example-${process.pid}` });
const guard = { client };

const getWeather = tool({
  name: "get_weather",
  description: "The weather of a city",
  parameters: z.object({ city: z.string(), days: z.number().int().nullable() }),
  execute: async ({ city, days }) => `sunny in ${city} for ${days ?? 1} day(s)`,
});

/** Calls get_weather with `args`, then answers with the tool output it was given. */
function scripted(args: string): Model {
  let turn = 0;
  return {
    async getResponse(request): Promise<ModelResponse> {
      if (turn++ === 0) {
        return { usage: new Usage(), output: [{ type: "function_call", callId: "call_1", name: "get_weather", arguments: args, status: "completed" }] };
      }
      const items = Array.isArray(request.input) ? request.input : [];
      const result = items.find((i) => i.type === "function_call_result");
      const output = result && "output" in result ? result.output : "";
      const text = typeof output === "string" ? output : "text" in output ? output.text : "";
      return { usage: new Usage(), output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] }] };
    },
    // eslint-disable-next-line require-yield
    async *getStreamedResponse(): AsyncIterable<StreamEvent> {
      throw new Error("not streamed in this example");
    },
  };
}

for (const args of ["{'city': 'Paris', 'days': '3',}", '{"days": 3}']) {
  const agent = new Agent({ name: "weather", model: guardModel(scripted(args), guard), tools: guardTools([getWeather], guard) });
  const result = await new Runner().run(agent, "What is the weather in Paris?");
  console.log(`== the model wrote get_weather(${args})\nthe model read: ${String(result.finalOutput).trimEnd()}`);
}
client.close();

// Example: LangGraph.js with toolguard. LangChain's fake chat model stands in
// for a real one (put yours, e.g. new ChatOpenAI().bindTools(tools), in its
// place): it calls get_weather with a misnamed parameter and a string number,
// then with a call missing its city.
//
//   npm run build && node dist/examples/langgraph.js 127.0.0.1:7700
//
// (start a server with `make run` in the repository root).

import { createToolGuardClient } from "@toolguard/client";
import { AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel, FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { toolsCondition } from "@langchain/langgraph/prebuilt";
import { z } from "zod";

import { guardedToolNode } from "../src/langgraph.js";

const address = process.argv[2] ?? "127.0.0.1:7700";
const client = createToolGuardClient({ address, sessionId: `langgraph-example-${process.pid}` });

const getWeather = tool(async ({ city, days }) => `sunny in ${city} for ${days ?? 1} day(s)`, {
  name: "get_weather",
  description: "The weather of a city",
  schema: z.object({ city: z.string(), days: z.number().int().optional() }),
});

for (const args of [{ City: "Paris", days: "3" }, { days: 3 }]) {
  const first = new FakeStreamingChatModel({
    chunks: [new AIMessageChunk({ content: "", tool_calls: [{ name: "get_weather", args, id: "call_1", type: "tool_call" }] })],
  });
  const second = new FakeListChatModel({ responses: ["done"] });
  let turn = 0;
  const app = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({ messages: [await (turn++ === 0 ? first : second).invoke(state.messages)] }))
    .addNode("tools", guardedToolNode([getWeather], { client })) // in place of new ToolNode([getWeather])
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile();
  const out = await app.invoke({ messages: [new HumanMessage("What is the weather in Paris?")] });
  const result = out.messages.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
  console.log(`== the model wrote get_weather(${JSON.stringify(args)})\n${result.status}: ${String(result.content).trimEnd()}`);
}
client.close();

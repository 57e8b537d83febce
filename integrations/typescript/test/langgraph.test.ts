// The LangGraph.js integration against a real toolguard server, with
// @langchain/core's fake chat models: a broken call is repaired before the
// tools run; a refused one never runs and its feedback is a ToolMessage the
// model reads on its next turn.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel, FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { z } from "zod";

import { guardedToolNode, repairToolCalls, toolguardNode } from "../src/langgraph.js";
import { clientFor, startServer, type ToolGuardServer } from "../testing/server.js";

function weatherTool(ran: unknown[]) {
  return tool(
    async (input) => {
      ran.push(input);
      return `sunny in ${input.city}`;
    },
    { name: "get_weather", description: "The weather of a city", schema: z.object({ city: z.string(), days: z.number().int().optional() }) },
  );
}

/**
 * A graph whose model answers first with the given tool call (a fake
 * streaming model), then "done" (a fake list model), recording the messages
 * it was given on its second turn.
 */
function graph(call: { name: string; args: Record<string, unknown> }, tools: ReturnType<typeof weatherTool>[], wiring: "node" | "tool node", guard: Parameters<typeof toolguardNode>[1]) {
  const first = new FakeStreamingChatModel({ chunks: [new AIMessageChunk({ content: "", tool_calls: [{ ...call, id: "call_1", type: "tool_call" }] })] });
  const second = new FakeListChatModel({ responses: ["done"] });
  const seen: BaseMessage[][] = [];
  const agent = async (state: typeof MessagesAnnotation.State) => {
    seen.push(state.messages);
    return { messages: [await (seen.length === 1 ? first : second).invoke(state.messages)] };
  };
  const g =
    wiring === "node"
      ? new StateGraph(MessagesAnnotation)
          .addNode("agent", agent)
          .addNode("guard", toolguardNode(tools, guard))
          .addNode("tools", new ToolNode(tools))
          .addEdge(START, "agent")
          .addConditionalEdges("agent", toolsCondition, { tools: "guard", [END]: END })
          .addEdge("guard", "tools")
          .addEdge("tools", "agent")
      : new StateGraph(MessagesAnnotation)
          .addNode("agent", agent)
          .addNode("tools", guardedToolNode(tools, guard))
          .addEdge(START, "agent")
          .addConditionalEdges("agent", toolsCondition, ["tools", END])
          .addEdge("tools", "agent");
  return { app: g.compile(), seen };
}

describe("langgraph", { timeout: 120_000 }, () => {
  let server: ToolGuardServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
  });

  const repaired = [
    { name: "a string number", call: { name: "get_weather", args: { city: "Paris", days: "3" } }, want: { city: "Paris", days: 3 } },
    { name: "a parameter under another name", call: { name: "get_weather", args: { City: "Paris" } }, want: { city: "Paris" } },
    { name: "the tool under another name", call: { name: "getWeather", args: { city: "Paris" } }, want: { city: "Paris" } },
  ];
  for (const wiring of ["node", "tool node"] as const) {
    for (const c of repaired) {
      it(`${wiring}: ${c.name} is repaired before the tool runs`, async () => {
        const guard = { client: clientFor(server, `lg-${wiring}-${c.name}`) };
        const ran: unknown[] = [];
        const { app, seen } = graph(c.call, [weatherTool(ran)], wiring, guard);
        const out = await app.invoke({ messages: [new HumanMessage("weather in Paris?")] });
        guard.client.close();
        assert.deepEqual(ran, [c.want]);
        assert.equal(out.messages.at(-1)?.content, "done");
        const ai = seen[1]!.find((m) => AIMessage.isInstance(m)) as AIMessage;
        assert.deepEqual(ai.tool_calls?.map((t) => [t.name, t.args]), [["get_weather", c.want]], "the history holds the repaired call");
        const results = seen[1]!.filter((m) => ToolMessage.isInstance(m)) as ToolMessage[];
        assert.deepEqual(results.map((m) => [m.tool_call_id, m.content]), [["call_1", "sunny in Paris"]]);
      });
    }

    it(`${wiring}: a refused call does not run and the model reads the feedback`, async () => {
      const guard = { client: clientFor(server, `lg-${wiring}-refused`) };
      const ran: unknown[] = [];
      const { app, seen } = graph({ name: "get_weather", args: { days: 3 } }, [weatherTool(ran)], wiring, guard);
      await app.invoke({ messages: [new HumanMessage("weather?")] });
      const session = await guard.client.getSession();
      guard.client.close();
      assert.deepEqual(ran, []);
      const results = seen[1]!.filter((m) => ToolMessage.isInstance(m)) as ToolMessage[];
      assert.equal(results.length, 1);
      assert.equal(results[0]!.tool_call_id, "call_1");
      assert.equal(results[0]!.status, "error");
      assert.match(String(results[0]!.content), /^Error: the get_weather tool call could not be used\.\n- Missing required parameter "city"\./);
      assert.equal(session.mistakes?.consecutive, 1);
    });
  }

  it("repairToolCalls: a call LangChain could not parse (a Python dict) becomes a tool call", async () => {
    const client = clientFor(server, "lg-invalid");
    const message = new AIMessage({
      id: "msg_1",
      content: "",
      invalid_tool_calls: [{ name: "get_weather", args: "{'city': 'Paris', 'days': 2,}", id: "call_9", error: "bad JSON", type: "invalid_tool_call" }],
    });
    const { message: out, feedback } = await repairToolCalls(message, [weatherTool([])], { client });
    client.close();
    assert.equal(out.id, "msg_1");
    assert.deepEqual(out.tool_calls, [{ name: "get_weather", args: { city: "Paris", days: 2 }, id: "call_9", type: "tool_call" }]);
    assert.deepEqual(out.invalid_tool_calls, []);
    assert.deepEqual(feedback, []);
  });

  it("repairToolCalls: a message whose calls are fine is returned as it is", async () => {
    const client = clientFor(server, "lg-fine");
    const message = new AIMessage({ content: "", tool_calls: [{ name: "get_weather", args: { city: "Paris" }, id: "c", type: "tool_call" }] });
    const out = await repairToolCalls(message, [weatherTool([])], { client });
    client.close();
    assert.equal(out.message, message);
    assert.deepEqual(out.feedback, []);
  });
});

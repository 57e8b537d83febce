// The TypeScript side of bench/clients (see worker.py): one JSON command a
// line on stdin, one JSON line back with each call's time in µs, the
// process's CPU time over them, and for ValidateToolCall how many calls came
// back right, wrong (and of those, only the final newline lost) or refused
// (calls.mjs judge).
// usage: node worker.mjs <address> <calls.json> [client|grpc-js|jsonrepair] [the client module, default this checkout's]
//   jsonrepair: what a user would do instead, in process: npm jsonrepair,
//   then ajv against write_to_file's schema; no server.

import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

import { judge } from "./calls.mjs";

const [address, callsFile, kind = "client", module = "../../clients/typescript/dist/src/index.js"] = process.argv.slice(2);
const calls = JSON.parse(readFileSync(callsFile, "utf8"));

async function connect() {
  if (kind === "jsonrepair") return (await import("./peer.mjs")).createInProcessPeer();
  if (kind === "grpc-js") return (await import("./grpcjs.mjs")).createGrpcJsClient(address);
  return (await import(module)).createToolGuardClient({ address, sessionId: "bench-ts", timeoutMs: 30_000 });
}
const client = await connect();

for await (const line of createInterface({ input: process.stdin })) {
  const cmd = JSON.parse(line);
  const us = [];
  const verdicts = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < cmd.n; i++) {
    const t = process.hrtime.bigint();
    if (cmd.op === "getSession") {
      await client.getSession();
    } else {
      const c = calls[i % calls.length];
      verdicts.push(await client.validate(c.name, { argumentsText: c.arguments }));
    }
    us.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  const { user, system } = process.cpuUsage(cpu);
  // Judged after the timing: only the repair is timed.
  const judged = { right: 0, wrong: 0, newline: 0, refused: 0 };
  verdicts.forEach((v, i) => {
    const got = v.ok ? (v.value ?? JSON.parse(v.argumentsJson)) : undefined;
    const j = judge(got, calls[i % calls.length].intended);
    judged[j === "newline" ? "wrong" : j]++;
    if (j === "newline") judged.newline++;
  });
  process.stdout.write(JSON.stringify({ us, cpu: user + system, judged }) + "\n");
}
client.close();

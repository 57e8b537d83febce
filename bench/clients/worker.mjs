// The TypeScript client's side of bench/clients (see worker.py): one JSON
// command a line on stdin, one JSON line of per-call times in µs and the
// process's CPU time over them back.
// usage: node worker.mjs <address> <calls.json> [client|grpc-js] [the client module, default this checkout's]

import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const [address, callsFile, kind = "client", module = "../../clients/typescript/dist/src/index.js"] = process.argv.slice(2);
const calls = JSON.parse(readFileSync(callsFile, "utf8"));
const client = kind === "grpc-js"
  ? await (await import("./grpcjs.mjs")).createGrpcJsClient(address)
  : (await import(module)).createToolGuardClient({ address, sessionId: "bench-ts", timeoutMs: 30_000 });

for await (const line of createInterface({ input: process.stdin })) {
  const cmd = JSON.parse(line);
  const us = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < cmd.n; i++) {
    const t = process.hrtime.bigint();
    if (cmd.op === "getSession") {
      await client.getSession();
    } else {
      const c = calls[i % calls.length];
      const v = await client.validate(c.name, { argumentsText: c.arguments });
      if (!v.ok) throw new Error(`call ${i % calls.length} refused: ${v.feedback}`);
    }
    us.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  const { user, system } = process.cpuUsage(cpu);
  process.stdout.write(JSON.stringify({ us, cpu: user + system }) + "\n");
}
client.close();

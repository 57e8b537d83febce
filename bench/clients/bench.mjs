// The TypeScript client against the Python client, side by side in one run:
// one toolguard server, one long-lived worker process per client, the same
// calls (calls.mjs), rounds interleaved (the order of the workers alternates
// each round). Prints each round's per-call p50 as a median over the rounds
// with its range, and the ratio to the Python client's p50 of the same round.
//
// usage: node bench/clients/bench.mjs [rounds] [calls per round]
//   TOOLGUARD_BIN=path/to/toolguard (else built); the TypeScript client
//   built (npm run build in clients/typescript); Debian's python3-grpcio.
//   With bench/clients/node_modules installed (npm ci), @grpc/grpc-js on the
//   same calls is a third column. TS_BEFORE=path/to/dist/src/index.js adds
//   another build of the TypeScript client (an older commit's) as a column.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

import { writeCalls } from "./calls.mjs";
import { startServer } from "../../clients/typescript/dist/testing/server.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const rounds = Number(process.argv[2] ?? 15);
const perRound = Number(process.argv[3] ?? 440);

const tmp = mkdtempSync(join(tmpdir(), "toolguard-bench-clients-"));
const callsFile = join(tmp, "calls.json");
writeFileSync(callsFile, JSON.stringify(writeCalls()));
const server = await startServer();

function worker(name, cmd, args, env = {}) {
  const p = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, ...env } });
  const lines = createInterface({ input: p.stdout })[Symbol.asyncIterator]();
  return {
    name,
    async run(op, n) {
      p.stdin.write(JSON.stringify({ op, n }) + "\n");
      const { value, done } = await lines.next();
      if (done) throw new Error(`${name} worker exited`);
      return JSON.parse(value);
    },
    stop() {
      p.stdin.end();
      return new Promise((res) => p.on("exit", res));
    },
  };
}

const workers = [
  worker("python", "/usr/bin/python3", [join(here, "worker.py"), server.address, callsFile], {
    PYTHONPATH: join(root, "clients", "python"),
  }),
  worker("typescript", process.execPath, [...(process.env.TS_NODE_FLAGS ?? "").split(" ").filter(Boolean), join(here, "worker.mjs"), server.address, callsFile]),
];
if (process.env.TS_BEFORE) {
  workers.push(worker("typescript-before", process.execPath, [join(here, "worker.mjs"), server.address, callsFile, "client", process.env.TS_BEFORE]));
}
if (existsSync(join(here, "node_modules", "@grpc", "grpc-js"))) {
  workers.push(worker("grpc-js", process.execPath, [join(here, "worker.mjs"), server.address, callsFile, "grpc-js"]));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ops = ["getSession", "validate"];
const p50 = {}; // op -> worker -> [round p50]
const cpu = {}; // op -> worker -> [round CPU µs per call]
try {
  // Warm-up, not counted: Node compiles its hot paths over the first
  // thousand calls or so (a one-round smoke run only checks it all works).
  const warmup = rounds > 1 ? Math.max(perRound, 2000) : perRound;
  for (const w of workers) for (const op of ops) await w.run(op, warmup);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...workers].reverse() : workers;
    for (const op of ops) {
      for (const w of order) {
        const { us, cpu: c } = await w.run(op, perRound);
        ((p50[op] ??= {})[w.name] ??= []).push(median(us));
        ((cpu[op] ??= {})[w.name] ??= []).push(c / perRound);
      }
    }
  }
} finally {
  await Promise.all(workers.map((w) => w.stop()));
  await server.stop();
  rmSync(tmp, { recursive: true, force: true });
}

const f = (x) => x.toFixed(x < 10 ? 2 : 0);
const name = (op) => (op === "getSession" ? "GetSession" : "ValidateToolCall (write_to_file, 44 calls)");
function table(title, unit, data) {
  console.log(`\n${title}`);
  console.log(`| RPC | client | ${unit} | ratio to Python |`);
  console.log("|---|---|---|---|");
  for (const op of ops) {
    const py = data[op].python;
    for (const w of workers) {
      const xs = data[op][w.name];
      const ratios = xs.map((x, i) => x / py[i]);
      console.log(`| ${name(op)} | ${w.name} | ${f(median(xs))} [${f(Math.min(...xs))}–${f(Math.max(...xs))}] | ` +
        `${median(ratios).toFixed(2)} [${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}] |`);
    }
  }
}
console.log(`${rounds} interleaved rounds of ${perRound} calls per client and RPC; median [min–max] over the rounds`);
table("Per-call time, p50 of each round", "p50 µs", p50);
table("Client process CPU per call (all its threads)", "CPU µs", cpu);

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
//
// Beside the clients, on ValidateToolCall's calls only, what a user would do
// instead, in process: npm jsonrepair + ajv (from bench/clients/node_modules),
// and Python's json_repair + jsonschema when /usr/bin/python3 imports both
// (json_repair is not a Debian package: fetch it at benchmark time, e.g.
// pip install --target DIR json-repair, and pass PYTHONPATH=DIR). Each call's
// answer is judged against the good call it was made from (calls.mjs).

import { spawn, spawnSync } from "node:child_process";
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

function worker(name, cmd, args, env = {}, ops = ["getSession", "validate"], warmup = 2000) {
  const p = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, ...env } });
  const lines = createInterface({ input: p.stdout })[Symbol.asyncIterator]();
  return {
    name,
    ops,
    warmup,
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
// The in-process peers: no server, so no GetSession.
const pyPeer = spawnSync("/usr/bin/python3", ["-c", "import json_repair, jsonschema"], { stdio: "ignore" }).status === 0;
if (pyPeer) {
  // CPython compiles nothing as it goes, so one round warms it; json_repair
  // spends 20 ms of CPU on the mean call (its p50 is far lower).
  workers.push(worker("json_repair + jsonschema", "/usr/bin/python3", [join(here, "worker.py"), server.address, callsFile, "json_repair"], {}, ["validate"], perRound));
} else {
  console.log("json_repair + jsonschema: not importable by /usr/bin/python3, not measured (see bench.mjs)");
}
if (existsSync(join(here, "node_modules", "jsonrepair")) && existsSync(join(here, "node_modules", "ajv"))) {
  workers.push(worker("npm jsonrepair + ajv", process.execPath, [join(here, "worker.mjs"), server.address, callsFile, "jsonrepair"], {}, ["validate"]));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ops = ["getSession", "validate"];
const p50 = {}; // op -> worker -> [round p50]
const cpu = {}; // op -> worker -> [round CPU µs per call]
const judged = {}; // worker -> [round {right, wrong, newline, refused}]
const mean = {}; // worker -> [round mean µs of ValidateToolCall]
try {
  // Warm-up, not counted: Node compiles its hot paths over the first
  // thousand calls or so (a one-round smoke run only checks it all works).
  for (const w of workers) for (const op of w.ops) await w.run(op, rounds > 1 ? Math.max(perRound, w.warmup) : perRound);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...workers].reverse() : workers;
    for (const op of ops) {
      for (const w of order) {
        if (!w.ops.includes(op)) continue;
        const { us, cpu: c, judged: j } = await w.run(op, perRound);
        ((p50[op] ??= {})[w.name] ??= []).push(median(us));
        ((cpu[op] ??= {})[w.name] ??= []).push(c / perRound);
        if (op === "validate") {
          (judged[w.name] ??= []).push(j);
          (mean[w.name] ??= []).push(us.reduce((a, b) => a + b, 0) / us.length);
        }
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
      if (!xs) continue;
      const ratios = xs.map((x, i) => x / py[i]);
      console.log(`| ${name(op)} | ${w.name} | ${f(median(xs))} [${f(Math.min(...xs))}–${f(Math.max(...xs))}] | ` +
        `${median(ratios).toFixed(2)} [${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}] |`);
    }
  }
}
console.log(`${rounds} interleaved rounds of ${perRound} calls per client and RPC; median [min–max] over the rounds`);
table("Per-call time, p50 of each round", "p50 µs", p50);
table("Client process CPU per call (all its threads)", "CPU µs", cpu);

// Right, wrong and refused are the same every round (the calls and the
// repairs are deterministic); a range shows if they were not.
const count = (xs, k) => {
  const v = xs.map((j) => j[k]);
  return Math.min(...v) === Math.max(...v) ? `${v[0]}` : `${median(v)} [${Math.min(...v)}–${Math.max(...v)}]`;
};
console.log(`\nWhat a user would do instead: ${perRound} broken write_to_file calls a round, judged against the good calls they were made from`);
console.log("| path | right | wrong (of which only the final newline lost) | refused | p50 µs | ratio to Python client | mean µs |");
console.log("|---|---|---|---|---|---|---|");
const py = p50.validate.python;
for (const w of workers) {
  const xs = p50.validate[w.name];
  const ratios = xs.map((x, i) => x / py[i]);
  const j = judged[w.name];
  console.log(`| ${w.name} | ${count(j, "right")} | ${count(j, "wrong")} (${count(j, "newline")}) | ${count(j, "refused")} | ` +
    `${f(median(xs))} [${f(Math.min(...xs))}–${f(Math.max(...xs))}] | ` +
    `${median(ratios).toFixed(2)} [${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}] | ` +
    `${f(median(mean[w.name]))} [${f(Math.min(...mean[w.name]))}–${f(Math.max(...mean[w.name]))}] |`);
}
// toolguard's clients answer every call right, or the run fails (as a
// refused call failed it before calls were judged).
for (const w of workers.filter((w) => w.ops.includes("getSession"))) {
  if (judged[w.name].some((j) => j.right !== perRound)) {
    console.error(`bench.mjs: the ${w.name} client answered some calls wrong or refused them`);
    process.exitCode = 1;
  }
}

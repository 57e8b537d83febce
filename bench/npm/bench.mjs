// npm jsonrepair on toolguard's benchmark corpus, printed in the format of
// `go test -bench` so the figures line up with bench/jsonrepair_test.go:
//
//   BenchmarkRepairBroken/npm-jsonrepair    N    ns/op    MB/s
//
// Sides: "npm-jsonrepair" (jsonrepair(text), the text repair), and
// "npm-jsonrepair+JSON.parse" (its output parsed, as a caller must), and on
// the valid set "JSON.parse" alone, the baseline. MB/s counts UTF-8 bytes of
// input (1 MB = 1e6 bytes), as go test does.
//
// usage: node bench/npm/bench.mjs corpus.jsonl   (corpus from bench/gencorpus)
import { readFileSync } from 'node:fs'
import { jsonrepair } from 'jsonrepair'

const path = process.argv[2]
if (!path) {
  console.error('usage: node bench.mjs corpus.jsonl')
  process.exit(2)
}

const docs = readFileSync(path, 'utf8')
  .split('\n')
  .filter((l) => l !== '')
  .map((l) => JSON.parse(l))
for (const d of docs) d.bytes = Buffer.byteLength(d.input, 'utf8')

const benchtime = Number(process.env.BENCHTIME_MS || 1000)

// canonical renders a value with sorted keys, to compare decoded values.
function canonical(v) {
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']'
  if (v !== null && typeof v === 'object') {
    return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canonical(v[k])).join(',') + '}'
  }
  return JSON.stringify(v)
}

const sides = {
  'npm-jsonrepair': (s) => jsonrepair(s),
  'npm-jsonrepair+JSON.parse': (s) => JSON.parse(jsonrepair(s)),
  'JSON.parse': (s) => JSON.parse(s),
}

let sink
// runAll passes every doc through fn once; errors are counted, not thrown.
function runAll(fn, set) {
  let errors = 0
  for (const d of set) {
    try {
      sink = fn(d.input)
    } catch {
      errors++
    }
  }
  return errors
}

// bench times whole passes over set: warm-up for the JIT, then as many
// passes as fit in benchtime (at least one).
function bench(name, fn, set) {
  const bytes = set.reduce((n, d) => n + d.bytes, 0)
  const warm = process.hrtime.bigint()
  do runAll(fn, set)
  while (Number(process.hrtime.bigint() - warm) < benchtime * 2e5)
  let n = 0
  const start = process.hrtime.bigint()
  let elapsed = 0
  do {
    runAll(fn, set)
    n++
    elapsed = Number(process.hrtime.bigint() - start)
  } while (elapsed < benchtime * 1e6)
  const nsPerOp = elapsed / n
  const mbps = (bytes / nsPerOp) * 1e3
  console.log(`${name.padEnd(48)}\t${String(n).padStart(8)}\t${nsPerOp.toFixed(0).padStart(12)} ns/op\t${mbps.toFixed(2).padStart(8)} MB/s`)
  return mbps
}

const byset = (name) => docs.filter((d) => d.set === name)
const broken = byset('broken')
const valid = byset('valid')

// Fidelity: per kind, how often npm jsonrepair threw, produced text that is
// not JSON, or a value other than the one the model meant.
console.log(`npm jsonrepair fidelity on the broken set (err / invalid output / wrong; truncated docs have no intended value):`)
const kinds = [...new Set(broken.map((d) => d.kind))]
for (const kind of kinds) {
  let err = 0, invalid = 0, wrong = 0, n = 0
  for (const d of broken.filter((d) => d.kind === kind)) {
    n++
    let out
    try {
      out = jsonrepair(d.input)
    } catch {
      err++
      continue
    }
    let v
    try {
      v = JSON.parse(out)
    } catch {
      invalid++
      continue
    }
    if (d.want !== undefined && canonical(v) !== canonical(d.want)) wrong++
  }
  console.log(`  ${kind.padEnd(15)} ${String(n).padStart(5)} | ${String(err).padStart(5)} ${String(invalid).padStart(7)} ${String(wrong).padStart(6)}`)
}
let validWrong = 0
for (const d of valid) {
  try {
    if (canonical(JSON.parse(jsonrepair(d.input))) !== canonical(JSON.parse(d.input))) validWrong++
  } catch {
    validWrong++
  }
}
console.log(`  valid set: npm jsonrepair+JSON.parse differs from JSON.parse on ${validWrong} of ${valid.length} docs`)
console.log(`node ${process.version}, jsonrepair ${JSON.parse(readFileSync(new URL('./node_modules/jsonrepair/package.json', import.meta.url), 'utf8')).version}`)

const r = {}
r.brokenRepair = bench('BenchmarkRepairBroken/npm-jsonrepair', sides['npm-jsonrepair'], broken)
r.brokenParse = bench('BenchmarkRepairBroken/npm-jsonrepair+JSON.parse', sides['npm-jsonrepair+JSON.parse'], broken)
r.validBaseline = bench('BenchmarkRepairValid/JSON.parse', sides['JSON.parse'], valid)
r.validRepair = bench('BenchmarkRepairValid/npm-jsonrepair', sides['npm-jsonrepair'], valid)
r.validParse = bench('BenchmarkRepairValid/npm-jsonrepair+JSON.parse', sides['npm-jsonrepair+JSON.parse'], valid)
for (const [set, setDocs, names] of [
  ['broken', broken, ['npm-jsonrepair', 'npm-jsonrepair+JSON.parse']],
  ['valid', valid, ['JSON.parse', 'npm-jsonrepair']],
]) {
  for (const kind of [...new Set(setDocs.map((d) => d.kind))]) {
    const kdocs = setDocs.filter((d) => d.kind === kind)
    for (const name of names) bench(`BenchmarkRepairKinds/${kind}/${name}`, sides[name], kdocs)
  }
}
console.log(`npm summary: broken ${r.brokenRepair.toFixed(2)} MB/s (repair), ${r.brokenParse.toFixed(2)} MB/s (+JSON.parse); valid JSON.parse ${r.validBaseline.toFixed(2)} MB/s, jsonrepair ${r.validRepair.toFixed(2)} MB/s`)
void sink

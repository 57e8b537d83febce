// Writes npm jsonrepair's answer to each case of the conformance corpus, one
// JSON line per case: {"id", "answer"}, or {"id", "throws": true}. The repair
// package's tests read it as the second library's reading of each case:
//   node bench/npm/answers.mjs > repair/testdata/jsonrepair_answers.jsonl
import { jsonrepair } from 'jsonrepair'
import fs from 'node:fs'

const corpus = new URL('../../repair/testdata/json_repair_cases.jsonl', import.meta.url)
for (const line of fs.readFileSync(corpus, 'utf8').split('\n')) {
  if (!line) continue
  const c = JSON.parse(line)
  try {
    console.log(JSON.stringify({ id: c.id, answer: JSON.parse(jsonrepair(c.input)) }))
  } catch {
    console.log(JSON.stringify({ id: c.id, throws: true }))
  }
}

// The calls both clients send, the same for each: GetSession (the cheapest
// RPC) and ValidateToolCall on write_to_file calls broken the ways models
// break them, from 100 bytes to 8 KB of file content. Deterministic. Each
// broken call is made from a known good one, its `intended` arguments, so a
// repair is judged exactly: right only when it gives back that value, the
// file's final newline included.

// Each breakage encodes the good call faithfully but for the mistake it
// makes: backslashes stay escaped, so every broken text has one right answer
// (content holds Python escapes, "\\t", that a lossy encoding would turn
// into tabs).
const backslashes = (s) => s.replaceAll("\\", "\\\\");
const breakages = [
  // JSON with raw newlines and unescaped double quotes inside the content string
  (path, content) => `{"path": "${path}", "content": "${backslashes(content)}"}`,
  // a Python dict
  (path, content) => `{'path': '${path}', 'content': '${backslashes(content).replaceAll("'", "\\'")}'}`,
  // truncated: no closing brace
  (path, content) => `{"path": "${path}", "content": ${JSON.stringify(content)}`,
  // trailing comma and an alias of the path parameter
  (path, content) => `{"file_path": "${path}", "content": ${JSON.stringify(content)},}`,
  // valid JSON, the content as the model meant it
  (path, content) => JSON.stringify({ path, content }),
];

function content(size, seed) {
  const lines = [];
  let n = 0;
  for (let i = 0; n < size; i++) {
    const line = `    value_${seed}_${i} = compute(${i}, "text\\twith\\ttabs")  # line ${i}`;
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join("\n") + "\n";
}

/**
 * 44 write_to_file calls: 11 sizes × 4 of the 5 breakages, rotating; each
 * {name, arguments (the text as the model wrote it), intended}.
 */
export function writeCalls() {
  const sizes = [100, 200, 400, 700, 1000, 1500, 2000, 3000, 4000, 6000, 8000];
  const calls = [];
  for (const [i, size] of sizes.entries()) {
    for (let j = 0; j < 4; j++) {
      const brk = breakages[(i + j) % breakages.length];
      const intended = { path: `src/mod_${i}_${j}.py`, content: content(size, i * 4 + j) };
      calls.push({ name: "write_to_file", arguments: brk(intended.path, intended.content), intended });
    }
  }
  return calls;
}

/** The JSON Schema of write_to_file's arguments (repair/builtin_tools.yaml), for the in-process peers. */
export const writeToFileSchema = {
  type: "object",
  properties: { path: { type: "string" }, content: { type: "string" } },
  required: ["path", "content"],
  additionalProperties: false,
};

/**
 * How a path answered one call: "right" (the intended arguments exactly),
 * "newline" (wrong: only the file's final newline lost), "wrong" (another
 * value, accepted silently) or "refused" (got = undefined).
 */
export function judge(got, intended) {
  if (got === undefined) return "refused";
  const keys = got && typeof got === "object" && !Array.isArray(got) ? Object.keys(got) : [];
  const same = keys.length === 2 && got.path === intended.path;
  if (same && got.content === intended.content) return "right";
  if (same && typeof got.content === "string" && got.content + "\n" === intended.content) return "newline";
  return "wrong";
}

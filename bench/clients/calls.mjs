// The calls both clients send, the same for each: GetSession (the cheapest
// RPC) and ValidateToolCall on write_to_file calls broken the ways models
// break them, from 100 bytes to 8 KB of file content. Deterministic.

const breakages = [
  // JSON with raw newlines and tabs inside the content string
  (path, content) => `{"path": "${path}", "content": "${content}"}`,
  // a Python dict
  (path, content) => `{'path': '${path}', 'content': '${content.replaceAll("'", "\\'")}'}`,
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

/** 44 write_to_file calls: 11 sizes × 4 of the 5 breakages, rotating. */
export function writeCalls() {
  const sizes = [100, 200, 400, 700, 1000, 1500, 2000, 3000, 4000, 6000, 8000];
  const calls = [];
  for (const [i, size] of sizes.entries()) {
    for (let j = 0; j < 4; j++) {
      const brk = breakages[(i + j) % breakages.length];
      calls.push({ name: "write_to_file", arguments: brk(`src/mod_${i}_${j}.py`, content(size, i * 4 + j)) });
    }
  }
  return calls;
}

// Example: repair and validate broken tool calls, write a file, and follow a
// streamed model response, against a running toolguard server.
//
//   npm run example -- 127.0.0.1:7700
//
// (start one with `make run` in the repository root). Against several
// replicas, give a name resolving to each of them (the headless Service of
// docs/deployment.md): each call then goes to the next address.
//
//   npm run example -- dns:///toolguard-headless.toolguard:7700

import { createToolGuardClient, FileChangeKind, ToolGuardError, type Verdict } from "../src/index.js";

const address = process.argv[2] ?? "127.0.0.1:7700";
// TOOLGUARD_TOKEN: the bearer token of a server started with --auth-tokens-file.
const client = createToolGuardClient({ address, sessionId: `example-${process.pid}`, token: process.env.TOOLGUARD_TOKEN });

function show(title: string, verdict: Verdict): void {
  console.log(`\n== ${title}`);
  console.log(`ok: ${verdict.ok}  tool: ${verdict.toolName}  arguments: ${verdict.argumentsJson}`);
  for (const r of verdict.repairs) {
    console.log(`  repair ${r.code}${r.param ? ` (${r.param})` : ""}: ${r.detail}`);
  }
  for (const v of verdict.violations) {
    console.log(`  violation ${v.code}${v.param ? ` (${v.param})` : ""}: ${v.message}`);
  }
  if (verdict.feedback) {
    console.log("  feedback for the model:\n" + verdict.feedback.trimEnd().replace(/^/gm, "    | "));
  }
  const m = verdict.mistakes;
  console.log(`  mistakes in a row: ${m?.consecutive ?? 0}/${m?.limit ?? 0}${m?.limitReached ? " (limit reached)" : ""}`);
}

async function main(): Promise<void> {
  // Claude Code's names for write_to_file and its parameters.
  show(
    "Write with file_path/text",
    await client.validate("Write", {
      argumentsText: '{"file_path": "src/app.py", "text": "print(1)\\n"}',
      callId: "call_1",
    }),
  );

  // A Python dict instead of JSON: single quotes, True, a trailing comma.
  show(
    "a Python dict",
    await client.validate("edit_file", {
      argumentsText: "{'file_path': 'src/app.py', 'old_string': 'print(1)', 'new_string': 'print(2)', 'replace_all': True,}",
    }),
  );

  // A model's mistake: no content. The verdict carries feedback to send back.
  show("a call without content", await client.validate("Write", { argumentsText: "{'file_path': 'src/app.py'}" }));

  // Execute a write inside the server's workspace.
  const written = await client.write("Write", {
    argumentsText: JSON.stringify({ file_path: "examples/hello.py", content: 'print("hello")\n' }),
  });
  show("ExecuteWrite", written.verdict!);
  if (written.change) {
    console.log(
      `  ${FileChangeKind[written.change.kind]} ${written.change.path} (${written.change.size} bytes, sha256 ${written.change.sha256.slice(0, 12)}...)`,
    );
    console.log(written.diff.trimEnd().replace(/^/gm, "    "));
  }

  // Follow a response in the xml_tags format as it streams, in small chunks.
  const response =
    "I'll add a test.\n<write_to_file>\n<path>examples/test_hello.py</path>\n<content>\ndef test_hello():\n    assert True\n</content>\n</write_to_file>\nDone.";
  const chunks: string[] = [];
  for (let i = 0; i < response.length; i += 8) chunks.push(response.slice(i, i + 8));
  console.log("\n== StreamToolCalls (xml_tags)");
  for await (const ev of client.stream("xml_tags", chunks, { finishReason: "stop", executeOnComplete: true })) {
    switch (ev.case) {
      case "text":
        console.log(`  text         ${JSON.stringify(ev.value.text)}`);
        break;
      case "callStarted":
        console.log(`  call_started #${ev.value.index} ${ev.value.toolName} (written ${ev.value.rawName})`);
        break;
      case "paramUpdate": {
        const v = ev.value.value;
        const shown = v.case === "append" ? `+${JSON.stringify(v.value)}` : `= ${v.value}`;
        console.log(`  param_update #${ev.value.index} ${ev.value.param} ${shown}`);
        break;
      }
      case "callComplete": {
        const { verdict, execution, truncated } = ev.value;
        console.log(
          `  call_complete #${ev.value.index} ok=${verdict?.ok} truncated=${truncated}` +
            (execution ? ` applied=${execution.applied}` : "") +
            (verdict?.ok ? "" : `\n${verdict?.feedback.trimEnd().replace(/^/gm, "    | ")}`),
        );
        break;
      }
      case "error":
        console.log(`  error        ${ev.value.code}: ${ev.value.message}`);
        break;
      case "done":
        console.log(`  done         finish_reason=${ev.value.finishReason} calls=${ev.value.calls}`);
        break;
    }
  }
}

main()
  .catch((err: unknown) => {
    if (err instanceof ToolGuardError) {
      console.error(`toolguard error: ${err.message} (reason ${err.reason ?? "none"})`);
      for (const v of err.fieldViolations) console.error(`  ${v.field}: ${v.description}`);
    } else {
      console.error(err);
    }
    process.exitCode = 1;
  })
  .finally(() => client.close());

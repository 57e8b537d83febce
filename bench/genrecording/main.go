// Command genrecording writes a synthetic recording for toolguard eval:
// N calls as JSON lines, a mix of the mistakes models make (valid calls,
// Python literals, renamed parameters, broken JSON, missing and unexpected
// parameters), over 8 models and 400 sessions, one call a second from
// 2026-11-02T00:00:00Z; every fourth line is a streamed OpenAI exchange
// declaring its tool, one in fifty cut off at the length limit. The mix is fixed by the seed, so runs compare.
//
// usage: go run ./bench/genrecording -calls 1000000 > recording.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

var models = []string{"qwen3-coder", "gpt-4.1-mini", "claude-haiku-4-5", "llama-3.3-70b", "gemma-3-27b", "gpt-oss-20b", "deepseek-v3", "mistral-small"}

// kinds are the plain calls' arguments by kind, %[1]d a number; weights say
// how often each comes.
var kinds = []struct {
	weight int
	args   string
}{
	{60, `{"path": "src/f%[1]d.py", "content": "def f%[1]d():\n    return %[1]d\n"}`},
	{12, `{'path': 'src/f%[1]d.py', 'content': 'x = %[1]d'}`},
	{8, `{"file_path": "src/f%[1]d.py", "content": "y = %[1]d\n"}`},
	{6, `{"path": "src/f%[1]d.py", "content": "z = %[1]d"`},
	{8, `{"path": "src/f%[1]d.py"}`},
	{6, `{"path": "src/f%[1]d.py", "content": "w", "mode": "append"}`},
}

func main() {
	calls := flag.Int("calls", 100_000, "`number` of calls written")
	flag.Parse()
	if err := write(os.Stdout, *calls); err != nil {
		fmt.Fprintln(os.Stderr, "genrecording:", err)
		os.Exit(1)
	}
}

func write(out *os.File, n int) error {
	w := bufio.NewWriterSize(out, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	start := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	for i := range n {
		model := models[r.IntN(len(models))]
		at := start.Add(time.Duration(i) * time.Second).Format(time.RFC3339)
		session := fmt.Sprintf("s%d", r.IntN(400))
		pick := r.IntN(total)
		args := kinds[0].args
		for _, k := range kinds {
			if pick < k.weight {
				args = k.args
				break
			}
			pick -= k.weight
		}
		args = fmt.Sprintf(args, i)
		var line any
		if i%4 == 3 {
			line = exchange(model, args, at, session, r.IntN(50) == 0)
		} else {
			line = map[string]any{"tool": "write_to_file", "arguments": args, "model": model, "session": session, "time": at}
		}
		b, err := json.Marshal(line)
		if err != nil {
			return err
		}
		_, _ = w.Write(b) // the writer keeps its first error for Flush
		_ = w.WriteByte('\n')
	}
	return w.Flush()
}

// exchange is a streamed OpenAI chat completion whose one call carries
// args, split in two chunks; a cut one ends at the length limit halfway.
func exchange(model, args, at, session string, cut bool) map[string]any {
	tool := map[string]any{"type": "function", "function": map[string]any{"name": "write_to_file", "parameters": map[string]any{
		"type": "object", "required": []string{"path", "content"}, "additionalProperties": false,
		"properties": map[string]any{"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}},
	}}}
	half := len(args) / 2
	chunk := func(delta map[string]any, finish any) string {
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		return "data: " + string(b) + "\n\n"
	}
	call := func(fn map[string]any) map[string]any {
		return map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "c", "type": "function", "function": fn}}}
	}
	sse := chunk(call(map[string]any{"name": "write_to_file", "arguments": args[:half]}), nil)
	if cut {
		sse += chunk(map[string]any{}, "length")
	} else {
		sse += chunk(call(map[string]any{"arguments": args[half:]}), nil) + chunk(map[string]any{}, "tool_calls")
	}
	sse += "data: [DONE]\n\n"
	return map[string]any{
		"request":  map[string]any{"model": model, "stream": true, "tools": []any{tool}},
		"response": sse, "session": session, "time": at,
	}
}

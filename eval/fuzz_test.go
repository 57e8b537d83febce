package eval

import (
	"bytes"
	"context"
	"testing"
)

// FuzzRun: any input is read to its end without a panic, every non-blank
// line counted once, and every call in exactly one class.
func FuzzRun(f *testing.F) {
	for _, seed := range []string{
		`{"tool": "Write", "arguments": "{\"path\": \"a\", \"content\": \"b\"}"}`,
		`{"tool": "write", "arguments": {"path": "a"}, "model": "m"}` + "\r\n\n" + `{"tool": "x", "arguments": 3}`,
		`{"request": {"tools": [{"type": "function", "function": {"name": "Write", "parameters": {"type": "object"}}}]}, ` +
			`"response": {"choices": [{"message": {"tool_calls": [{"function": {"name": "Write", "arguments": "{'a': 1}"}}]}}]}}`,
		`{"request": {"tools": [{"name": "Write", "input_schema": {"type": "object"}}]}, "response": ` +
			`"event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"name\":\"Write\",\"input\":{}}}\n\n"}`,
		"{\"request\": 1, \"response\": \"\"}\n\x00\xff",
		`{"tool": "Write", "arguments": {"path": "a"}, "session": "s", "time": "2026-11-02T10:00:00Z"}` + "\n" +
			`{"tool": "Write", "arguments": {"file_path": "a", "content": "x\ny"}, "time": 1.5e9}` + "\n" + `{"tool": "Write", "arguments": {}, "time": -1}`,
	} {
		f.Add([]byte(seed))
	}
	e := newEvaluator(f, Options{MaxLineBytes: 512, Examples: 2})
	f.Fuzz(func(t *testing.T, input []byte) {
		s := NewSummary()
		if err := e.Run(context.Background(), bytes.NewReader(input), s); err != nil {
			t.Fatal(err)
		}
		lines := 0
		for _, l := range bytes.Split(input, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines++
			}
		}
		if s.Lines != lines {
			t.Fatalf("lines %d, want %d", s.Lines, lines)
		}
		sum := 0
		for _, c := range Classes {
			sum += s.Classes[c]
		}
		if sum != s.Calls {
			t.Fatalf("classes sum to %d of %d calls", sum, s.Calls)
		}
		inTimeline := 0
		for _, b := range s.Timeline.Buckets {
			inTimeline += b.Calls
		}
		if inTimeline != s.Calls || len(s.Timeline.Buckets) > timelineBuckets {
			t.Fatalf("timeline: %d calls in %d buckets, of %d calls", inTimeline, len(s.Timeline.Buckets), s.Calls)
		}
		if (s.First == nil) != (s.Last == nil) || (s.First != nil && s.Last.Before(*s.First)) {
			t.Fatalf("time range %v to %v", s.First, s.Last)
		}
	})
}

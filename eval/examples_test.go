package eval

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestCodeExamples: the first calls of each repair and violation code are
// kept, with the parameters a repair changed and a refusal's feedback.
func TestCodeExamples(t *testing.T) {
	input := strings.Join([]string{
		`{"tool": "Write", "arguments": "{\"file_path\": \"a.py\", \"content\": \"x\"}", "model": "m1"}`,
		`{"tool": "Write", "arguments": "{'path': 'c.py', 'content': 'x'}", "model": "m1"}`,
		`{"tool": "Write", "arguments": "{'path': 'd.py', 'content': 'x'}", "model": "m1"}`,
		`{"tool": "Write", "arguments": "{\"path\": \"e.py\"}", "model": "m2"}`,
	}, "\n")
	s := run(t, newEvaluator(t, Options{Examples: 1, ExampleBytes: 100}), input)
	codes := func(m map[string][]Example) map[string]int {
		out := map[string]int{}
		for c, es := range m {
			out[c] = len(es)
		}
		return out
	}
	checkCounts(t, "violation examples", codes(s.ViolationExamples), map[string]int{"MISSING_REQUIRED": 1})
	if _, ok := s.RepairExamples["PYTHON_LITERAL"]; !ok || len(s.RepairExamples["PYTHON_LITERAL"]) != 1 {
		t.Errorf("repair examples: %v", codes(s.RepairExamples))
	}
	if e := s.RepairExamples["PYTHON_LITERAL"][0]; e.Line != 2 || e.Changes != nil {
		t.Errorf("python literal example: line %d, changes %+v (the text was no JSON: none listed)", e.Line, e.Changes)
	}
	refused := s.ViolationExamples["MISSING_REQUIRED"][0]
	if refused.Line != 4 || !strings.Contains(refused.Feedback, "content") {
		t.Errorf("refused example: line %d, feedback %q", refused.Line, refused.Feedback)
	}
	renamed := s.RepairExamples["ALIAS_RENAMED"]
	if len(renamed) != 1 {
		t.Fatalf("repair examples: %+v", s.RepairExamples)
	}
	got, _ := json.Marshal(renamed[0].Changes)
	if want := `[{"param":"file_path","before":"a.py","removed":true},{"param":"path","after":"a.py","added":true}]`; string(got) != want {
		t.Errorf("renamed parameter: %s, want %s", got, want)
	}
}

// TestChanges: the parameters whose values differ, strings as text, a
// line diff for values of several lines, long values cut.
func TestChanges(t *testing.T) {
	x30 := strings.Repeat("x", 30)
	tests := []struct {
		name, written, repaired, want string
		more                          int
	}{
		{"no JSON object as written", `{'a': 1}`, `{"a":1}`, `null`, 0},
		{"nothing repaired", `{"a": 1}`, ``, `null`, 0},
		{"same values, other spacing", `{"a": [1, 2], "b": "x"}`, `{"b":"x","a":[1,2]}`, `null`, 0},
		{"a type coerced", `{"n": "3"}`, `{"n":3}`, `[{"param":"n","before":"3","after":"3"}]`, 0},
		{"a long value cut", `{"s": "` + x30 + `"}`, `{"s":"y"}`,
			`[{"param":"s","before":"xxxxxxxxxxxxxxxxxxxx… (30 bytes)","after":"y"}]`, 0},
		{"lines diffed", `{"c": "a\nb\n"}`, `{"c":"a\nc\n"}`,
			`[{"param":"c","diff":"--- as written\n+++ repaired\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"}]`, 0},
		{"past the budget, counted", `{"a": "` + x30 + `", "b": "` + x30 + `", "c": "` + x30 + `", "d": "` + x30 + `"}`,
			`{"a":"y","b":"y","c":"y","d":"y"}`,
			`[{"param":"a","before":"xxxxxxxxxxxxxxxxxxxx… (30 bytes)","after":"y"},` +
				`{"param":"b","before":"xxxxxxxxxxxxxxxxxxxx… (30 bytes)","after":"y"}]`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, more := changes(tt.written, []byte(tt.repaired), 20)
			got, _ := json.Marshal(out)
			if string(got) != tt.want || more != tt.more {
				t.Errorf("got  %s, %d more\nwant %s, %d more", got, more, tt.want, tt.more)
			}
		})
	}
}

// TestTimeline: mistakes are counted per session (a line's, else its
// model), reset by a usable call, and past the limit counted as reached;
// the buckets merge as the calls grow, their counts exact.
func TestTimeline(t *testing.T) {
	const (
		ok      = `{"tool": "Write", "arguments": {"path": "a", "content": "b"}, "model": "m"}`
		bad     = `{"tool": "Write", "arguments": {"path": "a"}, "model": "m"}`
		badElse = `{"tool": "Write", "arguments": {"path": "a"}, "model": "m", "session": "s2"}`
	)
	lines := []string{bad, bad, badElse, bad, bad, ok, bad}
	s := run(t, newEvaluator(t, Options{}), strings.Join(lines, "\n"))
	tl := s.Timeline
	if tl.Width != 1 || len(tl.Buckets) != 7 || tl.Limit != 3 {
		t.Fatalf("width %d, buckets %d, limit %d", tl.Width, len(tl.Buckets), tl.Limit)
	}
	var reached []int
	for _, b := range tl.Buckets {
		reached = append(reached, b.LimitReached)
	}
	if got, want := itoaAll(reached), "0 0 0 1 1 0 0"; got != want {
		t.Errorf("limit reached by call: %s, want %s", got, want)
	}

	var b strings.Builder
	n := timelineBuckets*4 + 3
	for i := range n {
		if i%2 == 0 {
			b.WriteString(bad + "\n")
		} else {
			b.WriteString(ok + "\n")
		}
	}
	s = run(t, newEvaluator(t, Options{}), b.String())
	calls, mistakes := 0, 0
	for _, b := range s.Timeline.Buckets {
		calls, mistakes = calls+b.Calls, mistakes+b.Mistakes
	}
	if s.Timeline.Width != 8 || len(s.Timeline.Buckets) > timelineBuckets || calls != n || mistakes != (n+1)/2 {
		t.Errorf("width %d, buckets %d, calls %d, mistakes %d", s.Timeline.Width, len(s.Timeline.Buckets), calls, mistakes)
	}
}

func itoaAll(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, itoa(n))
	}
	return strings.Join(s, " ")
}

// TestTimeRange: a line's "time", as text or Unix seconds, widens the
// range; a time of neither kind makes the line unreadable.
func TestTimeRange(t *testing.T) {
	input := strings.Join([]string{
		`{"tool": "Write", "arguments": {"path": "a", "content": "b"}, "time": "2026-11-02T10:00:00Z"}`,
		`{"tool": "Write", "arguments": {"path": "a", "content": "b"}, "time": 1761998400.5}`,
		`{"tool": "Write", "arguments": {"path": "a", "content": "b"}, "time": null}`,
		`{"tool": "Write", "arguments": {"path": "a", "content": "b"}, "time": "yesterday"}`,
		`{"tool": "Write", "arguments": {"path": "a", "content": "b"}, "time": true}`,
	}, "\n")
	s := run(t, newEvaluator(t, Options{}), input)
	if s.First == nil || s.Last == nil {
		t.Fatal("no time range")
	}
	if got := s.First.Format(time.RFC3339Nano) + " " + s.Last.Format(time.RFC3339); got != "2025-11-01T12:00:00.5Z 2026-11-02T10:00:00Z" {
		t.Errorf("range %s", got)
	}
	if s.Calls != 3 || s.Unreadable != 2 || !strings.Contains(s.BadLines[1].Error, `"time" is true`) {
		t.Errorf("calls %d, unreadable %d: %+v", s.Calls, s.Unreadable, s.BadLines)
	}
}

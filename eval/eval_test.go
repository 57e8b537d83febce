package eval

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/proxy"
	"github.com/toolguard/toolguard/proxy/proxytest"
	"github.com/toolguard/toolguard/repair"
)

// writeTool is the one tool the plain calls of these tests are judged
// against.
var writeTool = repair.ToolDef{Name: "Write", Parameters: map[string]any{
	"type": "object",
	"properties": map[string]any{
		"path":    map[string]any{"type": "string"},
		"content": map[string]any{"type": "string"},
	},
	"required":             []any{"path", "content"},
	"additionalProperties": false,
}}

func newEvaluator(t testing.TB, opts Options) *Evaluator {
	t.Helper()
	p, err := proxy.NewReplayer(proxy.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	tools, err := p.Compile([]repair.ToolDef{writeTool})
	if err != nil {
		t.Fatal(err)
	}
	if opts.MaxLineBytes == 0 {
		opts.MaxLineBytes = 1 << 20
	}
	if opts.ExampleBytes == 0 {
		opts.ExampleBytes = 40
	}
	return &Evaluator{Proxy: p, Tools: tools, Opts: opts}
}

func run(t testing.TB, e *Evaluator, input string) *Summary {
	t.Helper()
	s := NewSummary()
	if err := e.Run(context.Background(), strings.NewReader(input), s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFixtures judges every scenario of the proxy's fixtures, streamed and
// whole, as recorded exchanges: each call's class is the one its
// expect.json gives (truncated; usable when neither its arguments nor its
// name changed; repaired otherwise), and error answers hold no call.
func TestFixtures(t *testing.T) {
	scenarios, err := proxytest.Load("../proxy/testdata")
	if err != nil {
		t.Fatal(err)
	}
	e := newEvaluator(t, Options{})
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			want := map[string]int{}
			if sc.Expect != nil {
				for _, c := range sc.Expect.Calls {
					switch {
					case c.Truncated:
						want[ClassTruncated]++
					case c.Unchanged && c.UpstreamName == c.Name:
						want[ClassUsable]++
					default:
						want[ClassRepaired]++
					}
				}
			}
			var lines []string
			if sc.SSE != nil {
				lines = append(lines, exchangeLine(t, sc.API, sc.Request, string(sc.SSE)))
			}
			if sc.JSON != nil {
				lines = append(lines, exchangeLine(t, "", sc.Request, json.RawMessage(sc.JSON)))
			}
			for _, l := range lines {
				s := run(t, e, l+"\n")
				if s.Unreadable != 0 || s.Exchanges != 1 {
					t.Fatalf("exchanges %d, unreadable %d: %+v", s.Exchanges, s.Unreadable, s.BadLines)
				}
				got := maps.Clone(s.Classes)
				maps.DeleteFunc(got, func(_ string, n int) bool { return n == 0 })
				if !maps.Equal(got, want) {
					t.Errorf("classes %v, want %v", got, want)
				}
			}
		})
	}
}

func exchangeLine(t testing.TB, api string, request []byte, response any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"api": api, "request": json.RawMessage(request), "response": response})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRunLines(t *testing.T) {
	const (
		valid    = `{"tool": "Write", "arguments": "{\"path\": \"a.py\", \"content\": \"x\"}", "model": "m1"}`
		asObject = `{"tool": "Write", "arguments": {"path": "a.py", "content": "x"}, "model": "m1"}`
		python   = `{"tool": "write", "arguments": "{'path': 'a.py', 'content': 'x'}", "model": "m2"}`
		missing  = `{"tool": "Write", "arguments": "{\"path\": \"a.py\"}", "model": "m2"}`
		unknown  = `{"tool": "Bash", "arguments": "{}"}`
	)
	tests := []struct {
		name                string
		input               string
		maxLine             int
		wantLines, wantBad  int
		wantClasses         map[string]int
		wantRepairs, wantVi map[string]int
		wantBadLines        []string
		wantUnknown         map[string]int
		wantModels          map[string]Counts
	}{
		{
			name:        "plain calls of every class",
			input:       strings.Join([]string{valid, asObject, python, missing, unknown}, "\n"),
			wantLines:   5,
			wantClasses: map[string]int{ClassUsable: 2, ClassRepaired: 1, ClassRefused: 1},
			wantRepairs: map[string]int{"PYTHON_LITERAL": 1, "TOOL_ALIAS": 1},
			wantVi:      map[string]int{"MISSING_REQUIRED": 1},
			wantUnknown: map[string]int{"Bash": 1},
			wantModels: map[string]Counts{
				"m1": {"calls": 2, ClassUsable: 2},
				"m2": {"calls": 2, ClassRepaired: 1, ClassRefused: 1},
			},
		},
		{
			name:        "blank lines and CRLF ends",
			input:       "\n" + valid + "\r\n\r\n  \n" + valid,
			wantLines:   2,
			wantClasses: map[string]int{ClassUsable: 2},
			wantModels:  map[string]Counts{"m1": {"calls": 2, ClassUsable: 2}},
		},
		{
			name:        "a line past the limit is skipped, the next read",
			input:       `{"tool": "Write", "arguments": "` + strings.Repeat("x", 200) + `"}` + "\n" + valid,
			maxLine:     150,
			wantLines:   2,
			wantBad:     1,
			wantClasses: map[string]int{ClassUsable: 1},
			wantModels:  map[string]Counts{"m1": {"calls": 1, ClassUsable: 1}},
			wantBadLines: []string{
				"line 1: line longer than 150 bytes (--max-line-bytes): skipped",
			},
		},
		{
			name: "unreadable lines are named",
			input: strings.Join([]string{
				`not json`, `{"model": "m"}`, `{"request": {}}`, `{"tool": "Write"}`,
				`{"request": {"tools": []}, "response": {"id": "x"}}`,
				`{"request": {}, "response": "data: {}", "api": "gemini"}`,
			}, "\n"),
			wantLines: 6,
			wantBad:   6,
			wantBadLines: []string{
				"line 1: not a JSON object: invalid character 'o' in literal null (expecting 'u')",
				`line 2: neither an exchange ("request" and "response") nor a call ("tool" and "arguments")`,
				`line 3: an exchange needs both "request" and "response"`,
				`line 4: a call needs "arguments"`,
				`line 5: the answer is neither a chat completion (choices) nor a message (type "message")`,
				`line 6: api "gemini": want openai or anthropic`,
			},
		},
		{
			name:      "an error answer holds no call",
			input:     `{"request": {"tools": []}, "response": {"error": {"message": "rate limited"}}}`,
			wantLines: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := run(t, newEvaluator(t, Options{MaxLineBytes: tt.maxLine, Examples: 1}), tt.input)
			if s.Lines != tt.wantLines || s.Unreadable != tt.wantBad {
				t.Errorf("lines %d, unreadable %d; want %d, %d", s.Lines, s.Unreadable, tt.wantLines, tt.wantBad)
			}
			var bad []string
			for _, b := range s.BadLines {
				bad = append(bad, "line "+itoa(b.Line)+": "+b.Error)
			}
			if strings.Join(bad, "\n") != strings.Join(tt.wantBadLines, "\n") {
				t.Errorf("bad lines:\n%s\nwant:\n%s", strings.Join(bad, "\n"), strings.Join(tt.wantBadLines, "\n"))
			}
			checkCounts(t, "classes", s.Classes, tt.wantClasses)
			checkCounts(t, "repairs", s.Repairs, tt.wantRepairs)
			checkCounts(t, "violations", s.Violations, tt.wantVi)
			checkCounts(t, "unknown tools", s.UnknownTools, tt.wantUnknown)
			if len(s.Models) != len(tt.wantModels) {
				t.Errorf("models %v, want %v", s.Models, tt.wantModels)
			}
			for m, c := range tt.wantModels {
				checkCounts(t, "model "+m, s.Models[m], c)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func checkCounts(t *testing.T, what string, got, want map[string]int) {
	t.Helper()
	g := maps.Clone(got)
	maps.DeleteFunc(g, func(_ string, n int) bool { return n == 0 })
	if len(g) != len(want) || !maps.Equal(g, want) {
		t.Errorf("%s: %v, want %v", what, g, want)
	}
}

// TestWriteText: the summary a person reads, exactly.
func TestWriteText(t *testing.T) {
	input := strings.Join([]string{
		`{"tool": "Write", "arguments": "{\"path\": \"a.py\", \"content\": \"x\"}", "model": "m1"}`,
		`{"tool": "write", "arguments": "{'path': 'b.py', 'content': '` + strings.Repeat("é", 30) + `'}", "model": "m2"}`,
		`{"tool": "Write", "arguments": "{\"path\": \"a.py\"}", "model": "m2"}`,
		`oops`,
	}, "\n")
	s := run(t, newEvaluator(t, Options{Examples: 1, ExampleBytes: 40}), input)
	var b strings.Builder
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `lines        4  (0 exchanges, 3 plain calls, 1 unreadable)
calls        3
  usable     1  33.3%
  repaired   1  33.3%
  refused    1  33.3%
  truncated  0  0.0%
  too_large  0  0.0%

repairs (repaired calls, by code)
  PYTHON_LITERAL  1
  TOOL_ALIAS      1

violations (refused calls, by code)
  MISSING_REQUIRED  1

model  calls  usable  repaired  refused  truncated  too_large
m2     2      0       1         1        0          0
m1     1      1       0         0        0          0

tool   calls  usable  repaired  refused  truncated  too_large
Write  3      1       1         1        0          0

examples: usable
  line 1  m1  Write
    arguments: {"path": "a.py", "content": "x"}

examples: repaired
  line 2  m2  Write (written "write")  repairs: PYTHON_LITERAL, TOOL_ALIAS
    arguments: {'path': 'b.py', 'content': 'ééééé… (91 bytes)
    repaired:  {"content":"éééééééééééééé… (88 bytes)

examples: refused
  line 3  m2  Write  violations: MISSING_REQUIRED
    arguments: {"path": "a.py"}

unreadable lines (first 1):
  line 4: not a JSON object: invalid character 'o' looking for beginning of value
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestBoundedKeys: past maxKeys models, the rest are counted together.
func TestBoundedKeys(t *testing.T) {
	var b strings.Builder
	for i := range maxKeys + 50 {
		b.WriteString(`{"tool": "Write", "arguments": {"path": "a", "content": "b"}, "model": "m` + itoa(i) + `"}` + "\n")
	}
	s := run(t, newEvaluator(t, Options{Examples: 2}), b.String())
	if len(s.Models) != maxKeys+1 || s.Models[otherKey]["calls"] != 50 || len(s.Examples[ClassUsable]) != 2 {
		t.Errorf("models %d, other %d, examples %d", len(s.Models), s.Models[otherKey]["calls"], len(s.Examples[ClassUsable]))
	}
}

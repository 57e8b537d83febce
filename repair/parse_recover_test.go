package repair

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// recoverTools are tools as agents declare them through OpenAI-compatible
// endpoints: one parameter, a few, an array of choices.
func recoverTools(t *testing.T, reg *Registry) []*Tool {
	t.Helper()
	var out []*Tool
	for _, def := range []ToolDef{
		{Name: "run_python", Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"code": map[string]any{"type": "string", "description": "Python code to run"}}, "required": []any{"code"}}},
		{Name: "exec", Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"command": map[string]any{"type": "string"}, "timeout": map[string]any{"type": "integer"}}, "required": []any{"command"}}},
		{Name: "select_options", Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"selected": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"reason":   map[string]any{"type": "string"}}, "required": []any{"selected"}}},
	} {
		tool, err := reg.Compile(def)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tool)
	}
	return out
}

// TestParseRecovers: an object that lost its opening, or a key that lost
// its closing quote, is repaired where the tool's schema vouches for the
// key, and says what was restored.
func TestParseRecovers(t *testing.T) {
	reg := mustRegistry(t)
	tools := recoverTools(t, reg)
	tests := []struct {
		name, tool, text string
		args             string
		detail           string // of the JSON_REPAIRED repair
	}{
		{"ministral vllm lost opening brace and quote", "run_python", `code": "uptime"}`,
			`{"code":"uptime"}`, `restored the opening {" lost before "code"`},
		{"ministral vllm lost opening brace and quote, code with newlines", "run_python", "code\": \"import os\\nprint(os.getloadavg())\"}\n",
			`{"code":"import os\nprint(os.getloadavg())"}`, `restored the opening {" lost before "code"`},
		{"lost opening brace only", "run_python", `"code": "uptime"}`,
			`{"code":"uptime"}`, `restored the opening { lost before "code"`},
		{"lost opening with several members", "exec", ` command": "ls -la /var/log", "timeout": 30}`,
			`{"command":"ls -la /var/log","timeout":30}`, `restored the opening {" lost before "command"`},
		{"deepseek unclosed key quote", "select_options", `{"selected: ["A", "C", "D"]}`,
			`{"selected":["A","C","D"]}`, `closed the quote of key "selected"`},
		{"deepseek unclosed key quote after another member", "select_options", `{"reason": "A, C and D fit", "selected: ["A", "C", "D"]}`,
			`{"reason":"A, C and D fit","selected":["A","C","D"]}`, `closed the quote of key "selected"`},
		{"unclosed key quote before a string value", "write_to_file", `{"path: "src/app.py", "content": "print(1)\n"}`,
			`{"content":"print(1)\n","path":"src/app.py"}`, `closed the quote of key "path"`},
		{"unclosed key quote, no space after the colon", "exec", `{"command:"uptime"}`,
			`{"command":"uptime"}`, `closed the quote of key "command"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(Call{Name: tc.tool, Form: FormText, Text: tc.text}, Options{Tools: tools})
			if !res.OK() {
				t.Fatalf("not usable: %v", res.Violations)
			}
			if got := argsJSON(t, res.Args); got != tc.args {
				t.Errorf("args = %s, want %s", got, tc.args)
			}
			want := []Repair{{Code: CodeJSONRepaired, Detail: tc.detail}}
			if !reflect.DeepEqual(res.Repairs, want) {
				t.Errorf("repairs = %v, want %v", res.Repairs, want)
			}
		})
	}
}

// TestParseRecoversOnlyOnEvidence: without the schema's word, or when the
// text is not a whole object, the call is refused as unparseable with
// where it went wrong, never taken for a cut-off output.
func TestParseRecoversOnlyOnEvidence(t *testing.T) {
	reg := mustRegistry(t)
	tools := recoverTools(t, reg)
	tests := []struct {
		name, tool, text string
		violations       []string
		message          []string // in the violation and the feedback
	}{
		{"lost opening, key no parameter", "run_python", `cmd": "uptime"}`,
			[]string{"UNPARSEABLE:"}, []string{"not valid JSON"}},
		{"lost opening and closing", "run_python", `code": "uptime"`,
			[]string{"UNPARSEABLE:"}, []string{"not valid JSON"}},
		{"unclosed quote of an unknown key", "select_options", `{"choices: ["A", "C", "D"]}`,
			[]string{"UNPARSEABLE:"}, []string{"the key at offset 1", "has no closing quote before its colon", `"name": value`}},
		{"unclosed quote of an unknown key after a known one", "select_options", `{"selected": ["A"], "why: "because"}`,
			[]string{"UNPARSEABLE:"}, []string{"the key at offset 20", "no closing quote"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(Call{Name: tc.tool, Form: FormText, Text: tc.text}, Options{Tools: tools})
			if got := codes(res.Violations); !reflect.DeepEqual(got, tc.violations) {
				t.Fatalf("violations = %v, want %v", res.Violations, tc.violations)
			}
			fb := Feedback(res, Mistakes{Consecutive: 1, Limit: 3})
			for _, w := range tc.message {
				if !strings.Contains(res.Violations[0].Message, w) || !strings.Contains(fb, w) {
					t.Errorf("message %q / feedback %q lacks %q", res.Violations[0].Message, fb, w)
				}
			}
			for _, no := range []string{"length limit", "cut off", "truncat"} {
				if strings.Contains(strings.ToLower(fb), no) {
					t.Errorf("feedback speaks of truncation (%q): %s", no, fb)
				}
			}
		})
	}
	// Text that ends inside a string is still cut off (the policy).
	res := reg.Validate(Call{Name: "select_options", Form: FormText, Text: `{"selected": ["A", "C`}, Options{Tools: tools})
	if !res.Has(CodeTruncated) {
		t.Errorf("cut-off text not TRUNCATED: %v", res.Violations)
	}
}

// TestRepairJSONKeyQuote: the repair parser alone, with and without known keys.
func TestRepairJSONKeyQuote(t *testing.T) {
	keys := map[string]bool{"selected": true}
	tests := []struct {
		name string
		text string
		keys map[string]bool
		want string // JSON, or "error"
	}{
		{"known key closed", `{"selected: ["A"]}`, keys, `{"selected":["A"]}`},
		{"no keys known: closed", `{"key:"value"}`, nil, `{"key":"value"}`},
		{"unknown key refused", `{"other: ["A"]}`, keys, "error"},
		{"a key holding a colon is closed later", `{"time: 12:00": "noon",}`, nil, `{"time: 12:00":"noon"}`},
		{"typographic quotes are no unclosed key", `{“a”:“b”}`, keys, `{"a":"b"}`},
		{"prose after the colon is no value", `{"note: see below"}`, keys, `["note: see below"]`},
		{"a bare word with no quote left before the closing brace", `{"selected: A}`, keys, `{"selected":"A"}`},
		{"a bare word, unknown key, no quote left", `{"other: A}`, keys, "error"},
		{"unknown key in a code fence refused at its offset", "```json\n{\"other: 1}\n```", keys, "error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := RepairJSON(tc.text, JSONOptions{Keys: tc.keys})
			if tc.want == "error" {
				if !errors.Is(err, ErrKeyQuote) || r.Truncated {
					t.Fatalf("err = %v, truncated %v; want ErrKeyQuote", err, r.Truncated)
				}
				return
			}
			if err != nil || r.Truncated {
				t.Fatalf("err = %v, truncated %v", err, r.Truncated)
			}
			raw, _ := EncodeJSON(r.Value)
			if string(raw) != tc.want {
				t.Errorf("got %s, want %s", raw, tc.want)
			}
		})
	}
	_, err := RepairJSON("```json\n{\"other: 1}\n```", JSONOptions{Keys: keys})
	if err == nil || !strings.Contains(err.Error(), "offset 9,") {
		t.Errorf("offset in a fence: %v", err)
	}
}

// TestKeyQuoteNotTruncation: text that ends inside a key cut off after a
// bare word is still cut off; only an object closed at the end vouches
// for a missing key quote.
func TestKeyQuoteNotTruncation(t *testing.T) {
	keys := map[string]bool{"selected": true}
	r, err := RepairJSON(`{"selected: A`, JSONOptions{Keys: keys})
	if err != nil || !r.Truncated {
		t.Errorf("err %v, truncated %v; want truncated", err, r.Truncated)
	}
}

// TestFencedValidJSON: valid JSON in a fence reads as the same text
// unfenced does, whatever keys the tool declares: a quote then a comma ends
// a string there even before a key the tool does not know, and the notes
// say only that the fence was removed.
func TestFencedValidJSON(t *testing.T) {
	body := "{\"todos\": [{\"content\": \"a “b” c\",\n \"status\": \"done\"}]}"
	tests := []struct {
		name string
		text string
		want []string // repair details
	}{
		{"one fence after prose", "Here it is:\n```json\n" + body + "\n```\nDone.", []string{"removed text and code fences around the JSON"}},
		{"two fences after prose", "Here:\n```json\n" + body + "\n```\nand\n```json\n" + body + "\n```", []string{"collected the values of several code fences into an array"}},
		{"a fence around it", "```json\n" + body + "\n```\n", []string{"removed a code fence"}},
		{"a fence opened, never closed", "```\n" + body, []string{"removed a code fence"}},
		{"a closing fence only", body + "\n```", []string{"removed a code fence"}},
	}
	plain, err := RepairJSON(body, JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		for _, keys := range []map[string]bool{nil, {"content": true}} {
			t.Run(tc.name, func(t *testing.T) {
				r, err := RepairJSON(tc.text, JSONOptions{Keys: keys})
				if err != nil || r.Truncated {
					t.Fatalf("err = %v, truncated %v", err, r.Truncated)
				}
				v := r.Value
				if list, ok := v.([]any); ok && len(tc.want) == 1 && strings.HasPrefix(tc.want[0], "collected") {
					if len(list) != 2 || !reflect.DeepEqual(list[0], list[1]) {
						t.Fatalf("values = %#v", list)
					}
					v = list[0]
				}
				if !reflect.DeepEqual(v, plain.Value) {
					t.Errorf("value = %#v, want %#v", v, plain.Value)
				}
				var details []string
				for _, rp := range r.Repairs {
					details = append(details, strings.Split(rp.Detail, "; ")...)
				}
				if !reflect.DeepEqual(details, tc.want) {
					t.Errorf("repairs = %q, want %q", details, tc.want)
				}
			})
		}
	}
}

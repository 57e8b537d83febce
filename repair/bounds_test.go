package repair

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// unknownKeysCall is a write call with n parameters the tool does not
// declare, named so that their order is their number.
func unknownKeysCall(n int) Call {
	return Call{Name: "write_to_file", Form: FormText, Text: unknownParamsText(n)}
}

func TestViolationsCapped(t *testing.T) {
	reg := mustRegistry(t)
	for _, n := range []int{1, 49, 50, 51, 100_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			res := reg.Validate(unknownKeysCall(n), Options{})
			if res.OK() {
				t.Fatal("a call with unknown parameters is usable")
			}
			if got, want := len(res.Violations), min(n, MaxViolations); got != want {
				t.Errorf("%d violations listed, want %d", got, want)
			}
			if got, want := res.ViolationsOmitted, max(n-MaxViolations, 0); got != want {
				t.Errorf("ViolationsOmitted = %d, want %d", got, want)
			}
			for i, v := range res.Violations {
				if want := fmt.Sprintf("unknown_%07d", i); v.Code != CodeUnexpectedParam || v.Param != want {
					t.Fatalf("violation %d is %s %s, want %s %s (the first in order)", i, v.Code, v.Param, CodeUnexpectedParam, want)
				}
			}
			if !res.Has(CodeUnexpectedParam) || len(res.ViolationCodes()) != 1 {
				t.Errorf("codes %v, want only %s", res.ViolationCodes(), CodeUnexpectedParam)
			}
			fb := Feedback(res, Mistakes{Consecutive: 1, Limit: 3})
			if len(fb) > MaxFeedbackBytes {
				t.Errorf("feedback is %d bytes, more than %d", len(fb), MaxFeedbackBytes)
			}
			for _, want := range []string{`Unexpected parameter "unknown_0000000"`, `"path": "src/hello.py"`, "Fix the problem above"} {
				if !strings.Contains(fb, want) {
					t.Errorf("feedback lacks %q:\n%s", want, fb)
				}
			}
			listed := strings.Count(fb, "\n- Unexpected parameter")
			if more := n - listed; more > 0 {
				if want := fmt.Sprintf("… and %d more problems", more); !strings.Contains(fb, want) {
					t.Errorf("feedback lists %d problems and lacks %q:\n%s", listed, want, fb)
				}
			} else if strings.Contains(fb, "more problems") {
				t.Errorf("feedback lists all %d problems yet says there are more:\n%s", n, fb)
			}
		})
	}
}

// TestVerdictTextBounded: whatever part of a call grows (a key, a value,
// the number of keys, a tool sent with the request), the messages and the
// feedback stay bounded.
func TestVerdictTextBounded(t *testing.T) {
	reg := mustRegistry(t)
	long := strings.Repeat("k", 1<<20)
	manyProps := map[string]any{}
	for i := range 5000 {
		manyProps[fmt.Sprintf("param_%04d", i)] = map[string]any{"type": "string"}
	}
	wide, err := reg.Compile(ToolDef{Name: "wide", Parameters: map[string]any{"type": "object", "properties": manyProps},
		Example: map[string]any{"param_0000": strings.Repeat("example ", 20_000)}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		call  Call
		tools []*Tool
		code  string
	}{
		{"a megabyte key", Call{Name: "write_to_file", Form: FormText, Text: `{"path":"a","content":"b","` + long + `":1}`}, nil, CodeUnexpectedParam},
		{"a megabyte alias spelling", Call{Name: "write_to_file", Form: FormText, Text: `{"path":"a","content":"b","` + strings.Repeat("_", 1<<20) + `path":"c"}`}, nil, CodeConflictingParams},
		{"a megabyte tool name", Call{Name: long, Form: FormText, Text: `{}`}, nil, CodeUnknownTool},
		{"a megabyte XML tag", Call{Name: "write_to_file", Form: FormXML, Text: "<write_to_file><path>a</path><" + long + ">x"}, nil, CodeTruncated},
		{"a megabyte command", Call{Name: "str_replace_based_edit_tool", Form: FormText, Text: `{"command":"` + long + `"}`}, nil, CodeUnsupportedCommand},
		{"a tool with 5000 parameters and a huge example", Call{Name: "wide", Form: FormText, Text: `{"` + long + `":1}`}, []*Tool{wide}, CodeUnexpectedParam},
		{"the same tool in XML", Call{Name: "wide", Form: FormParams, Params: map[string]string{long: "1"}}, []*Tool{wide}, CodeUnexpectedParam},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(tc.call, Options{Tools: tc.tools})
			if !res.Has(tc.code) {
				t.Fatalf("violations %v, want %s", codes(res.Violations), tc.code)
			}
			for _, v := range res.Violations {
				if len(v.Message) > 1024 {
					t.Errorf("%s message is %d bytes: %.200s…", v.Code, len(v.Message), v.Message)
				}
			}
			for _, r := range res.Repairs {
				if len(r.Detail) > 1024 {
					t.Errorf("%s detail is %d bytes: %.200s…", r.Code, len(r.Detail), r.Detail)
				}
			}
			if fb := Feedback(res, Mistakes{Consecutive: 3, Limit: 3}); len(fb) > MaxFeedbackBytes {
				t.Errorf("feedback is %d bytes, more than %d:\n%.2000s", len(fb), MaxFeedbackBytes, fb)
			}
			outcome := strings.Repeat("edit 1 (a.go): applied at line 3\n", 1000)
			if fb := FeedbackOutcome(res, Mistakes{Consecutive: 3, Limit: 3}, outcome); len(fb) > MaxFeedbackBytes {
				t.Errorf("feedback with an outcome is %d bytes, more than %d:\n%.2000s", len(fb), MaxFeedbackBytes, fb)
			}
		})
	}
}

func TestRepairsCapped(t *testing.T) {
	reg := mustRegistry(t)
	nums, err := reg.Compile(ToolDef{Name: "nums", Parameters: map[string]any{"type": "object",
		"properties": map[string]any{"values": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	numbers := func(n int) string {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = fmt.Sprintf(`"%d"`, i)
		}
		return `{"values":[` + strings.Join(vals, ",") + `]}`
	}
	// Spellings of "path" that each fold to it: the first renames, every
	// other repeats the value and is dropped.
	spellings := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"content":"x"`)
		for i := range n {
			fmt.Fprintf(&b, `,"p%sath":"a.txt"`, strings.Repeat("_", i+1))
		}
		return b.String() + "}"
	}
	tests := []struct {
		name       string
		call       Call
		repairs    int
		omitted    int
		firstCodes []string
	}{
		{"10 elements coerced", Call{Name: "nums", Form: FormText, Text: numbers(10)}, 10, 0, []string{CodeTypeCoerced}},
		{"50 elements coerced", Call{Name: "nums", Form: FormText, Text: numbers(50)}, 50, 0, []string{CodeTypeCoerced}},
		{"100k elements coerced", Call{Name: "nums", Form: FormText, Text: numbers(100_000)}, MaxRepairs, 100_000 - MaxRepairs, []string{CodeTypeCoerced}},
		// 1 rename and 999 drops: past the cap each new code is still listed once.
		{"1000 spellings of path", Call{Name: "write_to_file", Form: FormText, Text: spellings(1000)}, MaxRepairs, 1000 - MaxRepairs, []string{CodeAliasRenamed, CodeDuplicateDropped}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(tc.call, Options{Tools: []*Tool{nums}})
			if !res.OK() {
				t.Fatalf("not usable: %v", codes(res.Violations))
			}
			if len(res.Repairs) != tc.repairs || res.RepairsOmitted != tc.omitted {
				t.Errorf("%d repairs listed and %d omitted, want %d and %d", len(res.Repairs), res.RepairsOmitted, tc.repairs, tc.omitted)
			}
			for _, c := range tc.firstCodes {
				if !strings.Contains(strings.Join(codes(res.Repairs), " "), c) {
					t.Errorf("repairs %v lack %s", codes(res.Repairs), c)
				}
			}
		})
	}
}

// TestRepairsPastCapKeepEachCode: past MaxRepairs a code not listed yet is
// still listed once, so a reader sees every kind of change made.
func TestRepairsPastCapKeepEachCode(t *testing.T) {
	var res Result
	for i := range MaxRepairs + 10 {
		res.repair(CodeTypeCoerced, fmt.Sprint(i), "")
	}
	res.repair(CodeCodeFenceStripped, "content", "")
	res.repair(CodeCodeFenceStripped, "content", "")
	if got, want := len(res.Repairs), MaxRepairs+1; got != want {
		t.Errorf("%d repairs listed, want %d", got, want)
	}
	if res.Repairs[MaxRepairs].Code != CodeCodeFenceStripped || res.RepairsOmitted != 11 {
		t.Errorf("last listed %s, %d omitted; want %s and 11", res.Repairs[MaxRepairs].Code, res.RepairsOmitted, CodeCodeFenceStripped)
	}
}

// TestViolateCapsFrontEndViolations: violations a front end adds after the
// pipeline are capped too, and an omitted one is still seen by Has.
func TestViolateCapsFrontEndViolations(t *testing.T) {
	reg := mustRegistry(t)
	res := reg.Validate(unknownKeysCall(MaxViolations), Options{})
	res.Violate(CodeTruncated, "", "cut off")
	if len(res.Violations) != MaxViolations || res.ViolationsOmitted != 1 {
		t.Errorf("%d listed, %d omitted; want %d and 1", len(res.Violations), res.ViolationsOmitted, MaxViolations)
	}
	if !res.Has(CodeTruncated) || res.OK() {
		t.Errorf("Has(TRUNCATED) = %v, OK = %v; want true, false", res.Has(CodeTruncated), res.OK())
	}
	if fb := Feedback(res, Mistakes{Consecutive: 1, Limit: 3}); !strings.Contains(fb, "Your call to write_to_file was cut off") {
		t.Errorf("feedback lacks the truncation advice:\n%s", fb)
	}
}

// TestUnknownParamsLinear counts the work of unknown parameters in
// allocations, which do not depend on the machine: a name the tool does not
// know costs one lookup and no allocation, and a call costs a bounded number
// of allocations per key however many keys it has.
func TestUnknownParamsLinear(t *testing.T) {
	reg := mustRegistry(t)
	tool := reg.Tool("write_to_file")
	for _, name := range []string{"unknown_0000001", "Unknown-Param", "p_a_t_h", strings.Repeat("x", 200)} {
		if a := testing.AllocsPerRun(100, func() { tool.CanonicalParam(name) }); a != 0 {
			t.Errorf("CanonicalParam(%.20q) allocates %v times, want 0", name, a)
		}
	}
	if got := tool.CanonicalParam("File-Path"); got != "path" {
		t.Errorf(`CanonicalParam("File-Path") = %q, want "path"`, got)
	}
	for _, n := range []int{1_000, 10_000} {
		call := unknownKeysCall(n)
		allocs := testing.AllocsPerRun(2, func() { reg.Validate(call, Options{}) })
		if perKey := allocs / float64(n); perKey > 2 {
			t.Errorf("%d unknown keys: %.1f allocations per key, want at most 2", n, perKey)
		}
	}
}

// TestFeedbackOutcome: an execution's outcome replaces the opening line and
// the problems follow it.
func TestFeedbackOutcome(t *testing.T) {
	res := &Result{ToolName: "edit"}
	res.Violate("EDIT_NOT_FOUND", "old_text", "Edit 1: the old text was not found in a.go.")
	got := FeedbackOutcome(res, Mistakes{Consecutive: 1, Limit: 3}, "Error: the edit call was not carried out; nothing was written.")
	want := "Error: the edit call was not carried out; nothing was written.\n- Edit 1: the old text was not found in a.go.\n\nFix the problem above and call the tool again.\n"
	if got != want {
		t.Errorf("FeedbackOutcome = %q, want %q", got, want)
	}
	if got := Feedback(res, Mistakes{Consecutive: 1, Limit: 3}); !strings.HasPrefix(got, "Error: the edit tool call could not be used.\n- Edit 1") {
		t.Errorf("Feedback = %q", got)
	}
}

// TestEchoArgs: what an answer echoes of a call leaves out the top-level
// parameters found unexpected, listed or counted, and nothing else.
func TestEchoArgs(t *testing.T) {
	reg := mustRegistry(t)
	compile := func(params map[string]any) []*Tool {
		tool, err := reg.Compile(ToolDef{Name: "custom", Parameters: params})
		if err != nil {
			t.Fatal(err)
		}
		return []*Tool{tool}
	}
	pattern := compile(map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{}},
		"patternProperties": map[string]any{"^x_": map[string]any{}}, "additionalProperties": false})
	custom := func(text string) Call { return Call{Name: "custom", Form: FormText, Text: text} }
	tests := []struct {
		name    string
		call    Call
		tools   []*Tool
		want    []string // keys echoed
		omitted int      // violations past the list; -1: no violation
	}{
		{"usable", Call{Name: "write_to_file", Form: FormText, Text: `{"path": "a", "content": "b"}`}, nil, []string{"content", "path"}, -1},
		{"an alias is renamed, not left out", Call{Name: "write_to_file", Form: FormText, Text: `{"file_path": "a", "content": "b", "mode": "w"}`}, nil, []string{"content", "path"}, 0},
		{"past the listed violations", unknownKeysCall(MaxViolations + 10), nil, []string{"content", "path"}, 10},
		{"a missing parameter", Call{Name: "write_to_file", Form: FormText, Text: `{"content": "b", "mode": "w"}`}, nil, []string{"content"}, 0},
		{"nested unexpected parameters stay", Call{Name: "todo_write", Form: FormText, Text: `{"todos": [{"id": "1", "content": "c", "status": "pending", "prio": 1}]}`}, nil, []string{"todos"}, 0},
		{"unknown tool", Call{Name: "nope", Form: FormText, Text: `{"a": 1}`}, nil, []string{"a"}, 0},
		{"a pattern property stays", custom(`{"a": 1, "x_1": 2, "z": 3}`), pattern, []string{"a", "x_1"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := reg.Validate(tt.call, Options{Tools: tt.tools})
			if tt.omitted >= 0 && res.OK() || tt.omitted < 0 && !res.OK() || max(tt.omitted, 0) != res.ViolationsOmitted {
				t.Errorf("ok=%v, %d violations omitted: %v", res.OK(), res.ViolationsOmitted, res.Violations)
			}
			got := res.EchoArgs()
			var keys []string
			for k := range got {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !slices.Equal(keys, tt.want) {
				t.Errorf("echoed %v, want %v; violations %v", keys, tt.want, res.Violations)
			}
			if len(got) == len(res.Args) && fmt.Sprintf("%p", got) != fmt.Sprintf("%p", res.Args) {
				t.Error("nothing left out, yet the arguments were copied")
			}
		})
	}
}

// TestEchoArgsFromSeveralBlocks: names found unexpected by several schema
// errors may repeat; they are left out all the same.
func TestEchoArgsFromSeveralBlocks(t *testing.T) {
	reg := mustRegistry(t)
	res := &Result{Tool: reg.Tool("write_to_file"), Args: map[string]any{"path": "a", "content": "b", "x": 1, "y": 2},
		unexpected: []string{"x", "y", "x"}, unexpectedBlocks: 2}
	if got := res.EchoArgs(); len(got) != 2 || got["path"] != "a" || got["content"] != "b" {
		t.Errorf("echoed %v, want path and content", got)
	}
}

// TestQuotedDetail: a rename's detail reads as fmt wrote it.
func TestQuotedDetail(t *testing.T) {
	long := strings.Repeat("é", maxQuoted+1)
	for _, tt := range [][2]string{
		{"file_path", "path"},
		{`say "hi"`, "content\n"},
		{long, long},
		{strings.Repeat("x", 300), "a\x00b"},
		{"", ""},
	} {
		name, canonical := tt[0], tt[1]
		want := fmt.Sprintf("tool %s is %q", quote(name), canonical)
		if got := quotedDetail("tool ", name, " is ", canonical); got != want {
			t.Errorf("quotedDetail(%q, %q) = %q, want %q", name, canonical, got, want)
		}
	}
}

// TestAppendStrconvQuote: the quoting of names is strconv's for every byte
// at the start, middle and end of a name.
func TestAppendStrconvQuote(t *testing.T) {
	for c := range 256 {
		for _, s := range []string{string(rune(c)), string([]byte{byte(c)}), "a" + string([]byte{byte(c)}) + "z", "file_" + string([]byte{byte(c)})} {
			if got, want := string(appendStrconvQuote([]byte("x"), s)), string(strconv.AppendQuote([]byte("x"), s)); got != want {
				t.Errorf("appendStrconvQuote(%q) = %s, want %s", s, got, want)
			}
		}
	}
}

func FuzzAppendStrconvQuote(f *testing.F) {
	for _, s := range []string{"file_path", `a"b`, `a\b`, "é", "\x7f", "\xff", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendStrconvQuote(nil, s)), strconv.Quote(s); got != want {
			t.Errorf("appendStrconvQuote(%q) = %s, want %s", s, got, want)
		}
	})
}

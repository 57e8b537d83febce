package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"google.golang.org/protobuf/encoding/protojson"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// streamResult is what a stream command printed, event by event.
type streamResult struct {
	// kinds are the event kinds in order, a run of one kind counted once.
	kinds    []string
	params   map[string]string // parameter previews joined
	started  []*toolguardv1.CallStartedEvent
	complete []*toolguardv1.CallCompleteEvent
	done     *toolguardv1.StreamDoneEvent
	text     string
}

// parseStreamOutput checks that stdout is JSON lines, one event each, and
// collects them.
func parseStreamOutput(t *testing.T, stdout string) streamResult {
	t.Helper()
	r := streamResult{params: map[string]string{}}
	for i, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if line == "" {
			continue
		}
		if !json.Valid([]byte(line)) {
			t.Fatalf("stdout line %d is not JSON: %q", i+1, line)
		}
		ev := &toolguardv1.StreamToolCallsResponse{}
		if err := protojson.Unmarshal([]byte(line), ev); err != nil {
			t.Fatalf("stdout line %d is not an event: %v\n%s", i+1, err, line)
		}
		var kind string
		switch e := ev.GetEvent().(type) {
		case *toolguardv1.StreamToolCallsResponse_Text:
			kind, r.text = "text", r.text+e.Text.GetText()
		case *toolguardv1.StreamToolCallsResponse_CallStarted:
			kind, r.started = "call_started", append(r.started, e.CallStarted)
		case *toolguardv1.StreamToolCallsResponse_ParamUpdate:
			kind = "param_update"
			if v, ok := e.ParamUpdate.GetValue().(*toolguardv1.ParamUpdateEvent_ValueJson); ok {
				r.params[e.ParamUpdate.GetParam()] = "json:" + v.ValueJson
			} else {
				r.params[e.ParamUpdate.GetParam()] += e.ParamUpdate.GetAppend()
			}
		case *toolguardv1.StreamToolCallsResponse_CallComplete:
			kind, r.complete = "call_complete", append(r.complete, e.CallComplete)
		case *toolguardv1.StreamToolCallsResponse_Error:
			kind = "error:" + e.Error.GetCode()
		case *toolguardv1.StreamToolCallsResponse_Done:
			kind, r.done = "done", e.Done
		default:
			t.Fatalf("stdout line %d holds no event: %s", i+1, line)
		}
		if len(r.kinds) == 0 || r.kinds[len(r.kinds)-1] != kind {
			r.kinds = append(r.kinds, kind)
		}
	}
	return r
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestStreamCommand(t *testing.T) {
	ws := t.TempDir()
	xmlWrite := []string{
		`{"delta":{"text":"I'll write it.\n<write_to_file>\n<path>a.py</pa"}}`,
		``,
		`{"delta":{"text":"th>\n<content>\nx = 1\n"}}`,
		`{"delta":{"text":"</content>\n</write_to_file>"}}`,
	}
	openaiWrite := []string{
		`{"delta":{"text":"Writing."}}`,
		`{"delta":{"toolCalls":[{"index":0,"id":"call_1","name":"Write","arguments":"{\"file_path\": \"b.py\", \"con"}]}}`,
		`{"delta":{"toolCalls":[{"index":0,"arguments":"tent\": \"y = 2\\n\"}"}]}}`,
	}
	truncated := `{"delta":{"text":"<write_to_file><path>c.py</path><content>abc"}}`
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantCode int
		// wantKinds are the event kinds in order (runs collapsed).
		wantKinds []string
		check     func(t *testing.T, r streamResult)
		// wantErr is on stderr, for exit 2.
		wantErr string
		// wantFile is b.py's content in ws afterwards ("" for none).
		wantFile string
	}{
		{
			name: "xml_tags write split across lines", args: []string{"--format", "xml_tags"},
			stdin:     lines(append(xmlWrite, `{"end":{"finishReason":"stop"}}`)...),
			wantKinds: []string{"text", "call_started", "param_update", "call_complete", "done"},
			check: func(t *testing.T, r streamResult) {
				if r.text != "I'll write it.\n" || r.started[0].GetToolName() != "write_to_file" || !r.started[0].GetKnown() {
					t.Errorf("text %q, started %v", r.text, r.started)
				}
				if r.params["path"] != "a.py" || !strings.HasPrefix(r.params["content"], "x = 1") {
					t.Errorf("previews %q", r.params)
				}
				v := r.complete[0].GetVerdict()
				if !v.GetOk() || v.GetArgumentsJson() != `{"content":"x = 1","path":"a.py"}` || r.complete[0].GetExecution() != nil {
					t.Errorf("call_complete %v", r.complete[0])
				}
				if r.done.GetFinishReason() != "stop" || r.done.GetCalls() != 1 {
					t.Errorf("done %v", r.done)
				}
			},
		},
		{
			name: "openai tool_calls deltas, enum format name", args: []string{"--format", "STREAM_FORMAT_OPENAI", "--session", "s1"},
			stdin:     lines(append(openaiWrite, `{"end":{"finishReason":"tool_calls"}}`)...),
			wantKinds: []string{"text", "call_started", "param_update", "call_complete", "done"},
			check: func(t *testing.T, r streamResult) {
				if s := r.started[0]; s.GetId() != "call_1" || s.GetToolName() != "write_to_file" || s.GetRawName() != "Write" {
					t.Errorf("started %v", s)
				}
				v := r.complete[0].GetVerdict()
				if !v.GetOk() || v.GetCallId() != "call_1" || v.GetForm() != toolguardv1.ArgumentsForm_ARGUMENTS_FORM_TEXT ||
					v.GetArgumentsJson() != `{"content":"y = 2\n","path":"b.py"}` {
					t.Errorf("verdict %v", v)
				}
				if r.done.GetFinishReason() != "tool_calls" {
					t.Errorf("done %v", r.done)
				}
			},
		},
		{
			name: "--dry-run shows the execution and writes nothing", args: []string{"--format", "openai", "--execute", "--dry-run", "--workspace", ws},
			stdin:     lines(openaiWrite...),
			wantKinds: []string{"text", "call_started", "param_update", "call_complete", "done"},
			check: func(t *testing.T, r streamResult) {
				ex := r.complete[0].GetExecution()
				if ex.GetApplied() || len(ex.GetChanges()) != 1 || !strings.Contains(ex.GetDiff(), "+y = 2") {
					t.Errorf("execution %v", ex)
				}
			},
		},
		{
			name: "--execute writes into the workspace", args: []string{"--format", "openai", "--execute", "--workspace", ws},
			stdin:     lines(append(openaiWrite, `{"end":{"finishReason":"tool_calls"}}`)...),
			wantKinds: []string{"text", "call_started", "param_update", "call_complete", "done"},
			check: func(t *testing.T, r streamResult) {
				ex := r.complete[0].GetExecution()
				if !ex.GetApplied() || ex.GetChanges()[0].GetKind() != toolguardv1.FileChangeKind_FILE_CHANGE_KIND_CREATED {
					t.Errorf("execution %v", ex)
				}
			},
			wantFile: "y = 2\n",
		},
		{
			name: "finish reason length truncates the open call", args: []string{"--format", "xml_tags"},
			stdin:     lines(truncated, `{"end":{"finishReason":"length"}}`),
			wantKinds: []string{"call_started", "param_update", "call_complete", "done"},
			check: func(t *testing.T, r streamResult) {
				c := r.complete[0]
				if !c.GetTruncated() || c.GetVerdict().GetOk() || c.GetVerdict().GetViolations()[0].GetCode() != "TRUNCATED" {
					t.Errorf("call_complete %v", c)
				}
				if r.done.GetFinishReason() != "length" || r.done.GetMistakes().GetConsecutive() != 1 {
					t.Errorf("done %v", r.done)
				}
			},
		},
		{
			name: "an end frame is added at the end of the input", args: []string{"--format", "xml_tags", "--finish-reason", "max_tokens"},
			stdin:     lines(truncated),
			wantKinds: []string{"call_started", "param_update", "call_complete", "done"},
			check: func(t *testing.T, r streamResult) {
				if !r.complete[0].GetTruncated() || r.done.GetFinishReason() != "max_tokens" {
					t.Errorf("call_complete %v, done %v", r.complete[0], r.done)
				}
			},
		},
		{
			name: "empty input is an empty stream", args: []string{"--format", "hermes"},
			wantKinds: []string{"done"},
		},
		{
			name: "a start frame in the input, completed by the flags", args: []string{"--model", "deepseek-chat"},
			stdin:     lines(`{"start":{"context":{"sessionId":"s1"},"format":"STREAM_FORMAT_HERMES"}}`, `{"delta":{"text":"hi"}}`, `{"end":{}}`),
			wantKinds: []string{"text", "done"},
		},

		// The caller's mistakes.
		{
			name: "malformed line names its number", args: []string{"--format", "xml_tags"},
			stdin:    lines(`{"delta":{"text":"hi"}}`, ``, `{"delta":{"text":`),
			wantCode: 2, wantKinds: []string{"text"}, wantErr: "line 3: not a StreamToolCallsRequest frame",
		},
		{
			name: "unknown field", args: []string{"--format", "openai"},
			stdin:    lines(`{"delta":{"txt":"hi"}}`),
			wantCode: 2, wantErr: `unknown field "txt"`, // after "line 1: ...": protojson varies its spacing
		},
		{
			name: "tool_calls in the xml_tags format", args: []string{"--format", "xml_tags"},
			stdin:    lines(`{"delta":{"text":"hi"}}`, `{"delta":{"toolCalls":[{"index":0,"name":"x"}]}}`),
			wantCode: 2, wantKinds: []string{"text"}, wantErr: "line 2: delta.tool_calls: the xml_tags format carries tool calls in delta.text",
		},
		{
			name: "unknown --format", args: []string{"--format", "yaml"},
			wantCode: 2, wantErr: `--format "yaml": want xml_tags, openai`,
		},
		{
			name: "no format anywhere", stdin: lines(`{"delta":{"text":"hi"}}`),
			wantCode: 2, wantErr: "--format is required",
		},
		{
			name: "--format contradicts the start frame", args: []string{"--format", "openai"},
			stdin:    lines(`{"start":{"format":"STREAM_FORMAT_HERMES"}}`),
			wantCode: 2, wantErr: "line 1: --format openai contradicts the start frame's format STREAM_FORMAT_HERMES",
		},
		{
			name: "--session contradicts the start frame", args: []string{"--session", "s2"},
			stdin:    lines(`{"start":{"context":{"sessionId":"s1"},"format":"STREAM_FORMAT_HERMES"}}`),
			wantCode: 2, wantErr: `line 1: --session "s2" contradicts the start frame's context.session_id "s1"`,
		},
		{
			name: "a second start frame", args: []string{"--format", "hermes"},
			stdin:    lines(`{"delta":{"text":"hi"}}`, `{"start":{"format":"STREAM_FORMAT_HERMES"}}`),
			wantCode: 2, wantKinds: []string{"text"}, wantErr: "line 2: start: a stream has one start frame, first",
		},
		{
			name: "input after the end frame", args: []string{"--format", "hermes"},
			stdin:    lines(`{"end":{}}`, ``, `{"delta":{"text":"hi"}}`),
			wantCode: 2, wantKinds: []string{"done"}, wantErr: "line 3: input continues after the end frame (line 1)",
		},
		{
			name:     "execute_on_complete needs --execute",
			stdin:    lines(`{"start":{"format":"STREAM_FORMAT_OPENAI","options":{"executeOnComplete":true}}}`, openaiWrite[1], openaiWrite[2]),
			wantCode: 2, wantErr: "pass --execute --workspace DIR",
		},
		{
			name: "--dry-run needs --execute", args: []string{"--format", "openai", "--workspace", ws, "--dry-run"},
			wantCode: 2, wantErr: "applies only with --execute",
		},
		{
			name: "--raw reads text formats only", args: []string{"--format", "anthropic", "--raw"},
			wantCode: 2, wantErr: "drop --raw",
		},
		{
			name: "stray argument", args: []string{"--format", "openai", "now"},
			wantCode: 2, wantErr: `unexpected argument "now"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(filepath.Join(ws, "b.py"))
			var out, errOut strings.Builder
			code := run(append([]string{"stream"}, tc.args...), strings.NewReader(tc.stdin), &out, &errOut)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s\nstdout %s", code, tc.wantCode, errOut.String(), out.String())
			}
			if tc.wantErr != "" && !strings.Contains(errOut.String(), tc.wantErr) {
				t.Errorf("stderr %q lacks %q", errOut.String(), tc.wantErr)
			}
			if tc.wantCode == 0 && errOut.Len() > 0 {
				t.Errorf("stderr %q, want nothing", errOut.String())
			}
			r := parseStreamOutput(t, out.String())
			if !slices.Equal(r.kinds, tc.wantKinds) {
				t.Fatalf("events %v, want %v\n%s", r.kinds, tc.wantKinds, out.String())
			}
			if tc.check != nil {
				tc.check(t, r)
			}
			got, err := os.ReadFile(filepath.Join(ws, "b.py"))
			if tc.wantFile == "" && err == nil || tc.wantFile != "" && string(got) != tc.wantFile {
				t.Errorf("b.py = %q, %v; want %q", got, err, tc.wantFile)
			}
		})
	}
}

// TestStreamRaw feeds raw text one byte per read, so each read splits
// tags and multi-byte characters.
func TestStreamRaw(t *testing.T) {
	text := `Voilà <tool_call>{"name": "write_to_file", "arguments": {"path": "é.py", "content": "ünï"}}</tool_call>
fin`
	tests := []struct {
		name     string
		stdin    io.Reader
		wantCode int
		wantErr  string
	}{
		{name: "one byte per read", stdin: iotest.OneByteReader(strings.NewReader(text))},
		{name: "one read", stdin: strings.NewReader(text)},
		{name: "invalid UTF-8", stdin: strings.NewReader("ok \xff"), wantCode: 2, wantErr: "stdin: the text is not valid UTF-8"},
		{name: "cut inside a character", stdin: strings.NewReader("ok \xc3"), wantCode: 2, wantErr: "stdin: the text is not valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			code := run([]string{"stream", "--format", "hermes", "--raw"}, tc.stdin, &out, &errOut)
			if code != tc.wantCode || !strings.Contains(errOut.String(), tc.wantErr) {
				t.Fatalf("exit %d, stderr %q; want %d, %q", code, errOut.String(), tc.wantCode, tc.wantErr)
			}
			if tc.wantCode != 0 {
				return
			}
			r := parseStreamOutput(t, out.String())
			if r.text != "Voilà \nfin" || len(r.complete) != 1 || !r.complete[0].GetVerdict().GetOk() ||
				r.complete[0].GetVerdict().GetArgumentsJson() != `{"content":"ünï","path":"é.py"}` || r.done == nil {
				t.Errorf("text %q, call_complete %v, done %v", r.text, r.complete, r.done)
			}
		})
	}
}

// TestStreamRawJSONFormats feeds a call in each format whose arguments are
// JSON after special tokens, one byte per read, through to its verdict.
func TestStreamRawJSONFormats(t *testing.T) {
	args := `{"path": "é.py", "content": "a <|call|> <｜tool▁call▁end｜> }"}`
	tests := []struct{ format, text, id string }{
		{"harmony", "<|channel|>analysis<|message|>Voilà<|end|><|start|>assistant<|channel|>commentary to=functions.write_to_file <|constrain|>json<|message|>" + args + "<|call|>", ""},
		{"deepseek_v3", "Voilà<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_to_file\n```json\n" + args + "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", ""},
		{"deepseek_v31", "Voilà<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_to_file<｜tool▁sep｜>" + args + "<｜tool▁call▁end｜><｜tool▁calls▁end｜>", ""},
		{"kimi_k2", "Voilà<|tool_calls_section_begin|><|tool_call_begin|>functions.write_to_file:0<|tool_call_argument_begin|>" + args + "<|tool_call_end|><|tool_calls_section_end|>", "functions.write_to_file:0"},
		{"mistral", "Voilà[TOOL_CALLS]write_to_file[ARGS]" + args, ""},
		{"llama3_json", "<|python_tag|>{\"name\": \"write_to_file\", \"parameters\": " + args + "}", ""},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			var out, errOut strings.Builder
			code := run([]string{"stream", "--format", tc.format, "--raw"}, iotest.OneByteReader(strings.NewReader(tc.text)), &out, &errOut)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, errOut.String())
			}
			r := parseStreamOutput(t, out.String())
			wantText := "Voilà"
			if tc.format == "llama3_json" {
				wantText = ""
			}
			if r.text != wantText || len(r.complete) != 1 || !r.complete[0].GetVerdict().GetOk() ||
				r.complete[0].GetVerdict().GetArgumentsJson() != `{"content":"a <|call|> <｜tool▁call▁end｜> }","path":"é.py"}` {
				t.Fatalf("text %q, call_complete %v", r.text, r.complete)
			}
			if len(r.started) != 1 || r.started[0].GetId() != tc.id || r.started[0].GetToolName() != "write_to_file" {
				t.Errorf("call_started %v, want id %q", r.started, tc.id)
			}
		})
	}
}

// TestStreamHelp checks that the command is listed and documents its flags.
func TestStreamHelp(t *testing.T) {
	code, stdout, _ := runCLI("help")
	if code != 0 || !strings.Contains(stdout, "\tstream ") {
		t.Errorf("help (exit %d) does not list stream:\n%s", code, stdout)
	}
	code, stdout, _ = runCLI("help", "stream")
	for _, f := range []string{"-format", "-session", "-model", "-workspace", "-execute", "-dry-run", "-tools-file", "-max-call-bytes", "-max-param-bytes", "-raw", "-finish-reason"} {
		if code != 0 || !strings.Contains(stdout, f) {
			t.Errorf("help stream (exit %d) lacks %s:\n%s", code, f, stdout)
		}
	}
}

// failingWriter fails every write, as a closed pipe does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestStreamOutputFails(t *testing.T) {
	var errOut strings.Builder
	code := run([]string{"stream", "--format", "hermes"}, strings.NewReader(lines(`{"delta":{"text":"hi"}}`)), failingWriter{}, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "write event: io: read/write on closed pipe") {
		t.Errorf("exit %d, stderr %q; want 1 and the write error", code, errOut.String())
	}
}

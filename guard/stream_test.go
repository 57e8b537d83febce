package guard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
	"github.com/toolguard/toolguard/session"
)

// newWorkspaceGuard returns a guard over an in-memory session store with a
// default workspace in a temporary folder, and that folder. adjust may
// change the options first (another store, an observer).
func newWorkspaceGuard(t *testing.T, adjust ...func(*Options)) (*Guard, string) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Workspace = t.TempDir()
	var opts Options
	for _, a := range adjust {
		a(&opts)
	}
	if opts.Sessions == nil {
		opts.Sessions = session.NewMemory(session.MemoryOptions{})
	}
	t.Cleanup(func() { _ = opts.Sessions.Close() })
	g, cleanup, err := New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cleanup() })
	return g, cfg.Workspace
}

// streamed feeds text (split into pieces of size n) or deltas, ends with
// finish, and returns every event and the summary.
func streamed(t *testing.T, g *Guard, req StreamRequest, text string, n int, deltas []stream.ToolDelta, finish string) ([]StreamEvent, StreamSummary) {
	t.Helper()
	ctx := context.Background()
	s, err := g.OpenStream(req)
	if err != nil {
		t.Fatal(err)
	}
	var all []StreamEvent
	keep := func(evs []StreamEvent, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, evs...)
	}
	for i := 0; i < len(text); i += n {
		keep(s.Text(ctx, text[i:min(i+n, len(text))]))
	}
	for _, d := range deltas {
		keep(s.ToolDeltas(ctx, []stream.ToolDelta{d}))
	}
	evs, sum, err := s.End(ctx, finish)
	keep(evs, err)
	return all, sum
}

func completed(evs []StreamEvent) []StreamEvent {
	var out []StreamEvent
	for _, e := range evs {
		if e.Kind == stream.EventCallClosed {
			out = append(out, e)
		}
	}
	return out
}

func TestStreamVerdicts(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	memory := repair.ToolDef{Name: "add_semantic_memory", Parameters: map[string]any{
		"type": "object", "required": []any{"memory_text"},
		"properties": map[string]any{"memory_text": map[string]any{"type": "string"}, "importance": map[string]any{"type": "integer"},
			"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}},
	}}
	tests := []struct {
		name     string
		req      StreamRequest
		text     string
		deltas   []stream.ToolDelta
		finish   string
		wantArgs []string // each completed call's arguments JSON
		wantOK   []bool
		wantFile map[string]string
		wantMist uint32
		check    func(t *testing.T, evs []StreamEvent)
	}{
		{
			name:     "xml_tags write executed on completion, aliases canonical in previews",
			req:      StreamRequest{Format: stream.XMLTags, ExecuteOnComplete: true},
			text:     "Writing now.\n<write_to_file>\n<file_path>out/a.txt</file_path>\n<content>\nhello </content> world\n</content>\n</write_to_file>\nDone.",
			finish:   "stop",
			wantArgs: []string{`{"content":"hello </content> world","path":"out/a.txt"}`},
			wantOK:   []bool{true},
			wantFile: map[string]string{"out/a.txt": "hello </content> world"},
			check: func(t *testing.T, evs []StreamEvent) {
				var params []string
				for _, e := range evs {
					if e.Kind == stream.EventParam && !slices.Contains(params, e.Param) {
						params = append(params, e.Param)
					}
				}
				if !slices.Equal(params, []string{"path", "content"}) {
					t.Errorf("previewed parameters %v, want [path content]", params)
				}
				c := completed(evs)[0]
				if c.Execution == nil || !c.Execution.Applied {
					t.Errorf("write not executed: %+v", c.Execution)
				}
			},
		},
		{
			name:     "openai zero-argument call comes back as {}",
			req:      StreamRequest{Format: stream.OpenAI, Tools: []repair.ToolDef{{Name: "list_everything", Parameters: map[string]any{"type": "object"}}}},
			deltas:   []stream.ToolDelta{{Index: 0, ID: "c1", Name: "list_everything"}},
			finish:   "tool_calls",
			wantArgs: []string{`{}`},
			wantOK:   []bool{true},
		},
		{
			name:     "custom tool in qwen_xml, coerced from strings",
			req:      StreamRequest{Format: stream.QwenXML, Tools: []repair.ToolDef{memory}},
			text:     "<function=add_semantic_memory>\n<parameter=memory_text>\nlikes </parameter> tags\n</parameter>\n<parameter=importance>\n4\n</parameter>\n</function>",
			finish:   "stop",
			wantArgs: []string{`{"importance":4,"memory_text":"likes </parameter> tags"}`},
			wantOK:   []bool{true},
		},
		{
			name: "glm45 values typed by the schema: JSON for an integer and an array is decoded, a string stays as written",
			req:  StreamRequest{Format: stream.GLM45, Tools: []repair.ToolDef{memory}},
			text: "Saving it.\n<tool_call>add_semantic_memory\n<arg_key>memory_text</arg_key>\n<arg_value>[\"tabs\"] </arg_value> everywhere</arg_value>\n" +
				"<arg_key>importance</arg_key>\n<arg_value>4</arg_value>\n<arg_key>tags</arg_key>\n<arg_value>[\"style\", \"go\"]</arg_value>\n</tool_call>",
			finish:   "stop",
			wantArgs: []string{`{"importance":4,"memory_text":"[\"tabs\"] </arg_value> everywhere","tags":["style","go"]}`},
			wantOK:   []bool{true},
		},
		{
			name: "claude_xml values typed by the schema, two invokes in one block",
			req:  StreamRequest{Format: stream.ClaudeXML, Tools: []repair.ToolDef{memory}},
			text: "<function_calls>\n<invoke name=\"add_semantic_memory\">\n<parameter name=\"memory_text\">{\"a\": 1}</parameter>\n<parameter name=\"importance\">2</parameter>\n</invoke>\n" +
				"<invoke name=\"add_semantic_memory\">\n<parameter name=\"memory_text\">b</parameter>\n<parameter name=\"tags\">[\"x\"]</parameter>\n</invoke>\n</function_calls>",
			finish:   "stop",
			wantArgs: []string{`{"importance":2,"memory_text":"{\"a\": 1}"}`, `{"memory_text":"b","tags":["x"]}`},
			wantOK:   []bool{true, true},
		},
		{
			name: "auto: a GLM call, then prose mentioning <tool_call>, then a Hermes call and a Cline one, each typed by its format's rules",
			req:  StreamRequest{Format: stream.Auto, Tools: []repair.ToolDef{memory}},
			text: "<tool_call>add_semantic_memory\n<arg_key>memory_text</arg_key>\n<arg_value>a</arg_value>\n<arg_key>importance</arg_key>\n<arg_value>4</arg_value>\n</tool_call>\n" +
				"Wrap calls in <tool_call> tags.\n<tool_call>\n{\"name\": \"add_semantic_memory\", \"arguments\": {\"memory_text\": \"b\"}}\n</tool_call>\n" +
				"<write_to_file>\n<path>a.go</path>\n<content>x</content>\n</write_to_file>",
			finish:   "stop",
			wantArgs: []string{`{"importance":4,"memory_text":"a"}`, `{"memory_text":"b"}`, `{"content":"x","path":"a.go"}`},
			wantOK:   []bool{true, true, true},
		},
		{
			name: "pythonic: literals arrive as JSON, without repairs; a name as a value refuses that call with the reason",
			req:  StreamRequest{Format: stream.Pythonic, Tools: []repair.ToolDef{memory}, ExecuteOnComplete: true},
			text: "[write_to_file(path='p.txt', content='''one\n''' \"two\\n\"), add_semantic_memory(memory_text='x', importance=4, tags=('a',)), " +
				"add_semantic_memory(memory_text=note)]",
			finish:   "stop",
			wantArgs: []string{`{"content":"one\ntwo\n","path":"p.txt"}`, `{"importance":4,"memory_text":"x","tags":["a"]}`, ``},
			wantOK:   []bool{true, true, false},
			wantFile: map[string]string{"p.txt": "one\ntwo\n"},
			wantMist: 1,
			check: func(t *testing.T, evs []StreamEvent) {
				c := completed(evs)
				if len(c[0].Verdict.Repairs)+len(c[1].Verdict.Repairs) != 0 {
					t.Errorf("pythonic literals recorded repairs: %v %v", c[0].Verdict.Repairs, c[1].Verdict.Repairs)
				}
				want := `The call add_semantic_memory(...) cannot be read: the value of "memory_text" has the name note, not a literal; quote it if it is text. Arguments must be Python literals: strings, numbers, True, False, None, and lists, tuples and dicts of them.`
				if v := c[2].Verdict.Violations; len(v) != 1 || v[0].Code != repair.CodeUnparseable || v[0].Message != want {
					t.Errorf("refused call: %+v", v)
				}
			},
		},
		{
			name: "qwen3-coder content holding an undeclared <parameter= line keeps it; a missing </parameter> before a declared one is repaired",
			req:  StreamRequest{Format: stream.QwenXML, Tools: []repair.ToolDef{memory}},
			text: "<tool_call>\n<function=add_semantic_memory>\n<parameter=memory_text>\nline one\n<parameter=note>\nstill text\n" +
				"<parameter=importance>\n4\n</parameter>\n</function>\n</tool_call>",
			finish:   "stop",
			wantArgs: []string{`{"importance":4,"memory_text":"line one\n<parameter=note>\nstill text"}`},
			wantOK:   []bool{true},
		},
		{
			name:     "truncated by the length limit: a mistake, never executed",
			req:      StreamRequest{Format: stream.OpenAI, ExecuteOnComplete: true},
			deltas:   []stream.ToolDelta{{Index: 0, ID: "c1", Name: "write_to_file", Arguments: `{"path": "t.txt", "content": "abc"}`}},
			finish:   "length",
			wantArgs: []string{`{"content":"abc","path":"t.txt"}`},
			wantOK:   []bool{false},
			wantMist: 1,
			check: func(t *testing.T, evs []StreamEvent) {
				c := completed(evs)[0]
				if !c.Truncated || !c.Verdict.Has(repair.CodeTruncated) || c.Execution != nil {
					t.Errorf("truncated call: truncated=%v violations=%v execution=%v", c.Truncated, c.Verdict.Violations, c.Execution)
				}
				if _, err := os.Stat(filepath.Join(dir, "t.txt")); err == nil {
					t.Error("a truncated call was executed")
				}
			},
		},
		{
			name:     "hermes edit executed, then a read validated only",
			req:      StreamRequest{Format: stream.Hermes, ExecuteOnComplete: true},
			text:     `<tool_call>{"name": "write_to_file", "arguments": {"path": "e.txt", "content": "one\ntwo\n"}}</tool_call><tool_call>{"name": "edit", "arguments": {"path": "e.txt", "old_text": "two", "new_text": "2"}}</tool_call>`,
			finish:   "stop",
			wantArgs: []string{`{"content":"one\ntwo\n","path":"e.txt"}`, `{"new_text":"2","old_text":"two","path":"e.txt"}`},
			wantOK:   []bool{true, true},
			wantFile: map[string]string{"e.txt": "one\n2\n"},
		},
		{
			name:   "xml_tags write, then a multi-replace in a tool wrapper with XML items, executed",
			req:    StreamRequest{Format: stream.XMLTags, ExecuteOnComplete: true},
			text:   "<write_to_file><path>m.txt</path><content>\na </new_text>\nb\n\n</content></write_to_file>\n<tool name=\"multi_replace_string_in_file\">\n<replacements>\n<replacement>\n<filePath>m.txt</filePath>\n<oldString>a </new_text></oldString>\n<newString>A </replacements></newString>\n</replacement>\n<replacement><filePath>m.txt</filePath><oldString>b</oldString><newString>B</newString></replacement>\n</replacements>\n</tool>",
			finish: "stop",
			wantArgs: []string{`{"content":"a </new_text>\nb\n","path":"m.txt"}`,
				`{"edits":[{"new_text":"A </replacements>","old_text":"a </new_text>","path":"m.txt"},{"new_text":"B","old_text":"b","path":"m.txt"}]}`},
			wantOK:   []bool{true, true},
			wantFile: map[string]string{"m.txt": "A </replacements>\nB\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.SessionID = t.Name()
			tt.req.MaxCallBytes, tt.req.MaxParamBytes = 1<<20, 1<<20
			for _, n := range []int{1, 7, 1 << 20} {
				evs, sum := streamed(t, g, tt.req, tt.text, n, tt.deltas, tt.finish)
				got := completed(evs)
				if len(got) != len(tt.wantArgs) {
					t.Fatalf("pieces of %d: %d calls completed, want %d", n, len(got), len(tt.wantArgs))
				}
				for i, c := range got {
					want := tt.wantArgs[i]
					if c.Execution != nil {
						want = asAnswered(t, want)
					}
					if string(c.Verdict.ArgumentsJSON) != want || c.Verdict.OK() != tt.wantOK[i] {
						t.Errorf("pieces of %d: call %d: ok=%v args %s violations %v, want ok=%v %s", n, i, c.Verdict.OK(),
							c.Verdict.ArgumentsJSON, c.Verdict.Violations, tt.wantOK[i], want)
					}
				}
				for name, want := range tt.wantFile {
					data, err := os.ReadFile(filepath.Join(dir, name))
					if err != nil || string(data) != want {
						t.Errorf("%s = %q, %v; want %q", name, data, err, want)
					}
				}
				if sum.Calls != len(tt.wantArgs) || sum.Mistakes.Consecutive != tt.wantMist {
					t.Errorf("summary %+v, want %d calls and %d mistakes", sum, len(tt.wantArgs), tt.wantMist)
				}
				if tt.check != nil {
					tt.check(t, evs)
				}
				if _, err := g.ResetSession(context.Background(), tt.req.SessionID); err != nil {
					t.Fatal(err)
				}
				for name := range tt.wantFile {
					_ = os.RemoveAll(filepath.Join(dir, name))
				}
			}
		})
	}
}

func TestStreamCallerMistakes(t *testing.T) {
	g, _ := newWorkspaceGuard(t)
	if _, err := g.OpenStream(StreamRequest{Format: stream.XMLTags, Tools: []repair.ToolDef{{Name: ""}}}); err == nil {
		t.Error("a bad tool definition was accepted")
	}
	if _, err := g.OpenStream(StreamRequest{Format: stream.XMLTags, ExecuteOnComplete: true, Workspace: "nope"}); err == nil ||
		!strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown workspace: %v", err)
	}
	s, err := g.OpenStream(StreamRequest{SessionID: "s", Format: stream.XMLTags})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ToolDeltas(context.Background(), []stream.ToolDelta{{Index: 0}}); err == nil {
		t.Error("tool deltas accepted by an xml_tags stream")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Text(ctx, "x"); err == nil {
		t.Error("a cancelled context was not noticed")
	}
}

// asAnswered returns arguments JSON as an executed call's verdict shows it:
// each file content or edit text by its marker.
func asAnswered(t *testing.T, args string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatal(err)
	}
	elide := func(m map[string]any) {
		for _, k := range []string{"content", "old_text", "new_text"} {
			if s, ok := m[k].(string); ok && s != "" {
				sum := sha256.Sum256([]byte(s))
				m[k] = fmt.Sprintf("<elided %d bytes sha256:%s>", len(s), hex.EncodeToString(sum[:]))
			}
		}
	}
	elide(m)
	edits, _ := m["edits"].([]any)
	for _, e := range edits {
		if em, ok := e.(map[string]any); ok {
			elide(em)
		}
	}
	out, err := repair.EncodeJSON(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

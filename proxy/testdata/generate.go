//go:build ignore

// Command generate writes the proxy fixtures in this directory: for each
// scenario a request.json, the upstream's response.sse or response.json, an
// optional upstream.json (status and headers of an error answer) and an
// expect.json. The output is deterministic; run it from the repository root
// after changing a scenario, and review the diff:
//
//	go run ./proxy/testdata/generate.go
//
// The expected repaired arguments are written here by hand, never computed:
// they are what a correct proxy must produce, whatever the engine does today.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

func main() {
	dir := "proxy/testdata"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if _, err := os.Stat(filepath.Join(dir, "generate.go")); err != nil {
		fail(fmt.Errorf("run from the repository root (or pass the testdata directory): %w", err))
	}
	outDir = dir
	openaiScenarios()
	anthropicScenarios()
	fmt.Printf("wrote %d scenarios under %s\n", written, dir)
}

var (
	outDir  string
	written int
	rng     *rand.Rand
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, "generate:", err)
	os.Exit(1)
}

// seed makes the ids of a scenario depend on its name only.
func seed(name string) {
	h := fnv.New64a()
	h.Write([]byte(name))
	rng = rand.New(rand.NewPCG(h.Sum64(), 0x70726f7879))
}

const (
	alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	hexd  = "0123456789abcdef"
)

func randStr(n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// ---------------------------------------------------------------------------
// An ordered JSON encoder: the fixtures must keep the key order, spacing and
// escaping of the servers they imitate.

type kv struct {
	k string
	v any
}

type obj []kv

type style struct {
	spaced bool // Python json.dumps separators: ", " and ": "
	ascii  bool // Python json.dumps ensure_ascii: non-ASCII as \uXXXX
}

var compact = style{}

func enc(v any, st style) string {
	var b strings.Builder
	encTo(&b, v, st)
	return b.String()
}

func encTo(b *strings.Builder, v any, st style) {
	comma, colon := ",", ":"
	if st.spaced {
		comma, colon = ", ", ": "
	}
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		fmt.Fprint(b, v)
	case int:
		fmt.Fprint(b, v)
	case string:
		encString(b, v, st.ascii)
	case raw:
		b.WriteString(string(v))
	case obj:
		b.WriteByte('{')
		for i, e := range v {
			if i > 0 {
				b.WriteString(comma)
			}
			encString(b, e.k, st.ascii)
			b.WriteString(colon)
			encTo(b, e.v, st)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(comma)
			}
			encTo(b, e, st)
		}
		b.WriteByte(']')
	default:
		fail(fmt.Errorf("enc: unsupported %T", v))
	}
}

// raw is JSON text written as is.
type raw string

func encString(b *strings.Builder, s string, ascii bool) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		case ascii && r > 0x7e:
			if r > 0xffff {
				r -= 0x10000
				fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			} else {
				fmt.Fprintf(b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

func pretty(s string) []byte {
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(s), "", "  "); err != nil {
		fail(fmt.Errorf("indent: %w\n%s", err, s))
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// ---------------------------------------------------------------------------
// Fragmenting: toks cuts a text roughly the way a BPE tokenizer would, so
// the argument deltas look like what a model server streams.

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || (r >= 0x3000 && r <= 0x303f) || (r >= 0xff00 && r <= 0xffef)
}

func isWord(r rune) bool { return r < 0x80 && (unicode.IsLetter(r)) }

func toks(s string) []string {
	rs := []rune(s)
	var out []string
	cjk := 0
	for i := 0; i < len(rs); {
		j := i
		switch r := rs[i]; {
		case isCJK(r):
			n := 1 + cjk%2
			cjk++
			for j < len(rs) && j-i < n && isCJK(rs[j]) {
				j++
			}
		case isWord(r) || (r == ' ' && i+1 < len(rs) && isWord(rs[i+1])):
			j++
			for j < len(rs) && isWord(rs[j]) && j-i < 9 {
				j++
			}
		case unicode.IsDigit(r):
			for j < len(rs) && unicode.IsDigit(rs[j]) && j-i < 3 {
				j++
			}
		case r > 0x7f:
			j++
		default:
			for j < len(rs) && j-i < 3 && !isWord(rs[j]) && !unicode.IsDigit(rs[j]) && !isCJK(rs[j]) && rs[j] <= 0x7f {
				if rs[j] == ' ' && j > i && j+1 < len(rs) && isWord(rs[j+1]) {
					break
				}
				j++
			}
		}
		out = append(out, string(rs[i:j]))
		i = j
	}
	return out
}

// everyByte cuts a text into one byte per piece, except that a multi-byte
// UTF-8 character stays whole: a JSON string cannot carry half a character.
func everyByte(s string) []string {
	var out []string
	for len(s) > 0 {
		_, n := utf8.DecodeRuneInString(s)
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// ---------------------------------------------------------------------------
// Tools declared by the requests, as a coding agent sends them.

var todoSchema = obj{
	{"type", "object"},
	{"properties", obj{
		{"todos", obj{
			{"type", "array"},
			{"items", obj{
				{"type", "object"},
				{"properties", obj{
					{"content", obj{{"type", "string"}, {"minLength", 1}}},
					{"status", obj{{"type", "string"}, {"enum", []any{"pending", "in_progress", "completed"}}}},
					{"id", obj{{"type", "string"}}},
				}},
				{"required", []any{"content", "status", "id"}},
				{"additionalProperties", false},
			}},
			{"description", "The updated todo list"},
		}},
	}},
	{"required", []any{"todos"}},
	{"additionalProperties", false},
	{"$schema", "http://json-schema.org/draft-07/schema#"},
}

var writeSchema = obj{
	{"type", "object"},
	{"properties", obj{
		{"path", obj{{"type", "string"}, {"description", "The path of the file to write, relative to the project root"}}},
		{"content", obj{{"type", "string"}, {"description", "The content to write to the file"}}},
	}},
	{"required", []any{"path", "content"}},
	{"additionalProperties", false},
}

var readSchema = obj{
	{"type", "object"},
	{"properties", obj{
		{"path", obj{{"type", "string"}, {"description", "The path of the file to read"}}},
		{"offset", obj{{"type", "integer"}, {"description", "The line number to start reading from"}}},
		{"limit", obj{{"type", "integer"}, {"description", "The number of lines to read"}}},
	}},
	{"required", []any{"path"}},
	{"additionalProperties", false},
}

type toolDef struct {
	name, desc string
	schema     obj
}

var tools = []toolDef{
	{"TodoWrite", "Use this tool to create and manage a structured task list for your current coding session. This helps you track progress and organize complex tasks.", todoSchema},
	{"Write", "Writes a file to the local filesystem, overwriting it if it exists.", writeSchema},
	{"Read", "Reads a file from the local filesystem.", readSchema},
}

const systemPrompt = "You are an interactive CLI tool that helps users with software engineering tasks. Use the tools available to you to assist the user. Use the TodoWrite tool to plan and track your work."

// ---------------------------------------------------------------------------
// Expectations.

type expCall struct {
	Index             int             `json:"index"`
	ID                string          `json:"id"`
	UpstreamName      string          `json:"upstream_name"`
	Name              string          `json:"name"`
	UpstreamArguments string          `json:"upstream_arguments"`
	Arguments         json.RawMessage `json:"arguments,omitempty"`
	Unchanged         bool            `json:"unchanged,omitempty"`
	Truncated         bool            `json:"truncated,omitempty"`
	Note              string          `json:"note,omitempty"`
}

type expect struct {
	Scenario       string    `json:"scenario"`
	API            string    `json:"api"`
	Stream         bool      `json:"stream"`
	Checks         string    `json:"checks"`
	ByteIdentical  bool      `json:"byte_identical"`
	FinishReason   string    `json:"finish_reason,omitempty"`
	StopReason     string    `json:"stop_reason,omitempty"`
	UpstreamStatus int       `json:"upstream_status,omitempty"`
	Calls          []expCall `json:"calls"`
}

// call is one tool call of a scenario: what the model streams and what the
// proxy must hand on.
type call struct {
	index     int // OpenAI tool_calls index; Anthropic content block index
	id        string
	name      string   // as the model wrote it
	canon     string   // as the request declared it
	frags     []string // argument text as streamed
	want      string   // expected repaired arguments, JSON; "" when truncated
	unchanged bool
	truncated bool
	note      string
}

func (c *call) args() string { return strings.Join(c.frags, "") }

// check makes sure a scenario says what it means: unchanged arguments are
// valid JSON equal to the expectation, truncated ones are not JSON, repaired
// ones differ from what arrived.
func (c *call) check(scn string) {
	a := c.args()
	switch {
	case c.truncated:
		if json.Valid([]byte(a)) {
			fail(fmt.Errorf("%s call %d: truncated arguments are valid JSON", scn, c.index))
		}
	case c.unchanged:
		if !sameJSON(a, c.want) {
			fail(fmt.Errorf("%s call %d: unchanged arguments %s differ from %s", scn, c.index, a, c.want))
		}
	default:
		if !json.Valid([]byte(c.want)) {
			fail(fmt.Errorf("%s call %d: expected arguments are not JSON: %s", scn, c.index, c.want))
		}
		if sameJSON(a, c.want) && c.name == c.canon {
			fail(fmt.Errorf("%s call %d: nothing to repair", scn, c.index))
		}
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return enc2(x) == enc2(y)
}

func enc2(v any) string { b, _ := json.Marshal(v); return string(b) }

func (c *call) expect() expCall {
	e := expCall{Index: c.index, ID: c.id, UpstreamName: c.name, Name: c.canon, UpstreamArguments: c.args(),
		Unchanged: c.unchanged, Truncated: c.truncated, Note: c.note}
	if !c.truncated {
		e.Arguments = json.RawMessage(c.want)
	}
	return e
}

// ---------------------------------------------------------------------------
// Output.

func write(api, name string, files map[string][]byte, exp expect) {
	dir := filepath.Join(outDir, api, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	for _, f := range []string{"request.json", "response.sse", "response.json", "upstream.json", "expect.json"} {
		_ = os.Remove(filepath.Join(dir, f))
	}
	exp.Scenario = api + "/" + name
	exp.API = api
	if exp.Calls == nil {
		exp.Calls = []expCall{}
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(exp); err != nil {
		fail(err)
	}
	files["expect.json"] = b.Bytes()
	for f, data := range files {
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			fail(err)
		}
	}
	written++
}

func userMsg(text string) obj { return obj{{"role", "user"}, {"content", text}} }

// ---------------------------------------------------------------------------
// OpenAI chat completions.

// oa builds one OpenAI-compatible stream in the dialect of a server:
// "vllm" (vLLM, SGLang and most local servers), "openai" (api.openai.com),
// "openrouter", or "llamacpp" (llama-cpp-python: sse-starlette CRLF framing,
// json.dumps spacing and ASCII escapes, ": ping" comments).
type oa struct {
	flavor   string
	id       string
	model    string
	created  int
	fp       string
	usage    bool // stream_options.include_usage
	st       style
	eol      string
	events   []string
	prompt   int
	complete int
}

func newOA(flavor string) *oa {
	s := &oa{flavor: flavor, created: 1750000000 + rng.IntN(20000000), st: compact, eol: "\n", prompt: 900 + rng.IntN(600)}
	switch flavor {
	case "vllm":
		s.id = "chatcmpl-" + randStr(32, hexd)
		s.model = "qwen3-coder-30b-a3b-instruct"
	case "openai":
		s.id = "chatcmpl-" + randStr(29, alnum)
		s.model = "gpt-4.1-2025-04-14"
		s.fp = "fp_" + randStr(10, hexd)
	case "openrouter":
		s.id = "gen-" + fmt.Sprint(s.created) + "-" + randStr(20, alnum)
		s.model = "qwen/qwen3-coder"
	case "llamacpp":
		s.id = "chatcmpl-" + randStr(8, hexd) + "-" + randStr(4, hexd) + "-" + randStr(4, hexd) + "-" + randStr(4, hexd) + "-" + randStr(12, hexd)
		s.model = "qwen2.5-coder-7b-instruct-q4_k_m.gguf"
		s.st = style{spaced: true, ascii: true}
		s.eol = "\r\n"
	default:
		fail(fmt.Errorf("flavor %q", flavor))
	}
	return s
}

func (s *oa) data(js string) { s.events = append(s.events, "data: "+js+s.eol+s.eol) }

func (s *oa) comment(text string) { s.events = append(s.events, ": "+text+s.eol+s.eol) }

func (s *oa) chunk(delta obj, finish any) {
	s.complete++
	var c obj
	switch s.flavor {
	case "openrouter":
		c = obj{{"id", s.id}, {"provider", "Chutes"}, {"model", s.model}, {"object", "chat.completion.chunk"}, {"created", s.created},
			{"choices", []any{obj{{"index", 0}, {"delta", delta}, {"finish_reason", finish}, {"native_finish_reason", finish}, {"logprobs", nil}}}}}
	default:
		c = obj{{"id", s.id}, {"object", "chat.completion.chunk"}, {"created", s.created}, {"model", s.model}}
		if s.flavor == "openai" {
			c = append(c, kv{"service_tier", "default"}, kv{"system_fingerprint", s.fp})
		}
		c = append(c, kv{"choices", []any{obj{{"index", 0}, {"delta", delta}, {"logprobs", nil}, {"finish_reason", finish}}}})
		if s.flavor == "openai" {
			if s.usage {
				c = append(c, kv{"usage", nil})
			}
			c = append(c, kv{"obfuscation", randStr(1+rng.IntN(12), alnum)})
		}
	}
	s.data(enc(c, s.st))
}

// end writes the usage chunk (when asked for) and [DONE].
func (s *oa) end() {
	if s.usage {
		var u obj
		if s.flavor == "openai" {
			u = obj{{"prompt_tokens", s.prompt}, {"completion_tokens", s.complete}, {"total_tokens", s.prompt + s.complete},
				{"prompt_tokens_details", obj{{"cached_tokens", 0}, {"audio_tokens", 0}}},
				{"completion_tokens_details", obj{{"reasoning_tokens", 0}, {"audio_tokens", 0}, {"accepted_prediction_tokens", 0}, {"rejected_prediction_tokens", 0}}}}
			s.data(enc(obj{{"id", s.id}, {"object", "chat.completion.chunk"}, {"created", s.created}, {"model", s.model},
				{"service_tier", "default"}, {"system_fingerprint", s.fp}, {"choices", []any{}}, {"usage", u}, {"obfuscation", randStr(6, alnum)}}, s.st))
		} else {
			u = obj{{"prompt_tokens", s.prompt}, {"total_tokens", s.prompt + s.complete}, {"completion_tokens", s.complete}}
			s.data(enc(obj{{"id", s.id}, {"object", "chat.completion.chunk"}, {"created", s.created}, {"model", s.model},
				{"choices", []any{}}, {"usage", u}}, s.st))
		}
	}
	s.data("[DONE]")
}

func (s *oa) sse() []byte { return []byte(strings.Join(s.events, "")) }

// role is the opening chunk of a vLLM-style stream.
func (s *oa) role() { s.chunk(obj{{"role", "assistant"}, {"content", ""}}, nil) }

func (s *oa) text(parts []string) {
	for _, p := range parts {
		s.chunk(obj{{"content", p}}, nil)
	}
}

func toolHeader(c *call) obj {
	return obj{{"index", c.index}, {"id", c.id}, {"type", "function"}, {"function", obj{{"name", c.name}, {"arguments", ""}}}}
}

func toolFrag(c *call, frag string) obj {
	return obj{{"index", c.index}, {"function", obj{{"arguments", frag}}}}
}

// header opens a tool call; api.openai.com puts the role in the same delta
// when the message opens with a call.
func (s *oa) header(c *call, withRole bool) {
	d := obj{}
	if withRole {
		d = append(d, kv{"role", "assistant"}, kv{"content", nil})
	}
	d = append(d, kv{"tool_calls", []any{toolHeader(c)}})
	if withRole {
		d = append(d, kv{"refusal", nil})
	}
	s.chunk(d, nil)
}

func (s *oa) frags(c *call) {
	for _, f := range c.frags {
		s.chunk(obj{{"tool_calls", []any{toolFrag(c, f)}}}, nil)
	}
}

func (s *oa) finish(reason string) { s.chunk(obj{}, reason) }

func newCallID() string { return "call_" + randStr(24, alnum) }

func oaTools() []any {
	var out []any
	for _, t := range tools {
		out = append(out, obj{{"type", "function"}, {"function", obj{{"name", t.name}, {"description", t.desc}, {"parameters", t.schema}}}})
	}
	return out
}

func oaRequest(name, user string, stream bool, extra ...kv) []byte {
	r := obj{{"model", name}, {"messages", []any{obj{{"role", "system"}, {"content", systemPrompt}}, userMsg(user)}},
		{"tools", oaTools()}, {"tool_choice", "auto"}}
	r = append(r, extra...)
	r = append(r, kv{"stream", stream})
	if stream {
		r = append(r, kv{"stream_options", obj{{"include_usage", true}}})
	}
	return pretty(enc(r, compact))
}

func oaScenario(name, checks string, s *oa, user string, calls []*call, finish string, byteIdentical bool, extra ...kv) {
	exp := expect{Stream: true, Checks: checks, ByteIdentical: byteIdentical, FinishReason: finish}
	for _, c := range calls {
		c.check("openai/" + name)
		exp.Calls = append(exp.Calls, c.expect())
	}
	write("openai", name, map[string][]byte{"request.json": oaRequest(name, user, true, extra...), "response.sse": s.sse()}, exp)
}

const userZH = "用 Python 写一个命令行待办事项应用：先规划任务，再创建项目结构和主程序文件。"

// The seed's arguments, as the model writes them and as they must arrive.
const (
	seedArgs = `{"todos": [{'content': '创建项目结构和主程序文件', 'id': '1', 'status': 'in_progress'}, {'content': '实现添加、删除和列出待办事项的功能', 'id': '2', 'status': 'pending'}, {'content': '编写单元测试', 'id': '3', 'status': 'pending'}]}`
	seedWant = `{"todos":[{"content":"创建项目结构和主程序文件","id":"1","status":"in_progress"},{"content":"实现添加、删除和列出待办事项的功能","id":"2","status":"pending"},{"content":"编写单元测试","id":"3","status":"pending"}]}`
)

func openaiScenarios() {
	// python_dict_todowrite: the seed, vLLM-style.
	seed("openai/python_dict_todowrite")
	{
		s := newOA("vllm")
		s.usage = true
		c := &call{index: 0, id: newCallID(), name: "TodoWrite", canon: "TodoWrite", frags: toks(seedArgs), want: seedWant}
		s.role()
		s.header(c, false)
		s.frags(c)
		s.finish("tool_calls")
		s.end()
		oaScenario("python_dict_todowrite",
			"The seed's case: TodoWrite arguments in Python-dict syntax (single quotes) streamed in token-sized fragments; the concatenated arguments the client sees must be the JSON in `arguments`. Every event that carries no argument text passes byte-for-byte.",
			s, userZH, []*call{c}, "tool_calls", false)
	}

	// valid_args_unchanged: api.openai.com style, already valid.
	seed("openai/valid_args_unchanged")
	{
		s := newOA("openai")
		s.usage = true
		args := `{"todos":[{"content":"Create the project layout","id":"1","status":"in_progress"},{"content":"Handle the user's input in main.py","id":"2","status":"pending"},{"content":"Add a --help flag","id":"3","status":"pending"}]}`
		c := &call{index: 0, id: newCallID(), name: "TodoWrite", canon: "TodoWrite", frags: toks(args), want: args, unchanged: true}
		s.header(c, true)
		s.frags(c)
		s.finish("tool_calls")
		s.end()
		oaScenario("valid_args_unchanged",
			"Valid JSON arguments (with an apostrophe inside a string, a trap for naive quote swapping): nothing to repair, the whole stream must come out byte-identical.",
			s, "Plan a small todo CLI in Python.", []*call{c}, "tool_calls", true)
	}

	// no_tool_calls: text only, with a Python dict in the prose.
	seed("openai/no_tool_calls")
	{
		s := newOA("vllm")
		s.usage = true
		s.role()
		text := "可以。Python 里的字典是这样写的：`{'content': '示例', 'id': '1'}`，而 JSON 要用双引号：`{\"content\": \"示例\"}`。\n\n```python\ntodos = [{'id': '1', 'status': 'pending'}]\n```\n😀 需要我创建文件吗？"
		s.text(toks(text))
		s.finish("stop")
		s.end()
		oaScenario("no_tool_calls",
			"Text only, though tools were declared; the text holds Python dicts and JSON that must not be touched. The whole stream must come out byte-identical.",
			s, "Python 的字典和 JSON 有什么区别？", nil, "stop", true)
	}

	// split_every_byte
	seed("openai/split_every_byte")
	{
		s := newOA("vllm")
		args := `{"todos": [{'content': 'Fix the "--help" flag', 'id': '1', 'status': 'in_progress'}, {'content': '更新文档', 'id': '2', 'status': 'pending'}]}`
		want := `{"todos":[{"content":"Fix the \"--help\" flag","id":"1","status":"in_progress"},{"content":"更新文档","id":"2","status":"pending"}]}`
		c := &call{index: 0, id: newCallID(), name: "TodoWrite", canon: "TodoWrite", frags: everyByte(args), want: want}
		s.role()
		s.header(c, false)
		s.frags(c)
		s.finish("tool_calls")
		s.end()
		oaScenario("split_every_byte",
			"Python-dict arguments streamed one byte per event (a multi-byte UTF-8 character stays whole: JSON strings cannot carry half a character); the value holds double quotes that must be escaped once converted.",
			s, "Fix the --help flag and update the docs.", []*call{c}, "tool_calls", false)
	}

	// unicode_escape_split
	seed("openai/unicode_escape_split")
	{
		s := newOA("vllm")
		s.usage = true
		c0 := &call{index: 0, id: newCallID(), name: "TodoWrite", canon: "TodoWrite",
			frags: cat(toks(`{"todos":[{"content":"Ajouter le menu caf`), []string{`\`, `u00`, `e9 \ud83d`, `\ude`, `00 du jour","id":"1","status":"pending"}]}`}),
			want:  `{"todos":[{"content":"Ajouter le menu café 😀 du jour","id":"1","status":"pending"}]}`, unchanged: true,
			note: `\u00e9 split after the backslash and inside the hex digits; the surrogate pair \ud83d\ude00 split between and inside its halves.`}
		c1 := &call{index: 1, id: newCallID(), name: "Write", canon: "Write",
			frags: cat(toks(`{'path': 'menu.txt', 'content': 'Caf`), []string{`\u00`, `e9 cr\`, `u00e8me br\u00fb`, `l\u00e`, `9e\n'}`}),
			want:  `{"path":"menu.txt","content":"Café crème brûlée\n"}`,
			note:  `Python-dict arguments whose \uXXXX escapes are split across events; \n is a newline in both syntaxes.`}
		s.role()
		s.header(c0, false)
		s.frags(c0)
		s.header(c1, false)
		s.frags(c1)
		s.finish("tool_calls")
		s.end()
		oaScenario("unicode_escape_split",
			`\uXXXX escapes inside argument strings split across events: call 0 is valid JSON and must pass byte-identical, call 1 is a Python dict to repair.`,
			s, "Écris le menu du café dans menu.txt.", []*call{c0, c1}, "tool_calls", false)
	}

	// two_calls_interleaved
	seed("openai/two_calls_interleaved")
	{
		s := newOA("vllm")
		s.usage = true
		c0 := &call{index: 0, id: newCallID(), name: "TodoWrite", canon: "TodoWrite",
			frags: toks(`{"todos": [{'content': '创建项目结构和主程序文件', 'id': '1', 'status': 'in_progress'}, {'content': '编写单元测试', 'id': '2', 'status': 'pending'}]}`),
			want:  `{"todos":[{"content":"创建项目结构和主程序文件","id":"1","status":"in_progress"},{"content":"编写单元测试","id":"2","status":"pending"}]}`}
		c1 := &call{index: 1, id: newCallID(), name: "Write", canon: "Write",
			frags: toks(`{"path": "todo.py", "content": "def main():\n    print('hello')\n\n\nif __name__ == '__main__':\n    main()\n"}`),
			want:  `{"path":"todo.py","content":"def main():\n    print('hello')\n\n\nif __name__ == '__main__':\n    main()\n"}`, unchanged: true,
			note: "valid JSON whose content holds single quotes: converting quotes here would corrupt it"}
		s.role()
		s.header(c0, false)
		s.header(c1, false)
		i, j := 0, 0
		for i < len(c0.frags) || j < len(c1.frags) {
			switch {
			case i < len(c0.frags) && j < len(c1.frags) && i == 7:
				// One delta carrying fragments of both calls, as some servers send.
				s.chunk(obj{{"tool_calls", []any{toolFrag(c0, c0.frags[i]), toolFrag(c1, c1.frags[j])}}}, nil)
				i++
				j++
			case i < len(c0.frags) && (j >= len(c1.frags) || (i+j)%2 == 0):
				s.chunk(obj{{"tool_calls", []any{toolFrag(c0, c0.frags[i])}}}, nil)
				i++
			default:
				s.chunk(obj{{"tool_calls", []any{toolFrag(c1, c1.frags[j])}}}, nil)
				j++
			}
		}
		s.finish("tool_calls")
		s.end()
		oaScenario("two_calls_interleaved",
			"Two tool calls whose argument fragments alternate by index (one delta carries a fragment of each): call 0 is a Python dict to repair, call 1 valid JSON that must pass unchanged.",
			s, userZH, []*call{c0, c1}, "tool_calls", false)
	}

	// truncated_length
	seed("openai/truncated_length")
	{
		s := newOA("vllm")
		s.usage = true
		c := &call{index: 0, id: newCallID(), name: "TodoWrite", canon: "TodoWrite", truncated: true,
			frags: toks(`{"todos": [{'content': '创建项目结构和主程序文件', 'id': '1', 'status': 'in_progress'}, {'content': '实现添加、删除和列`),
			note:  "cut by max_tokens inside a Python-dict string: pass it through marked as truncated; the arguments the client sees must never parse as a complete JSON value"}
		s.role()
		s.text(toks("我先列出任务计划。"))
		s.header(c, false)
		s.frags(c)
		s.finish("length")
		s.end()
		oaScenario("truncated_length",
			"A Python-dict call cut off by the token limit (finish_reason length): never completed or closed into a valid call; finish_reason stays length; the text before it passes byte-for-byte.",
			s, userZH, []*call{c}, "length", false, kv{"max_tokens", 60})
	}

	// wrong_name_case
	seed("openai/wrong_name_case")
	{
		s := newOA("vllm")
		s.usage = true
		todo := `{"todos": [{"content": "Create todo.py", "id": "1", "status": "in_progress"}]}`
		c0 := &call{index: 0, id: newCallID(), name: "todowrite", canon: "TodoWrite", frags: toks(todo), want: todo, unchanged: true,
			note: "only the name is wrong: the request declared TodoWrite; the arguments text passes unchanged"}
		c1 := &call{index: 1, id: newCallID(), name: "Write", canon: "Write",
			frags: toks(`{"file_path": "todo.py", "content": "import sys\n"}`),
			want:  `{"path":"todo.py","content":"import sys\n"}`,
			note:  "file_path is not declared; the schema says path, and file_path is one of toolguard's shared aliases of path (param_groups in repair/builtin_tools.yaml)"}
		s.role()
		s.header(c0, false)
		s.frags(c0)
		s.header(c1, false)
		s.frags(c1)
		s.finish("tool_calls")
		s.end()
		oaScenario("wrong_name_case",
			"Names canonicalised to what the request declared (todowrite -> TodoWrite, not toolguard's built-in todo_write) and a parameter alias renamed (file_path -> path).",
			s, "Create todo.py.", []*call{c0, c1}, "tool_calls", false)
	}

	// crlf_framing: llama-cpp-python.
	seed("openai/crlf_framing")
	{
		s := newOA("llamacpp")
		c := &call{index: 0, id: newCallID(), name: "TodoWrite", canon: "TodoWrite", frags: toks(seedArgs), want: seedWant}
		s.comment("ping - 2025-06-15 10:23:45.123456+00:00")
		s.role()
		s.header(c, false)
		for i, f := range c.frags {
			if i == len(c.frags)/2 {
				s.comment("ping - 2025-06-15 10:24:00.124077+00:00")
			}
			s.chunk(obj{{"tool_calls", []any{toolFrag(c, f)}}}, nil)
		}
		s.finish("tool_calls")
		s.end()
		oaScenario("crlf_framing",
			`The seed's case from a llama-cpp-python server: CRLF line endings (sse-starlette), ": ping" comment events mid-stream, json.dumps spacing and ASCII escapes (the Chinese arrives as \uXXXX in the outer JSON). Comments and other events pass byte-for-byte, CRLF included.`,
			s, userZH, []*call{c}, "tool_calls", false)
	}

	// keepalive_comments: OpenRouter.
	seed("openai/keepalive_comments")
	{
		s := newOA("openrouter")
		args := `{"path": "README.md"}`
		c := &call{index: 0, id: newCallID(), name: "Read", canon: "Read", frags: toks(args), want: args, unchanged: true}
		s.comment("OPENROUTER PROCESSING")
		s.comment("OPENROUTER PROCESSING")
		s.chunk(obj{{"role", "assistant"}, {"content", ""}}, nil)
		s.chunk(obj{{"role", "assistant"}, {"content", ""}, {"tool_calls", []any{toolHeader(c)}}}, nil)
		s.frags(c)
		s.finish("tool_calls")
		s.end()
		oaScenario("keepalive_comments",
			`OpenRouter-style stream: ": OPENROUTER PROCESSING" comment events before the first chunk, extra fields (provider, native_finish_reason); valid arguments, the whole stream byte-identical.`,
			s, "Read the README.", []*call{c}, "tool_calls", true)
	}

	// python_dict_nonstream: vLLM, compact.
	seed("openai/python_dict_nonstream")
	{
		id := "chatcmpl-" + randStr(32, hexd)
		c := &call{index: 0, id: newCallID(), name: "TodoWrite", canon: "TodoWrite", frags: []string{seedArgs}, want: seedWant}
		c.check("openai/python_dict_nonstream")
		body := obj{{"id", id}, {"object", "chat.completion"}, {"created", 1750000000 + rng.IntN(20000000)}, {"model", "qwen3-coder-30b-a3b-instruct"},
			{"choices", []any{obj{{"index", 0}, {"message", obj{{"role", "assistant"}, {"reasoning_content", nil}, {"content", nil},
				{"tool_calls", []any{obj{{"id", c.id}, {"type", "function"}, {"function", obj{{"name", c.name}, {"arguments", c.args()}}}}}}}},
				{"logprobs", nil}, {"finish_reason", "tool_calls"}, {"stop_reason", nil}}}},
			{"usage", obj{{"prompt_tokens", 1187}, {"total_tokens", 1268}, {"completion_tokens", 81}, {"prompt_tokens_details", nil}}},
			{"prompt_logprobs", nil}}
		write("openai", "python_dict_nonstream", map[string][]byte{
			"request.json":  oaRequest("python_dict_nonstream", userZH, false),
			"response.json": []byte(enc(body, compact)),
		}, expect{Checks: "The seed's case without streaming: choices[0].message.tool_calls[0].function.arguments is a Python-dict string; it must be replaced by the JSON in `arguments`; everything else in the body keeps its value.",
			FinishReason: "tool_calls", Calls: []expCall{c.expect()}})
	}

	// valid_nonstream: api.openai.com, pretty-printed.
	seed("openai/valid_nonstream")
	{
		args := `{"path":"todo.py","content":"import sys\n\n\ndef main() -> int:\n    print(\"todo\")\n    return 0\n\n\nif __name__ == '__main__':\n    sys.exit(main())\n"}`
		c := &call{index: 0, id: newCallID(), name: "Write", canon: "Write", frags: []string{args}, want: args, unchanged: true}
		c.check("openai/valid_nonstream")
		body := obj{{"id", "chatcmpl-" + randStr(29, alnum)}, {"object", "chat.completion"}, {"created", 1750000000 + rng.IntN(20000000)}, {"model", "gpt-4.1-2025-04-14"},
			{"choices", []any{obj{{"index", 0}, {"message", obj{{"role", "assistant"}, {"content", nil},
				{"tool_calls", []any{obj{{"id", c.id}, {"type", "function"}, {"function", obj{{"name", c.name}, {"arguments", c.args()}}}}}},
				{"refusal", nil}, {"annotations", []any{}}}},
				{"logprobs", nil}, {"finish_reason", "tool_calls"}}}},
			{"usage", obj{{"prompt_tokens", 1042}, {"completion_tokens", 64}, {"total_tokens", 1106},
				{"prompt_tokens_details", obj{{"cached_tokens", 0}, {"audio_tokens", 0}}},
				{"completion_tokens_details", obj{{"reasoning_tokens", 0}, {"audio_tokens", 0}, {"accepted_prediction_tokens", 0}, {"rejected_prediction_tokens", 0}}}}},
			{"service_tier", "default"}, {"system_fingerprint", "fp_" + randStr(10, hexd)}}
		write("openai", "valid_nonstream", map[string][]byte{
			"request.json":  oaRequest("valid_nonstream", "Write a minimal todo.py.", false),
			"response.json": pretty(enc(body, compact)),
		}, expect{Checks: "A valid non-streamed call, pretty-printed as api.openai.com sends it: the body must come out byte-identical.",
			ByteIdentical: true, FinishReason: "tool_calls", Calls: []expCall{c.expect()}})
	}

	// rate_limited: an upstream error to pass through.
	seed("openai/rate_limited")
	{
		body := obj{{"error", obj{{"message", "Rate limit reached for gpt-4.1 in organization org-fake on tokens per min (TPM): Limit 30000, Used 29836, Requested 1180. Please try again in 2.032s."},
			{"type", "tokens"}, {"param", nil}, {"code", "rate_limit_exceeded"}}}}
		up := obj{{"status", 429}, {"headers", obj{{"retry-after", "3"}, {"x-ratelimit-remaining-tokens", "164"}}}}
		write("openai", "rate_limited", map[string][]byte{
			"request.json":  oaRequest("rate_limited", "Plan a small todo CLI in Python.", true),
			"response.json": pretty(enc(body, compact)),
			"upstream.json": pretty(enc(up, compact)),
		}, expect{Stream: true, Checks: "The upstream answers a streamed request with 429 and a JSON error: status, retry-after and body reach the client unchanged.",
			ByteIdentical: true, UpstreamStatus: 429})
	}
}

// ---------------------------------------------------------------------------
// Anthropic messages.

type an struct {
	id     string
	model  string
	events []string
	out    int
}

func newAN() *an {
	return &an{id: "msg_01" + randStr(22, alnum), model: "claude-sonnet-4-5-20250929"}
}

func (s *an) ev(typ string, data any) {
	js, ok := data.(string)
	if !ok {
		js = enc(data, compact)
	}
	s.events = append(s.events, "event: "+typ+"\ndata: "+js+"\n\n")
}

func (s *an) start() {
	s.ev("message_start", obj{{"type", "message_start"}, {"message", obj{{"id", s.id}, {"type", "message"}, {"role", "assistant"}, {"model", s.model},
		{"content", []any{}}, {"stop_reason", nil}, {"stop_sequence", nil},
		{"usage", obj{{"input_tokens", 1100 + rng.IntN(900)}, {"cache_creation_input_tokens", 0}, {"cache_read_input_tokens", 0},
			{"cache_creation", obj{{"ephemeral_5m_input_tokens", 0}, {"ephemeral_1h_input_tokens", 0}}}, {"output_tokens", 1}, {"service_tier", "standard"}}}}}})
}

func (s *an) ping() { s.ev("ping", `{"type": "ping"}`) }

func (s *an) blockStop(i int) {
	s.ev("content_block_stop", obj{{"type", "content_block_stop"}, {"index", i}})
}

func (s *an) textBlock(i int, parts []string) {
	s.ev("content_block_start", obj{{"type", "content_block_start"}, {"index", i}, {"content_block", obj{{"type", "text"}, {"text", ""}}}})
	for _, p := range parts {
		s.out++
		s.ev("content_block_delta", obj{{"type", "content_block_delta"}, {"index", i}, {"delta", obj{{"type", "text_delta"}, {"text", p}}}})
	}
	s.blockStop(i)
}

func (s *an) toolStart(c *call) {
	s.ev("content_block_start", obj{{"type", "content_block_start"}, {"index", c.index},
		{"content_block", obj{{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", obj{}}}}})
}

func (s *an) toolDelta(c *call, frag string) {
	s.out++
	s.ev("content_block_delta", obj{{"type", "content_block_delta"}, {"index", c.index}, {"delta", obj{{"type", "input_json_delta"}, {"partial_json", frag}}}})
}

// toolBlock streams a whole tool_use block; the API opens with an empty
// partial_json.
func (s *an) toolBlock(c *call) {
	s.toolStart(c)
	s.toolDelta(c, "")
	for _, f := range c.frags {
		s.toolDelta(c, f)
	}
	s.blockStop(c.index)
}

func (s *an) end(stop string) {
	s.ev("message_delta", obj{{"type", "message_delta"}, {"delta", obj{{"stop_reason", stop}, {"stop_sequence", nil}}}, {"usage", obj{{"output_tokens", s.out + 3}}}})
	s.ev("message_stop", obj{{"type", "message_stop"}})
}

func (s *an) sse() []byte { return []byte(strings.Join(s.events, "")) }

func newToolUseID() string { return "toolu_01" + randStr(22, alnum) }

func anTools() []any {
	var out []any
	for _, t := range tools {
		out = append(out, obj{{"name", t.name}, {"description", t.desc}, {"input_schema", t.schema}})
	}
	return out
}

func anRequest(name, user string, stream bool, maxTokens int, extra ...kv) []byte {
	r := obj{{"model", name}, {"max_tokens", maxTokens}, {"system", systemPrompt},
		{"messages", []any{userMsg(user)}}, {"tools", anTools()}}
	r = append(r, extra...)
	r = append(r, kv{"stream", stream})
	return pretty(enc(r, compact))
}

func anScenario(name, checks string, s *an, user string, calls []*call, stop string, byteIdentical bool, maxTokens int, extra ...kv) {
	exp := expect{Stream: true, Checks: checks, ByteIdentical: byteIdentical, StopReason: stop}
	for _, c := range calls {
		c.check("anthropic/" + name)
		exp.Calls = append(exp.Calls, c.expect())
	}
	write("anthropic", name, map[string][]byte{"request.json": anRequest(name, user, true, maxTokens, extra...), "response.sse": s.sse()}, exp)
}

func anthropicScenarios() {
	seed("anthropic/python_dict_todowrite")
	{
		s := newAN()
		c := &call{index: 1, id: newToolUseID(), name: "TodoWrite", canon: "TodoWrite", frags: toks(seedArgs), want: seedWant}
		s.start()
		s.ping()
		s.textBlock(0, toks("我先用任务列表规划一下。"))
		s.toolBlock(c)
		s.end("tool_use")
		anScenario("python_dict_todowrite",
			"The seed's case in the Anthropic shape: a text block, then a tool_use block whose input_json_delta fragments spell a Python dict; the concatenated partial_json the client sees must be the JSON in `arguments`. Other events, ping included, byte-for-byte.",
			s, userZH, []*call{c}, "tool_use", false, 4096)
	}

	seed("anthropic/valid_args_unchanged")
	{
		s := newAN()
		args := `{"todos": [{"content": "Create the project layout", "id": "1", "status": "in_progress"}, {"content": "Handle the user's input in main.py", "id": "2", "status": "pending"}]}`
		c := &call{index: 2, id: newToolUseID(), name: "TodoWrite", canon: "TodoWrite", frags: toks(args), want: args, unchanged: true}
		s.start()
		s.ev("content_block_start", obj{{"type", "content_block_start"}, {"index", 0}, {"content_block", obj{{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}}})
		for _, p := range []string{"The user wants a small todo CLI.", " I should plan the work first", " with the TodoWrite tool."} {
			s.ev("content_block_delta", obj{{"type", "content_block_delta"}, {"index", 0}, {"delta", obj{{"type", "thinking_delta"}, {"thinking", p}}}})
		}
		s.ev("content_block_delta", obj{{"type", "content_block_delta"}, {"index", 0}, {"delta", obj{{"type", "signature_delta"}, {"signature", "Eo4CCkYIBxgCKkD" + randStr(120, alnum) + "=="}}}})
		s.blockStop(0)
		s.ping()
		s.textBlock(1, toks("I'll plan the work first."))
		s.toolBlock(c)
		s.end("tool_use")
		anScenario("valid_args_unchanged",
			"A thinking block (thinking_delta, signature_delta), a text block and a tool_use block with valid JSON input (an apostrophe inside a string): nothing to repair, the whole stream byte-identical.",
			s, "Plan a small todo CLI in Python.", []*call{c}, "tool_use", true, 8192, kv{"thinking", obj{{"type", "enabled"}, {"budget_tokens", 2048}}})
	}

	seed("anthropic/no_tool_calls")
	{
		s := newAN()
		s.start()
		s.ping()
		s.textBlock(0, toks("可以。Python 里的字典是这样写的：`{'content': '示例', 'id': '1'}`，而 JSON 要用双引号：`{\"content\": \"示例\"}`。\n\n😀 需要我创建文件吗？"))
		s.ping()
		s.end("end_turn")
		anScenario("no_tool_calls",
			"Text only, though tools were declared; the text holds a Python dict that must not be touched. The whole stream, ping events included, byte-identical.",
			s, "Python 的字典和 JSON 有什么区别？", nil, "end_turn", true, 4096)
	}

	seed("anthropic/split_every_byte")
	{
		s := newAN()
		args := `{"todos": [{'content': 'Fix the "--help" flag', 'id': '1', 'status': 'in_progress'}, {'content': '更新文档', 'id': '2', 'status': 'pending'}]}`
		want := `{"todos":[{"content":"Fix the \"--help\" flag","id":"1","status":"in_progress"},{"content":"更新文档","id":"2","status":"pending"}]}`
		c := &call{index: 0, id: newToolUseID(), name: "TodoWrite", canon: "TodoWrite", frags: everyByte(args), want: want}
		s.start()
		s.toolBlock(c)
		s.end("tool_use")
		anScenario("split_every_byte",
			"Python-dict input streamed one byte per input_json_delta (multi-byte characters whole), double quotes inside a value.",
			s, "Fix the --help flag and update the docs.", []*call{c}, "tool_use", false, 4096)
	}

	seed("anthropic/unicode_escape_split")
	{
		s := newAN()
		c0 := &call{index: 1, id: newToolUseID(), name: "TodoWrite", canon: "TodoWrite",
			frags: cat(toks(`{"todos": [{"content": "Ajouter le menu caf`), []string{`\`, `u00`, `e9 \ud83d`, `\ude`, `00 du jour", "id": "1", "status": "pending"}]}`}),
			want:  `{"todos":[{"content":"Ajouter le menu café 😀 du jour","id":"1","status":"pending"}]}`, unchanged: true,
			note: `\u00e9 split after the backslash and inside the hex digits; the surrogate pair \ud83d\ude00 split between and inside its halves.`}
		c1 := &call{index: 2, id: newToolUseID(), name: "Write", canon: "Write",
			frags: cat(toks(`{'path': 'menu.txt', 'content': 'Caf`), []string{`\u00`, `e9 cr\`, `u00e8me br\u00fb`, `l\u00e`, `9e\n'}`}),
			want:  `{"path":"menu.txt","content":"Café crème brûlée\n"}`,
			note:  `Python-dict input whose \uXXXX escapes are split across events.`}
		s.start()
		s.textBlock(0, toks("Je prépare le menu."))
		s.toolBlock(c0)
		s.toolBlock(c1)
		s.end("tool_use")
		anScenario("unicode_escape_split",
			`\uXXXX escapes inside input strings split across input_json_delta events: block 1 is valid JSON and must pass byte-identical, block 2 a Python dict to repair.`,
			s, "Écris le menu du café dans menu.txt.", []*call{c0, c1}, "tool_use", false, 4096)
	}

	seed("anthropic/two_calls_interleaved")
	{
		s := newAN()
		c0 := &call{index: 0, id: newToolUseID(), name: "TodoWrite", canon: "TodoWrite",
			frags: toks(`{"todos": [{'content': '创建项目结构和主程序文件', 'id': '1', 'status': 'in_progress'}, {'content': '编写单元测试', 'id': '2', 'status': 'pending'}]}`),
			want:  `{"todos":[{"content":"创建项目结构和主程序文件","id":"1","status":"in_progress"},{"content":"编写单元测试","id":"2","status":"pending"}]}`}
		c1 := &call{index: 1, id: newToolUseID(), name: "Write", canon: "Write",
			frags: toks(`{"path": "todo.py", "content": "def main():\n    print('hello')\n\n\nif __name__ == '__main__':\n    main()\n"}`),
			want:  `{"path":"todo.py","content":"def main():\n    print('hello')\n\n\nif __name__ == '__main__':\n    main()\n"}`, unchanged: true,
			note: "valid JSON whose content holds single quotes: converting quotes here would corrupt it"}
		s.start()
		s.toolStart(c0)
		s.toolStart(c1)
		s.toolDelta(c0, "")
		s.toolDelta(c1, "")
		i, j := 0, 0
		for i < len(c0.frags) || j < len(c1.frags) {
			if i < len(c0.frags) && (j >= len(c1.frags) || (i+j)%2 == 0) {
				s.toolDelta(c0, c0.frags[i])
				i++
			} else {
				s.toolDelta(c1, c1.frags[j])
				j++
			}
		}
		s.blockStop(0)
		s.blockStop(1)
		s.end("tool_use")
		anScenario("two_calls_interleaved",
			"Two tool_use blocks open at once with their input_json_delta events alternating by index. api.anthropic.com sends blocks one after the other; compatible servers translating parallel OpenAI calls may not. Block 0 a Python dict to repair, block 1 valid JSON unchanged.",
			s, userZH, []*call{c0, c1}, "tool_use", false, 4096)
	}

	seed("anthropic/truncated_length")
	{
		s := newAN()
		c := &call{index: 1, id: newToolUseID(), name: "Write", canon: "Write", truncated: true,
			frags: toks(`{"path": "todo.py", "content": "import sys\n\n\ndef main():\n    todos = []\n    for line in sys.std`),
			note:  "cut by max_tokens inside a JSON string: pass it through marked as truncated; the input the client sees must never parse as a complete JSON value"}
		s.start()
		s.textBlock(0, toks("I'll write the main program."))
		s.toolBlock(c)
		s.end("max_tokens")
		anScenario("truncated_length",
			"A tool_use block cut off by max_tokens (stop_reason max_tokens; the block is still closed by content_block_stop): never completed into a valid call; stop_reason stays max_tokens.",
			s, "Write todo.py.", []*call{c}, "max_tokens", false, 64)
	}

	seed("anthropic/wrong_name_case")
	{
		s := newAN()
		todo := `{"todos": [{"content": "Create todo.py", "id": "1", "status": "in_progress"}]}`
		c0 := &call{index: 0, id: newToolUseID(), name: "todowrite", canon: "TodoWrite", frags: toks(todo), want: todo, unchanged: true,
			note: "only the name is wrong: the request declared TodoWrite; the input text passes unchanged"}
		c1 := &call{index: 1, id: newToolUseID(), name: "Write", canon: "Write",
			frags: toks(`{"file_path": "todo.py", "content": "import sys\n"}`),
			want:  `{"path":"todo.py","content":"import sys\n"}`,
			note:  "file_path is not declared; the schema says path, and file_path is one of toolguard's shared aliases of path (param_groups in repair/builtin_tools.yaml)"}
		s.start()
		s.toolBlock(c0)
		s.toolBlock(c1)
		s.end("tool_use")
		anScenario("wrong_name_case",
			"Names canonicalised to what the request declared (todowrite -> TodoWrite, not toolguard's built-in todo_write) and a parameter alias renamed (file_path -> path).",
			s, "Create todo.py.", []*call{c0, c1}, "tool_use", false, 4096)
	}

	seed("anthropic/stream_error_midway")
	{
		s := newAN()
		c := &call{index: 0, id: newToolUseID(), name: "TodoWrite", canon: "TodoWrite", truncated: true,
			frags: toks(`{"todos": [{"content": "Create the project layout", "id": "1", "stat`),
			note:  "the upstream gave up mid-block: no content_block_stop, no message_delta"}
		s.start()
		s.toolStart(c)
		s.toolDelta(c, "")
		for _, f := range c.frags {
			s.toolDelta(c, f)
		}
		s.ev("error", `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`)
		anScenario("stream_error_midway",
			"The upstream sends an error event in the middle of a tool_use block and ends the stream: the error event reaches the client byte-for-byte and the call is never completed.",
			s, userZH, []*call{c}, "", false, 4096)
	}

	seed("anthropic/python_dict_nonstream")
	{
		input := `{"todos":"[{'content': '创建项目结构和主程序文件', 'id': '1', 'status': 'in_progress'}, {'content': '实现添加、删除和列出待办事项的功能', 'id': '2', 'status': 'pending'}, {'content': '编写单元测试', 'id': '3', 'status': 'pending'}]"}`
		c := &call{index: 1, id: newToolUseID(), name: "TodoWrite", canon: "TodoWrite", frags: []string{input}, want: seedWant,
			note: "input is an object, as the API requires, but todos arrived as a Python-literal string (what a compatible server does with arguments it could not parse): it must become the array"}
		c.check("anthropic/python_dict_nonstream")
		body := obj{{"id", "msg_01" + randStr(22, alnum)}, {"type", "message"}, {"role", "assistant"}, {"model", "qwen3-coder-30b-a3b-instruct"},
			{"content", []any{obj{{"type", "text"}, {"text", "我先用任务列表规划一下。"}},
				obj{{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", raw(input)}}}},
			{"stop_reason", "tool_use"}, {"stop_sequence", nil},
			{"usage", obj{{"input_tokens", 1532}, {"cache_creation_input_tokens", 0}, {"cache_read_input_tokens", 0}, {"output_tokens", 97}}}}
		write("anthropic", "python_dict_nonstream", map[string][]byte{
			"request.json":  anRequest("python_dict_nonstream", userZH, false, 4096),
			"response.json": []byte(enc(body, compact)),
		}, expect{Checks: "The seed's case without streaming: content[1] is a tool_use whose input.todos is a Python-literal string instead of an array; the repaired input is `arguments`, the text block and the rest of the body keep their values.",
			StopReason: "tool_use", Calls: []expCall{c.expect()}})
	}

	seed("anthropic/valid_nonstream")
	{
		input := `{"path":"todo.py","content":"import sys\n\n\ndef main() -> int:\n    print(\"todo\")\n    return 0\n\n\nif __name__ == '__main__':\n    sys.exit(main())\n"}`
		c := &call{index: 1, id: newToolUseID(), name: "Write", canon: "Write", frags: []string{input}, want: input, unchanged: true}
		c.check("anthropic/valid_nonstream")
		body := obj{{"id", "msg_01" + randStr(22, alnum)}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-sonnet-4-5-20250929"},
			{"content", []any{obj{{"type", "text"}, {"text", "I'll write the main program."}},
				obj{{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", raw(input)}}}},
			{"stop_reason", "tool_use"}, {"stop_sequence", nil},
			{"usage", obj{{"input_tokens", 1490}, {"cache_creation_input_tokens", 0}, {"cache_read_input_tokens", 0},
				{"cache_creation", obj{{"ephemeral_5m_input_tokens", 0}, {"ephemeral_1h_input_tokens", 0}}}, {"output_tokens", 88}, {"service_tier", "standard"}}}}
		write("anthropic", "valid_nonstream", map[string][]byte{
			"request.json":  anRequest("valid_nonstream", "Write a minimal todo.py.", false, 4096),
			"response.json": []byte(enc(body, compact)),
		}, expect{Checks: "A valid non-streamed tool_use: the body must come out byte-identical.",
			ByteIdentical: true, StopReason: "tool_use", Calls: []expCall{c.expect()}})
	}

	seed("anthropic/overloaded")
	{
		body := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CV` + randStr(18, alnum) + `"}`
		up := obj{{"status", 529}, {"headers", obj{{"x-should-retry", "true"}}}}
		write("anthropic", "overloaded", map[string][]byte{
			"request.json":  anRequest("overloaded", "Plan a small todo CLI in Python.", true, 4096),
			"response.json": []byte(body),
			"upstream.json": pretty(enc(up, compact)),
		}, expect{Stream: true, Checks: "The upstream answers a streamed request with 529 overloaded_error: status, headers and body reach the client unchanged.",
			ByteIdentical: true, UpstreamStatus: 529})
	}
}

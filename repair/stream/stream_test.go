package stream

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// piece is one input to a parser: text, or a structured call fragment.
type piece struct {
	text  string
	delta *ToolDelta
}

func text(s string) piece { return piece{text: s} }

func frag(index int, id, name, args string) piece {
	return piece{delta: &ToolDelta{Index: index, ID: id, Name: name, Arguments: args}}
}

func done(index int) piece { return piece{delta: &ToolDelta{Index: index, Done: true}} }

// closed is a call as the parser closed it, in a comparable form.
type closed struct {
	Index     int
	ID        string
	Name      string
	Form      repair.Form
	Text      string
	Params    map[string]string
	Repairs   []repair.Repair
	Truncated bool
	// Unparseable is why a pythonic call was refused.
	Unparseable string
}

// outcome is everything a run produced, joined: what must not depend on
// how the input was split.
type outcome struct {
	Text   string
	Calls  []closed
	Starts map[int]string
	// Shown joins each call's parameter previews: string growth
	// concatenated, non-string values as "json:" + the value.
	Shown  map[int]map[string]string
	Errors []string
}

// collector records events and checks the stream's invariants as they
// arrive: a call starts before anything else about it, a parameter's value
// never changes type, and a non-string value is shown once.
type collector struct {
	t      testing.TB
	out    outcome
	kinds  map[int]map[string]string // "text" or "json" per shown parameter
	closed map[int]bool
}

func newCollector(t testing.TB) *collector {
	return &collector{t: t, out: outcome{Starts: map[int]string{}, Shown: map[int]map[string]string{}},
		kinds: map[int]map[string]string{}, closed: map[int]bool{}}
}

func (c *collector) event(e Event) {
	c.t.Helper()
	switch e.Kind {
	case EventText:
		if e.Text == "" {
			c.t.Errorf("empty text event")
		}
		c.out.Text += e.Text
	case EventCallStarted:
		if _, dup := c.out.Starts[e.Index]; dup {
			c.t.Errorf("call %d started twice", e.Index)
		}
		c.out.Starts[e.Index] = e.Name
		c.out.Shown[e.Index] = map[string]string{}
		c.kinds[e.Index] = map[string]string{}
	case EventParam:
		if _, ok := c.out.Starts[e.Index]; !ok || c.closed[e.Index] {
			c.t.Errorf("parameter %q of call %d shown outside the call", e.Param, e.Index)
			return
		}
		kind := "text"
		if e.JSON != "" {
			kind = "json"
		}
		switch prev := c.kinds[e.Index][e.Param]; {
		case prev == "":
			c.kinds[e.Index][e.Param] = kind
		case prev != kind:
			c.t.Errorf("call %d parameter %q changed type from %s to %s", e.Index, e.Param, prev, kind)
		case kind == "json":
			c.t.Errorf("call %d parameter %q shown twice as JSON", e.Index, e.Param)
		}
		if kind == "json" {
			c.out.Shown[e.Index][e.Param] = "json:" + e.JSON
		} else {
			c.out.Shown[e.Index][e.Param] += e.Text
		}
	case EventCallClosed:
		if _, ok := c.out.Starts[e.Index]; !ok {
			c.t.Errorf("call %d closed before it started", e.Index)
		}
		c.closed[e.Index] = true
		c.out.Calls = append(c.out.Calls, closed{Index: e.Index, ID: e.ID, Name: e.Name, Form: e.Call.Form,
			Text: e.Call.Text, Params: e.Call.Params, Repairs: e.Call.Repairs, Truncated: e.Truncated, Unparseable: e.Call.Unparseable})
	case EventError:
		c.out.Errors = append(c.out.Errors, e.Code)
	}
}

// feed runs pieces through a new parser and returns the outcome.
func feed(t testing.TB, f Format, opts Options, pieces []piece, lengthLimit bool) outcome {
	t.Helper()
	c := newCollector(t)
	p, err := New(f, opts, c.event)
	if err != nil {
		t.Fatal(err)
	}
	for _, pc := range pieces {
		if pc.delta != nil {
			err = p.ToolDelta(*pc.delta)
		} else {
			err = p.Text(pc.text)
		}
		if err != nil {
			t.Fatalf("feed: %v", err)
		}
	}
	if err := p.End(lengthLimit); err != nil {
		t.Fatal(err)
	}
	return c.out
}

// resplit splits every piece's text (text, arguments) into parts at the
// cut points chosen by cuts.
func resplit(pieces []piece, cuts func(n int) []int) []piece {
	var out []piece
	for _, pc := range pieces {
		s := pc.text
		if pc.delta != nil {
			s = pc.delta.Arguments
		}
		at := cuts(len(s))
		prev := 0
		var parts []string
		for _, k := range at {
			if k > prev && k < len(s) {
				parts = append(parts, s[prev:k])
				prev = k
			}
		}
		parts = append(parts, s[prev:])
		for i, part := range parts {
			if pc.delta == nil {
				out = append(out, text(part))
				continue
			}
			d := ToolDelta{Index: pc.delta.Index, Arguments: part}
			if i == 0 {
				d.ID, d.Name = pc.delta.ID, pc.delta.Name
			}
			if i == len(parts)-1 {
				d.Done = pc.delta.Done
			}
			out = append(out, piece{delta: &d})
		}
	}
	return out
}

// joined gathers every text piece into one and every call's fragments into
// one, in first-appearance order: the same response in as few pieces as
// possible.
func joined(pieces []piece) []piece {
	var out []piece
	for _, pc := range pieces {
		n := len(out)
		if pc.delta == nil && n > 0 && out[n-1].delta == nil {
			out[n-1].text += pc.text
			continue
		}
		out = append(out, pc)
	}
	return out
}

var xmlTools = map[string]ToolTags{
	"write_to_file":       {Params: map[string]bool{"path": false, "content": true}},
	"replace_in_file":     {Params: map[string]bool{"path": false, "diff": true}},
	"read_file":           {Params: map[string]bool{"path": false}},
	"attempt_completion":  {Params: map[string]bool{"result": false}},
	"add_semantic_memory": {Params: map[string]bool{"memory_text": false, "memory_tags": false}},
	"list_files":          {Params: map[string]bool{"path": false, "recursive": false}},
}

type streamCase struct {
	name        string
	format      Format
	pieces      []piece
	lengthLimit bool
	want        outcome
}

func streamCases() []streamCase {
	return slices.Concat(tagCases(), jsonFormatCases(), autoCases(), dialectCases(), valueTagCases())
}

func tagCases() []streamCase {
	write := "<write_to_file>\n<path>a.go</path>\n<content>\npackage a\n</content>\n</write_to_file>"
	return append([]streamCase{
		{
			name:   "xml_tags write in prose",
			format: XMLTags,
			pieces: []piece{text("I'll write it.\n\n" + write + "\n\nDone.")},
			want: outcome{
				Text:   "I'll write it.\n\n\n\nDone.",
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.go", "content": "package a"}},
				Calls:  []closed{{Index: 0, Name: "write_to_file", Form: repair.FormXML, Text: write}},
			},
		},
		{
			name:   "xml_tags content holding its own closing tag and the tool's",
			format: XMLTags,
			pieces: []piece{text("<write_to_file><path>doc.md</path><content>use </content> then </write_to_file> to end\n</content></write_to_file>")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "doc.md", "content": "use </content> then </write_to_file> to end"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormXML,
					Text: "<write_to_file><path>doc.md</path><content>use </content> then </write_to_file> to end\n</content></write_to_file>"}},
			},
		},
		{
			name:   "xml_tags custom tool with its own parameter names",
			format: XMLTags,
			pieces: []piece{text("<add_semantic_memory>\n<memory_text>likes <b>tea</b></memory_text>\n<memory_tags>a,b</memory_tags>\n</add_semantic_memory>")},
			want: outcome{
				Starts: map[int]string{0: "add_semantic_memory"},
				Shown:  map[int]map[string]string{0: {"memory_text": "likes <b>tea</b>", "memory_tags": "a,b"}},
				Calls: []closed{{Index: 0, Name: "add_semantic_memory", Form: repair.FormXML,
					Text: "<add_semantic_memory>\n<memory_text>likes <b>tea</b></memory_text>\n<memory_tags>a,b</memory_tags>\n</add_semantic_memory>"}},
			},
		},
		{
			name:   "xml_tags two calls in one delta, unknown tags are text",
			format: XMLTags,
			pieces: []piece{text("<b>x</b><read_file><path>a</path></read_file><read_file><path>b</path></read_file>\n<read_fil")},
			want: outcome{
				Text:   "<b>x</b>\n<read_fil",
				Starts: map[int]string{0: "read_file", 1: "read_file"},
				Shown:  map[int]map[string]string{0: {"path": "a"}, 1: {"path": "b"}},
				Calls: []closed{
					{Index: 0, Name: "read_file", Form: repair.FormXML, Text: "<read_file><path>a</path></read_file>"},
					{Index: 1, Name: "read_file", Form: repair.FormXML, Text: "<read_file><path>b</path></read_file>"},
				},
			},
		},
		{
			name:   "xml_tags zero-argument call",
			format: XMLTags,
			pieces: []piece{text("<list_files></list_files>")},
			want: outcome{
				Starts: map[int]string{0: "list_files"},
				Shown:  map[int]map[string]string{0: {}},
				Calls:  []closed{{Index: 0, Name: "list_files", Form: repair.FormXML, Text: "<list_files></list_files>"}},
			},
		},
		{
			name:   "xml_tags truncated mid-value",
			format: XMLTags,
			pieces: []piece{text("ok <write_to_file><path>a.txt</path><content>héllo wor")},
			want: outcome{
				Text:   "ok ",
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.txt", "content": "héllo wor"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormXML, Truncated: true,
					Text: "<write_to_file><path>a.txt</path><content>héllo wor"}},
			},
		},
		{
			name:   "xml_tags tool named in a wrapper's attribute, content holding the wrapper's closing tag",
			format: XMLTags,
			pieces: []piece{text("Now: <tool name=\"write_to_file\">\n<path>a.md</path>\n<content>\nend with </tool>\n</content>\n</tool>\ndone <tool name=\"rm\">x</tool>")},
			want: outcome{
				Text:   "Now: \ndone <tool name=\"rm\">x</tool>",
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.md", "content": "end with </tool>"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormXML,
					Text: "<tool name=\"write_to_file\">\n<path>a.md</path>\n<content>\nend with </tool>\n</content>\n</tool>"}},
			},
		},
		{
			name:   "openai two calls, braces and escapes in strings",
			format: OpenAI,
			pieces: []piece{
				text("Let me "), text("look."),
				frag(0, "call_a", "write_to_file", `{"path": "a.json", "content": "{\"k\": [1, \"}\"]}\n\u00e9\ud83d\ude00 </content>"}`),
				frag(1, "call_b", "read_file", `{"path":"b.txt","limit":20,"opts":{"x":[1,{"y":null}]},"flag":True}`),
			},
			want: outcome{
				Text:   "Let me look.",
				Starts: map[int]string{0: "write_to_file", 1: "read_file"},
				Shown: map[int]map[string]string{
					0: {"path": "a.json", "content": "{\"k\": [1, \"}\"]}\né😀 </content>"},
					1: {"path": "b.txt", "limit": "json:20", "opts": `json:{"x":[1,{"y":null}]}`, "flag": "json:true"},
				},
				Calls: []closed{
					{Index: 0, ID: "call_a", Name: "write_to_file", Form: repair.FormText, Text: `{"path": "a.json", "content": "{\"k\": [1, \"}\"]}\n\u00e9\ud83d\ude00 </content>"}`},
					{Index: 1, ID: "call_b", Name: "read_file", Form: repair.FormText, Text: `{"path":"b.txt","limit":20,"opts":{"x":[1,{"y":null}]},"flag":True}`},
				},
			},
		},
		{
			name:   "openai zero-argument call and a Python dict",
			format: OpenAI,
			pieces: []piece{
				frag(0, "c0", "list_files", ""),
				frag(1, "c1", "todo_write", `{'todos': [{'id': '1', 'content': "it's", 'status': 'pending'}]}`),
			},
			want: outcome{
				Starts: map[int]string{0: "list_files", 1: "todo_write"},
				Shown: map[int]map[string]string{0: {}, 1: {
					"todos": `json:[{"content":"it's","id":"1","status":"pending"}]`}},
				Calls: []closed{
					{Index: 0, ID: "c0", Name: "list_files", Form: repair.FormText},
					{Index: 1, ID: "c1", Name: "todo_write", Form: repair.FormText, Text: `{'todos': [{'id': '1', 'content': "it's", 'status': 'pending'}]}`},
				},
			},
		},
		{
			name:        "openai truncated by the length limit",
			format:      OpenAI,
			lengthLimit: true,
			pieces:      []piece{frag(0, "c0", "write_to_file", `{"path": "a", "content": "abc`)},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a", "content": "abc"}},
				Calls:  []closed{{Index: 0, ID: "c0", Name: "write_to_file", Form: repair.FormText, Text: `{"path": "a", "content": "abc`, Truncated: true}},
			},
		},
		{
			name:   "anthropic blocks with stops, one left open",
			format: Anthropic,
			pieces: []piece{
				text("Checking."),
				frag(1, "toolu_1", "custom_lookup", ""), frag(1, "", "", `{"query_text": "a \"b\" {c}", "top_k": 3}`), done(1),
				frag(2, "toolu_2", "read_file", `{"path": "x`),
			},
			want: outcome{
				Text:   "Checking.",
				Starts: map[int]string{1: "custom_lookup", 2: "read_file"},
				Shown:  map[int]map[string]string{1: {"query_text": `a "b" {c}`, "top_k": "json:3"}, 2: {"path": "x"}},
				Calls: []closed{
					{Index: 1, ID: "toolu_1", Name: "custom_lookup", Form: repair.FormText, Text: `{"query_text": "a \"b\" {c}", "top_k": 3}`},
					{Index: 2, ID: "toolu_2", Name: "read_file", Form: repair.FormText, Text: `{"path": "x`, Truncated: true},
				},
			},
		},
		{
			name:   "hermes calls with tags in strings",
			format: Hermes,
			pieces: []piece{text("Sure.\n<tool_call>\n{\"name\": \"write_to_file\", \"arguments\": {\"path\": \"t.xml\", \"content\": \"<tool_call></tool_call>\\n\"}}\n</tool_call>\n<tool_call>{\"name\": \"list_files\"}</tool_call>")},
			want: outcome{
				Text:   "Sure.\n",
				Starts: map[int]string{0: "write_to_file", 1: "list_files"},
				Shown:  map[int]map[string]string{0: {"path": "t.xml", "content": "<tool_call></tool_call>\n"}, 1: {}},
				Calls: []closed{
					{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: `{"path": "t.xml", "content": "<tool_call></tool_call>\n"}`},
					{Index: 1, Name: "list_files", Form: repair.FormText},
				},
			},
		},
		{
			name:   "hermes Python dict falls back to JSON repair",
			format: Hermes,
			pieces: []piece{text("<tool_call>{'name': 'read_file', 'arguments': {'path': 'a'}}</tool_call>")},
			want: outcome{
				Starts: map[int]string{0: "read_file"},
				Shown:  map[int]map[string]string{0: {"path": "a"}},
				Calls:  []closed{{Index: 0, Name: "read_file", Form: repair.FormText, Text: `{'path': 'a'}`}},
			},
		},
		{
			name:   "hermes truncated",
			format: Hermes,
			pieces: []piece{text("<tool_call>{\"name\": \"write_to_file\", \"arguments\": {\"path\": \"a\", \"content\": \"ab")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a", "content": "ab"}},
				Calls:  []closed{{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: `{"path": "a", "content": "ab`, Truncated: true}},
			},
		},
		{
			name:   "qwen_xml with wrapper, values holding the closing tags",
			format: QwenXML,
			pieces: []piece{text("Writing.\n<tool_call>\n<function=write_to_file>\n<parameter=path>\nx.txt\n</parameter>\n<parameter=content>\nsee </function> and </parameter> here\n</parameter>\n</function>\n</tool_call>")},
			want: outcome{
				Text:   "Writing.\n",
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "x.txt", "content": "see </function> and </parameter> here"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams,
					Params: map[string]string{"path": "x.txt", "content": "see </function> and </parameter> here"}}},
			},
		},
		{
			name:   "qwen_xml zero arguments and a custom tool",
			format: QwenXML,
			pieces: []piece{text("<function=list_files>\n</function><function=add_semantic_memory><parameter=memory_text>x</parameter></function>")},
			want: outcome{
				Starts: map[int]string{0: "list_files", 1: "add_semantic_memory"},
				Shown:  map[int]map[string]string{0: {}, 1: {"memory_text": "x"}},
				Calls: []closed{
					{Index: 0, Name: "list_files", Form: repair.FormParams, Params: map[string]string{}},
					{Index: 1, Name: "add_semantic_memory", Form: repair.FormParams, Params: map[string]string{"memory_text": "x"}},
				},
			},
		},
		{
			name:   "qwen3-coder leaves out a </parameter>: the next parameter at a line start ends the value",
			format: QwenXML,
			pieces: []piece{text("<tool_call>\n<function=get_weather>\n<parameter=city>\nDallas\n<parameter=state>\nTX\n</parameter>\n</function>\n</tool_call>")},
			want: outcome{
				Starts: map[int]string{0: "get_weather"},
				Shown:  map[int]map[string]string{0: {"city": "Dallas", "state": "TX"}},
				Calls: []closed{{Index: 0, Name: "get_weather", Form: repair.FormParams,
					Params: map[string]string{"city": "Dallas", "state": "TX"},
					Repairs: []repair.Repair{{Code: repair.CodeXMLRepaired, Param: "city",
						Detail: `the value of "city" had no closing tag </parameter>; it ended where parameter "state" opened on the next line`}}}},
			},
		},
		{
			name:   "qwen3-coder leaves out a </parameter> before the content, CRLF lines",
			format: QwenXML,
			pieces: []piece{text("<function=write_to_file>\r\n<parameter=path>\r\nsrc/a.py\r\n<parameter=content>\r\nprint(1)\r\n</parameter>\r\n</function>")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "src/a.py", "content": "print(1)"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams,
					Params: map[string]string{"path": "src/a.py", "content": "print(1)"},
					Repairs: []repair.Repair{{Code: repair.CodeXMLRepaired, Param: "path",
						Detail: `the value of "path" had no closing tag </parameter>; it ended where parameter "content" opened on the next line`}}}},
			},
		},
		{
			name:   "qwen_xml content quoting parameter tags: undeclared, already met or mid-line, they stay text",
			format: QwenXML,
			pieces: []piece{text("<function=write_to_file>\n<parameter=path>\ndoc.md\n</parameter>\n<parameter=content>\nx <parameter=content>\n<parameter=city>\nDallas\n<parameter=path>\n<parameter=content>\n</parameter>\n</function>")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "doc.md", "content": "x <parameter=content>\n<parameter=city>\nDallas\n<parameter=path>\n<parameter=content>"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams,
					Params: map[string]string{"path": "doc.md", "content": "x <parameter=content>\n<parameter=city>\nDallas\n<parameter=path>\n<parameter=content>"}}},
			},
		},
		{
			name:   "qwen_xml a parameter tag mid-line does not end the value",
			format: QwenXML,
			pieces: []piece{text("<function=get_weather><parameter=city>Dallas <parameter=state>TX</parameter></function>")},
			want: outcome{
				Starts: map[int]string{0: "get_weather"},
				Shown:  map[int]map[string]string{0: {"city": "Dallas <parameter=state>TX"}},
				Calls: []closed{{Index: 0, Name: "get_weather", Form: repair.FormParams,
					Params: map[string]string{"city": "Dallas <parameter=state>TX"}}},
			},
		},
		{
			name:   "minimax leaves out a </parameter>: the next parameter at a line start ends the value",
			format: MiniMax,
			pieces: []piece{text("<minimax:tool_call>\n<invoke name=\"write_to_file\">\n<parameter name=\"path\">a.txt\n<parameter name=\"content\">hi\n</parameter>\n</invoke>\n</minimax:tool_call>")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.txt", "content": "hi"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams,
					Params: map[string]string{"path": "a.txt", "content": "hi"},
					Repairs: []repair.Repair{{Code: repair.CodeXMLRepaired, Param: "path",
						Detail: `the value of "path" had no closing tag </parameter>; it ended where parameter "content" opened on the next line`}}}},
			},
		},
		{
			name:   "qwen3-coder output that is only tool calls has no text",
			format: QwenXML,
			pieces: []piece{text("\n<tool_call>\n<function=read_file>\n<parameter=path>\na.go\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=read_file>\n<parameter=path>\nb.go\n</parameter>\n</function>\n</tool_call>\n")},
			want: outcome{
				Starts: map[int]string{0: "read_file", 1: "read_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.go"}, 1: {"path": "b.go"}},
				Calls: []closed{
					{Index: 0, Name: "read_file", Form: repair.FormParams, Params: map[string]string{"path": "a.go"}},
					{Index: 1, Name: "read_file", Form: repair.FormParams, Params: map[string]string{"path": "b.go"}},
				},
			},
		},
		{
			name:   "qwen3-coder prose before, between and after calls is kept exactly",
			format: QwenXML,
			pieces: []piece{text("Let me look.\n\n<tool_call>\n<function=read_file>\n<parameter=path>\na.go\n</parameter>\n</function>\n</tool_call>\n  Then < this one:\n<tool_call>\n<function=list_files>\n</function>\n</tool_call>\n\nDone.\n")},
			want: outcome{
				Text:   "Let me look.\n\n\n  Then < this one:\n\n\nDone.\n",
				Starts: map[int]string{0: "read_file", 1: "list_files"},
				Shown:  map[int]map[string]string{0: {"path": "a.go"}, 1: {}},
				Calls: []closed{
					{Index: 0, Name: "read_file", Form: repair.FormParams, Params: map[string]string{"path": "a.go"}},
					{Index: 1, Name: "list_files", Form: repair.FormParams, Params: map[string]string{}},
				},
			},
		},
		{
			name:   "qwen_xml a response of white space only, without calls, is text",
			format: QwenXML,
			pieces: []piece{text(" \n\t\r\n")},
			want:   outcome{Text: " \n\t\r\n", Starts: map[int]string{}, Shown: map[int]map[string]string{}},
		},
		{
			name:   "qwen_xml white space and a tag cut off by the end are text",
			format: QwenXML,
			pieces: []piece{text("<tool_call>\n<function=list_files>\n</function>\n</tool_call>\n<tool_c")},
			want: outcome{
				Text:   "\n<tool_c",
				Starts: map[int]string{0: "list_files"},
				Shown:  map[int]map[string]string{0: {}},
				Calls:  []closed{{Index: 0, Name: "list_files", Form: repair.FormParams, Params: map[string]string{}}},
			},
		},
		{
			name:   "qwen_xml white space longer than layout is text",
			format: QwenXML,
			pieces: []piece{text("<function=list_files></function>" + strings.Repeat("\n", maxLayout+1) + "<function=list_files></function>")},
			want: outcome{
				Text:   strings.Repeat("\n", maxLayout+1),
				Starts: map[int]string{0: "list_files", 1: "list_files"},
				Shown:  map[int]map[string]string{0: {}, 1: {}},
				Calls: []closed{
					{Index: 0, Name: "list_files", Form: repair.FormParams, Params: map[string]string{}},
					{Index: 1, Name: "list_files", Form: repair.FormParams, Params: map[string]string{}},
				},
			},
		},
		{
			name:   "hermes output that is only tool calls has no text",
			format: Hermes,
			pieces: []piece{text("<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"list_files\", \"arguments\": {}}\n</tool_call>\n\n")},
			want: outcome{
				Starts: map[int]string{0: "read_file", 1: "list_files"},
				Shown:  map[int]map[string]string{0: {"path": "a"}, 1: {}},
				Calls: []closed{
					{Index: 0, Name: "read_file", Form: repair.FormText, Text: `{"path": "a"}`},
					{Index: 1, Name: "list_files", Form: repair.FormText, Text: `{}`},
				},
			},
		},
		{
			name:   "minimax invoke blocks",
			format: MiniMax,
			pieces: []piece{text("Ok.<minimax:tool_call>\n<invoke name=\"write_to_file\">\n<parameter name=\"path\">m.txt</parameter>\n<parameter name=\"content\">a </invoke> b</parameter>\n</invoke>\n<invoke name='read_file'><parameter name=path>q</parameter></invoke>\n</minimax:tool_call>")},
			want: outcome{
				Text:   "Ok.",
				Starts: map[int]string{0: "write_to_file", 1: "read_file"},
				Shown:  map[int]map[string]string{0: {"path": "m.txt", "content": "a </invoke> b"}, 1: {"path": "q"}},
				Calls: []closed{
					{Index: 0, Name: "write_to_file", Form: repair.FormParams, Params: map[string]string{"path": "m.txt", "content": "a </invoke> b"}},
					{Index: 1, Name: "read_file", Form: repair.FormParams, Params: map[string]string{"path": "q"}},
				},
			},
		},
		{
			name:   "minimax truncated",
			format: MiniMax,
			pieces: []piece{text("<invoke name=\"write_to_file\"><parameter name=\"content\">abc</para")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"content": "abc</para"}},
				Calls:  []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams, Params: map[string]string{"content": "abc</para"}, Truncated: true}},
			},
		},
	}, tagFormatCases()...)
}

func TestParser(t *testing.T) {
	for _, tc := range streamCases() {
		t.Run(tc.name, func(t *testing.T) {
			got := feed(t, tc.format, Options{Tools: xmlTools}, tc.pieces, tc.lengthLimit)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("outcome:\n got %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

// TestChunkInvariance is the stream's central property: however the
// response is split (single bytes, inside multi-byte characters and
// \uXXXX escapes, at random), the calls, the text and the joined previews
// are those of the response in one piece.
func TestChunkInvariance(t *testing.T) {
	splits := map[string]func(n int) []int{
		"bytes": func(n int) []int {
			out := make([]int, n)
			for i := range out {
				out[i] = i
			}
			return out
		},
		"pairs": func(n int) []int {
			var out []int
			for i := 1; i < n; i += 2 {
				out = append(out, i)
			}
			return out
		},
	}
	for seed := range uint64(8) {
		splits[fmt.Sprintf("random%d", seed)] = func(n int) []int {
			r := rand.New(rand.NewPCG(seed, 99))
			var out []int
			for i := r.IntN(7) + 1; i < n; i += r.IntN(7) + 1 {
				out = append(out, i)
			}
			return out
		}
	}
	for _, tc := range streamCases() {
		whole := feed(t, tc.format, Options{Tools: xmlTools}, joined(tc.pieces), tc.lengthLimit)
		for _, name := range slices.Sorted(maps.Keys(splits)) {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				got := feed(t, tc.format, Options{Tools: xmlTools}, resplit(tc.pieces, splits[name]), tc.lengthLimit)
				if !reflect.DeepEqual(got, whole) {
					t.Errorf("split %s:\n got %#v\nwant %#v", name, got, whole)
				}
			})
		}
	}
}

func TestLimits(t *testing.T) {
	big := strings.Repeat("x", 100)
	tests := []struct {
		name   string
		format Format
		opts   Options
		pieces []piece
		want   []string
		calls  int
	}{
		{"xml value", XMLTags, Options{Tools: xmlTools, MaxParamBytes: 50},
			[]piece{text("<write_to_file><path>a</path><content>" + big + "</content></write_to_file>after<read_file><path>b</path></read_file>")},
			[]string{CodeParamTooLarge}, 1},
		{"xml call", XMLTags, Options{Tools: xmlTools, MaxCallBytes: 80},
			[]piece{text("<write_to_file><path>a</path><content>" + big + "</content></write_to_file>")},
			[]string{CodeCallTooLarge}, 0},
		{"openai call", OpenAI, Options{MaxCallBytes: 80},
			[]piece{frag(0, "a", "w", `{"content": "`+big+`"}`), frag(1, "b", "r", `{}`)},
			[]string{CodeCallTooLarge}, 1},
		{"openai param", OpenAI, Options{MaxParamBytes: 50},
			[]piece{frag(0, "a", "w", `{"content": "`+big+`"}`)},
			[]string{CodeParamTooLarge}, 0},
		{"hermes param", Hermes, Options{MaxParamBytes: 50},
			[]piece{text(`<tool_call>{"name": "w", "arguments": {"content": "` + big + `"}}</tool_call>`)},
			[]string{CodeParamTooLarge}, 0},
		{"qwen param", QwenXML, Options{MaxParamBytes: 50},
			[]piece{text("<function=w><parameter=content>" + big + "</parameter></function>")},
			[]string{CodeParamTooLarge}, 0},
	}
	for _, tt := range tests {
		for _, split := range []string{"whole", "bytes"} {
			t.Run(tt.name+"/"+split, func(t *testing.T) {
				pieces := tt.pieces
				if split == "bytes" {
					pieces = resplit(pieces, func(n int) []int {
						out := make([]int, n)
						for i := range out {
							out[i] = i
						}
						return out
					})
				}
				got := feed(t, tt.format, tt.opts, pieces, false)
				if !slices.Equal(got.Errors, tt.want) {
					t.Errorf("errors = %v, want %v", got.Errors, tt.want)
				}
				if len(got.Calls) != tt.calls {
					t.Errorf("closed %d calls, want %d: %+v", len(got.Calls), tt.calls, got.Calls)
				}
			})
		}
	}
}

// TestProseMemory checks that prose between calls is passed on, not kept.
func TestProseMemory(t *testing.T) {
	for _, f := range []Format{XMLTags, Hermes, QwenXML, MiniMax, ClaudeXML, GLM45, Pythonic} {
		p, err := New(f, Options{Tools: xmlTools}, func(Event) {})
		if err != nil {
			t.Fatal(err)
		}
		chunk := strings.Repeat("prose with <b>tags</b> and < signs ", 30)
		for range 1000 {
			if err := p.Text(chunk); err != nil {
				t.Fatal(err)
			}
		}
		if n := cap(p.text.buf); n > 4*len(chunk) {
			t.Errorf("%s: buffer capacity %d after 1000 pieces of prose of %d bytes", f, n, len(chunk))
		}
	}
}

func TestCallerMistakes(t *testing.T) {
	p, _ := New(XMLTags, Options{}, func(Event) {})
	if err := p.ToolDelta(ToolDelta{Index: 0, Arguments: "{}"}); err != ErrNotStructured {
		t.Errorf("ToolDelta on xml_tags: %v, want ErrNotStructured", err)
	}
	q, _ := New(OpenAI, Options{}, func(Event) {})
	if err := q.ToolDelta(ToolDelta{Index: -1}); err == nil {
		t.Error("negative index accepted")
	}
	if err := q.End(false); err != nil {
		t.Fatal(err)
	}
	if err := q.Text("x"); err != ErrEnded {
		t.Errorf("Text after End: %v, want ErrEnded", err)
	}
	if _, err := New(Format(99), Options{}, func(Event) {}); err == nil {
		t.Error("unknown format accepted")
	}
	var events []Event
	r, _ := New(Anthropic, Options{}, func(e Event) { events = append(events, e) })
	_ = r.ToolDelta(ToolDelta{Index: 0, Name: "a", Arguments: "{}", Done: true})
	_ = r.ToolDelta(ToolDelta{Index: 0, Arguments: "{}"})
	if last := events[len(events)-1]; last.Kind != EventError || last.Code != CodeCallAlreadyComplete {
		t.Errorf("fragment after done: %+v", last)
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats() {
		name := formats[f].name
		got, err := ParseFormat(name)
		if err != nil || got != f || f.String() != name {
			t.Errorf("ParseFormat(%q) = %v, %v", name, got, err)
		}
	}
	if _, err := ParseFormat("json"); err == nil {
		t.Error("unknown format name accepted")
	}
	// A format reads text with a machine of its own unless its calls
	// arrive as fragments.
	for _, f := range Formats() {
		if (formats[f].syntax == nil) != f.Structured() {
			t.Errorf("format %s: machine %T, structured %v", f, formats[f].syntax, f.Structured())
		}
	}
}

// TestParamTextHook: Options.ParamText receives the string previews in
// place of their events, in the same order among the other events.
func TestParamTextHook(t *testing.T) {
	run := func(t *testing.T, tc streamCase, hook bool) []Event {
		var events []Event
		opts := Options{Tools: xmlTools}
		if hook {
			opts.ParamText = func(index int, param, text string) {
				events = append(events, Event{Kind: EventParam, Index: index, Param: param, Text: text})
			}
		}
		p, err := New(tc.format, opts, func(e Event) {
			if hook && e.Kind == EventParam && e.JSON == "" {
				t.Errorf("string preview of %q sent as an event", e.Param)
			}
			events = append(events, e)
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, pc := range resplit(tc.pieces, func(n int) []int {
			var out []int
			for i := 3; i < n; i += 3 {
				out = append(out, i)
			}
			return out
		}) {
			if pc.delta != nil {
				err = p.ToolDelta(*pc.delta)
			} else {
				err = p.Text(pc.text)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := p.End(tc.lengthLimit); err != nil {
			t.Fatal(err)
		}
		return events
	}
	for _, tc := range streamCases() {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := run(t, tc, true), run(t, tc, false); !reflect.DeepEqual(got, want) {
				t.Errorf("with the hook:\n got %#v\nwant %#v", got, want)
			}
		})
	}
}

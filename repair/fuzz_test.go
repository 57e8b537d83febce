package repair

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzValidateText drives the text form through parsing, unwrapping, alias
// normalisation, coercion and validation. Properties: no panic; a usable
// call re-validated from its own normalised arguments comes back unchanged
// with no repairs (normalisation is idempotent); and arguments that are
// already canonical, valid JSON pass through with their values untouched.
func FuzzValidateText(f *testing.F) {
	reg := mustMemoryRegistry(f)
	for _, seed := range []struct{ tool, text string }{
		{"write_to_file", `{"path":"a.py","content":"x"}`},
		{"Write", `{"file_path":"a.py","text":"x"}`},
		{"Write", `{"raw_arguments":"{\"file_path\":\"a.py\",\"content\":\"x\"}"}`},
		{"write_to_file", `"{\"path\":\"a.py\",\"content\":\"x\"}"`},
		{"edit", `{"path":"a","old_text":"x","new_text":"","replace_all":"true"}`},
		{"MultiEdit", `{"file_path":"a","edits":{"old_string":"x","new_string":"y"}}`},
		{"TodoWrite", `{"todos":"[{\"id\":1,\"content\":\"a\",\"status\":\"pending\"}]"}`},
		{"str_replace_based_edit_tool", `{"command":"create","path":"a","file_text":"b"}`},
		{"add_semantic_memory", `{"xml_memory":"<m/>","user_message":"hi"}`},
		{"write_to_file", `{"arguments":{"args":{"path":"a","content":"b"}}}`},
		{"write_to_file", `{"path":"a","file_path":"b","content":""}`},
		{"unknown", `[1,2,3]`},
		{"edit", ``},
		{"write_to_file", `path": "a.py", "content": "x"}`},
		{"write_to_file", ` "path": "a.py", "content": "x"}`},
		{"write_to_file", `{"path: "a.py", "content": "x"}`},
		{"write_to_file", `{"path": "a.py", "contents: "x"}`},
		{"write_to_file", `{"time: 12:00": "a", "path": "a.py"}`},
		{"write_to_file", "{'path': r'a\\b.py', 'content': '''x = 'y'\\n\\\ny = \"\"\"z\"\"\"\n'''}"},
		{"write_to_file", "{'path': 'a.py', 'content': '''cut"},
	} {
		f.Add(seed.tool, seed.text)
	}
	f.Fuzz(func(t *testing.T, tool, text string) {
		checkValidateText(t, reg, Options{}, tool, text)
	})
}

// checkValidateText validates a text-form call and checks the properties
// FuzzValidateText states.
func checkValidateText(t *testing.T, reg *Registry, opts Options, tool, text string) {
	res := reg.Validate(Call{Name: tool, Form: FormText, Text: text}, opts)
	if res.OK() && res.Args == nil {
		t.Fatalf("usable call without arguments")
	}
	if !res.OK() || res.Tool == nil {
		return
	}
	raw, err := EncodeArgs(res.Args)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	again := reg.Validate(Call{Name: res.ToolName, Form: FormText, Text: string(raw)}, opts)
	if !again.OK() || len(again.Repairs) != 0 {
		t.Fatalf("not idempotent: %s → repairs %v violations %v", raw, again.Repairs, again.Violations)
	}
	if !reflect.DeepEqual(res.Args, again.Args) {
		t.Fatalf("args changed on the second pass: %v → %v", res.Args, again.Args)
	}
	// A call that needed no repair had its values passed through as
	// decoded: compare with a plain decode of the same text.
	if len(res.Repairs) == 0 && utf8.ValidString(text) {
		var plain map[string]any
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		if dec.Decode(&plain) == nil && !reflect.DeepEqual(plain, res.Args) {
			t.Fatalf("valid call altered without a repair: %v → %v", plain, res.Args)
		}
	}
}

// FuzzValidateXML drives the XML block parser and the string-parameter path.
// Properties: no panic; every parameter of a usable call round-trips through
// the tool's own XML rendering.
func FuzzValidateXML(f *testing.F) {
	reg := mustMemoryRegistry(f)
	for _, seed := range []string{
		"<write_to_file>\n<path>a.py</path>\n<content>\nx\n</content>\n</write_to_file>",
		"<write_to_file><path>a</path><content>a</content></content></write_to_file>",
		"prose <Write><file_path>a</file_path><text>b</text></Write> more",
		"<edit><path>a</path><old_text>x</old_text><new_text></new_text><replace_all>true</replace_all></edit>",
		"<add_semantic_memory><xml_memory><m><f>1</f></m></xml_memory><user_message>u</user_message></add_semantic_memory>",
		"<todo_write><todos>[{\"id\":\"1\",\"content\":\"a\",\"status\":\"pending\"}]</todos></todo_write>",
		"<write_to_file><path>a</path><content>\ncut",
		"<edit><path>a</path><old_text>x</old_text><new_text>y</new_text><replace_all>False</replace_all></edit>",
		"<<<>>></",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, block string) {
		res := reg.Validate(Call{Form: FormXML, Text: block}, Options{})
		if !res.OK() || res.Tool == nil {
			return
		}
		v := res.Tool.view(FamilyGeneric)
		again := reg.Validate(Call{Form: FormXML, Text: v.xmlBlock(res.Args)}, Options{})
		if !again.OK() {
			// A value holding a closing tag or a bare CR cannot always
			// round-trip through XML (a non-content value ends at its first
			// closing tag; CRLF layout absorbs a trailing CR): the format's
			// limit, not a bug. Anything else must come back usable.
			for _, v := range res.Args {
				if s, ok := v.(string); ok && (strings.Contains(s, "</") || strings.Contains(s, "\r")) {
					return
				}
			}
			t.Fatalf("XML round trip unusable: %v\n%s", again.Violations, v.xmlBlock(res.Args))
		}
		if !reflect.DeepEqual(res.Args, again.Args) {
			t.Fatalf("XML round trip changed args: %v → %v", res.Args, again.Args)
		}
	})
}

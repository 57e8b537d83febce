package repair

import (
	"encoding/json"
	"fmt"
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
		{"Write<|channel|>commentary", `{"file_path":"a.py","text":"x"}`},
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
		// Arrays and objects as child elements, and attribute-named wrappers.
		"<multi_edit>\n<path>a.py</path>\n<edits>\n<edit>\n<old_text>\nx\n</old_text>\n<new_text><b></new_text></b></new_text>\n<replace_all>true</replace_all>\n</edit>\n<edit><old_text>y</old_text><new_text></new_text></edit>\n</edits>\n</multi_edit>",
		"<tool name=\"multi_replace_string_in_file\">\n<replacements>\n<replacement>\n<filePath>t.txt</filePath>\n<oldString>a\\nb</oldString>\n<newString>c</newString>\n</replacement>\n</replacements>\n</tool>",
		"<multi_edit><edits><path>a</path><old_text>x</old_text><new_text>y</new_text></edits></multi_edit>",
		"<todo_write><todos><todo><id>1</id><content>a</content><status>pending</status></todo><todo>{\"id\":\"2\",\"content\":\"b\",\"status\":\"completed\"}</todo></todos></todo_write>",
		"<function_calls>\n<invoke name='write_to_file'>\n<parameter name=\"content\">x</parameter>y\n</parameter>\n<parameter name=\"path\">a</parameter>\n</invoke>\n<invoke name=\"edit\"></invoke>\n</function_calls>",
		"<invoke name=\"todo_write\"><parameter name=\"todos\"><item><id>1</id><content>a</content><status>done</status></item></parameter></invoke>",
		// Tags written twice or lost, and Roo's multi-file apply_diff.
		"<write_to_file><write_to_file><path><path>a</path></path><content><content>x</content></content></write_to_file></write_to_file>",
		"<write_to_file>\n<path>a</path>\nx\n</content>\n</write_to_file>",
		"<apply_diff><args><file><path>m.py</path><diff><content>\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n</content><start_line>3</start_line></diff></file></args></apply_diff>",
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
		// Arrays and objects written back as child elements read the same.
		if text, ok := xmlElements(res.Args); ok && (res.ToolName == "multi_edit" || res.ToolName == "todo_write") {
			block := "<" + res.ToolName + ">" + text + "</" + res.ToolName + ">"
			elems := reg.Validate(Call{Form: FormXML, Text: block}, Options{})
			if !elems.OK() || !reflect.DeepEqual(res.Args, elems.Args) {
				t.Fatalf("child elements read differently: %v → %v, %v\n%s", res.Args, elems.Args, elems.Violations, block)
			}
		}
	})
}

// xmlElements writes a value as XML child elements: an object's properties
// by name, an array's items as <item>, text between layout newlines. It
// refuses text holding '<' or a CR, which XML cannot always carry back,
// and empty arrays and objects, which have no elements to write.
func xmlElements(v any) (string, bool) {
	var b strings.Builder
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return "", false
		}
		for k, e := range x {
			inner, ok := xmlElements(e)
			if !ok {
				return "", false
			}
			fmt.Fprintf(&b, "<%s>%s</%s>", k, inner, k)
		}
	case []any:
		if len(x) == 0 {
			return "", false
		}
		for _, e := range x {
			inner, ok := xmlElements(e)
			if !ok {
				return "", false
			}
			fmt.Fprintf(&b, "<item>%s</item>", inner)
		}
	case string:
		if strings.ContainsAny(x, "<\r") {
			return "", false
		}
		return "\n" + x + "\n", true
	default:
		raw, err := EncodeJSON(x)
		return string(raw), err == nil
	}
	return b.String(), true
}

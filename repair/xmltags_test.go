package repair

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestXMLTagsTwiceOrLost: a parameter or tool tag written twice is taken
// out only where it is repeated with nothing between and the value does
// not also hold the other tag; with layout between it is refused. A
// closing tag with no opening tag refuses the call: the text before it
// was a value whose start is lost. File content that opens and closes the
// tag keeps it.
func TestXMLTagsTwiceOrLost(t *testing.T) {
	reg := mustMemoryRegistry(t)
	tests := []struct {
		name    string
		text    string
		args    string   // usable, with these arguments
		repairs []string // CODE:param
		refusal string   // refused, a violation message holding this
	}{
		{
			name:    "Cline path opening tag twice",
			text:    "<write_to_file>\n<path><path>src/app.ts</path>\n<content>\nexport const a = 1;\n</content>\n</write_to_file>",
			args:    `{"content":"export const a = 1;","path":"src/app.ts"}`,
			repairs: []string{"XML_REPAIRED:path"},
		},
		{
			name:    "Cline path closing tag twice",
			text:    "<write_to_file>\n<path>src/app.ts</path></path>\n<content>\nexport const a = 1;\n</content>\n</write_to_file>",
			args:    `{"content":"export const a = 1;","path":"src/app.ts"}`,
			repairs: []string{"XML_REPAIRED:path"},
		},
		{
			name:    "Cline content opening tag twice",
			text:    "<write_to_file>\n<path>index.html</path>\n<content><content>\n<p>hi</p>\n</content>\n</write_to_file>",
			args:    `{"content":"<p>hi</p>","path":"index.html"}`,
			repairs: []string{"XML_REPAIRED:content"},
		},
		{
			name:    "Cline content closing tag twice",
			text:    "<write_to_file>\n<content>\nprint(1)\n</content></content>\n<path>a.py</path>\n</write_to_file>",
			args:    `{"content":"print(1)","path":"a.py"}`,
			repairs: []string{"XML_REPAIRED:content"},
		},
		{
			name:    "Cline tool opening tag twice",
			text:    "<write_to_file><write_to_file>\n<path>a.py</path>\n<content>x</content>\n</write_to_file>",
			args:    `{"content":"x","path":"a.py"}`,
			repairs: []string{"XML_REPAIRED:"},
		},
		{
			name:    "Cline tool closing tag twice",
			text:    "<write_to_file>\n<path>a.py</path>\n<content>x</content>\n</write_to_file></write_to_file>",
			args:    `{"content":"x","path":"a.py"}`,
			repairs: []string{"XML_REPAIRED:"},
		},
		{
			name:    "Claude invoke closing tag twice",
			text:    "<function_calls>\n<invoke name=\"write_to_file\">\n<parameter name=\"path\">a.py</parameter>\n<parameter name=\"content\">x</parameter>\n</invoke></invoke>\n</function_calls>",
			args:    `{"content":"x","path":"a.py"}`,
			repairs: []string{"XML_REPAIRED:"},
		},
		{
			name:    "Claude invoke parameter opening tag twice",
			text:    "<function_calls>\n<invoke name=\"write_to_file\">\n<parameter name=\"path\">a.py</parameter>\n<parameter name=\"content\"><parameter name=\"content\">x = 1</parameter>\n</invoke>\n</function_calls>",
			args:    `{"content":"x = 1","path":"a.py"}`,
			repairs: []string{"XML_REPAIRED:content"},
		},
		{
			name:    "Claude invoke parameter closing tag twice",
			text:    "<function_calls>\n<invoke name=\"write_to_file\">\n<parameter name=\"content\">x = 1</parameter></parameter>\n<parameter name=\"path\">a.py</parameter>\n</invoke>\n</function_calls>",
			args:    `{"content":"x = 1","path":"a.py"}`,
			repairs: []string{"XML_REPAIRED:content"},
		},
		{
			name:    "an XML file that opens and closes the content tag keeps it",
			text:    "<write_to_file>\n<path>schema.xml</path>\n<content><content>\n  <item/>\n</content></content>\n</write_to_file>",
			args:    `{"content":"<content>\n  <item/>\n</content>","path":"schema.xml"}`,
			repairs: []string{},
		},
		{
			name:    "an HTML file that closes the content tag inside keeps it",
			text:    "<write_to_file>\n<path>a.html</path>\n<content>\n<p>see </content></p>\n</content>\n</write_to_file>",
			args:    `{"content":"<p>see </content></p>","path":"a.html"}`,
			repairs: []string{},
		},
		{
			name:    "opening tag twice with a line between",
			text:    "<write_to_file>\n<path>\n<path>a.py</path>\n<content>x</content>\n</write_to_file>",
			refusal: `The value of "path" starts with a second opening tag <path> that is never closed`,
		},
		{
			name:    "closing tag twice with a line between",
			text:    "<write_to_file>\n<path>a.py</path>\n<content>\nx = 1\n</content>\n</content>\n</write_to_file>",
			refusal: `The value of "content" ends with a second closing tag </content> that nothing in it opens`,
		},
		{
			name:    "a non-content closing tag twice with a line between",
			text:    "<write_to_file>\n<path>a.py</path>\n</path>\n<content>x</content>\n</write_to_file>",
			refusal: "The closing tag </path> closes no parameter",
		},
		{
			name:    "Cline content opening tag lost",
			text:    "<write_to_file>\n<path>a.py</path>\nx = 1\n</content>\n</write_to_file>",
			refusal: `The text "x = 1" before the closing tag </content> belongs to no parameter`,
		},
		{
			name:    "OpenHands optional parameter opening tag lost",
			text:    "<str_replace_based_edit_tool>\n<command>view</command>\n<path>a.py</path>\n[1, 20]</view_range>\n</str_replace_based_edit_tool>",
			refusal: `The text "[1, 20]" before the closing tag </view_range> belongs to no parameter`,
		},
		{
			name:    "Claude invoke parameter opening tag lost",
			text:    "<function_calls>\n<invoke name=\"write_to_file\">\n<parameter name=\"path\">a.py</parameter>\nx = 1</parameter>\n</invoke>\n</function_calls>",
			refusal: `The text "x = 1" before the closing tag </parameter> belongs to no parameter`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(Call{Form: FormXML, Text: tc.text}, Options{})
			if tc.refusal != "" {
				if res.OK() {
					t.Fatalf("usable %v, want refused", res.Args)
				}
				if !slices.ContainsFunc(res.Violations, func(v Violation) bool { return strings.Contains(v.Message, tc.refusal) }) {
					t.Errorf("violations %v, want one holding %q", res.Violations, tc.refusal)
				}
				return
			}
			if !res.OK() {
				t.Fatalf("refused: %v", res.Violations)
			}
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(res.Args); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(b.String()); got != tc.args {
				t.Errorf("args %s, want %s", got, tc.args)
			}
			codes := []string{}
			for _, r := range res.Repairs {
				codes = append(codes, r.Code+":"+r.Param)
			}
			if !slices.Equal(codes, tc.repairs) {
				t.Errorf("repairs %v, want %v", codes, tc.repairs)
			}
		})
	}
}

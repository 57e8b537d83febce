package repair

import (
	"slices"
	"strings"
	"testing"
)

// TestRooMultiFileApplyDiff: Roo Code's multi-file apply_diff, as its
// prompt teaches models to write it, is read as Roo reads it when it
// changes one file: the path, and the diffs' blocks in order, each
// <start_line> the hint of its diff's first block. Changes to several
// files are refused, asking for one call per file.
func TestRooMultiFileApplyDiff(t *testing.T) {
	reg := mustMemoryRegistry(t)
	block := func(search, replace string) string {
		return "<<<<<<< SEARCH\n" + search + "=======\n" + replace + ">>>>>>> REPLACE\n"
	}
	tests := []struct {
		name, text string
		path, diff string // usable, with these arguments
		code, msg  string // refused, with this violation
	}{
		{
			name: "claude-sonnet: one file, one diff, start line after the content",
			text: "<apply_diff>\n<args>\n<file>\n  <path>src/app.py</path>\n  <diff>\n    <content>\n" + block("    return None\n", "    return 1\n") +
				"    </content>\n    <start_line>6</start_line>\n  </diff>\n</file>\n</args>\n</apply_diff>",
			path: "src/app.py",
			diff: "<<<<<<< SEARCH\n:start_line:6\n    return None\n=======\n    return 1\n>>>>>>> REPLACE\n    ",
		},
		{
			name: "gemini-2.5-pro: two diffs of one file, start line first, the second block keeps its own hint",
			text: "<apply_diff><args><file><path>m.py</path>" +
				"<diff><start_line>1</start_line><content>" + block("def a():\n", "def a(x):\n") + "</content></diff>" +
				"<diff><start_line>5</start_line><content>" + strings.Replace(block("def b():\n", "def b(x):\n"), "SEARCH\n", "SEARCH\n:start_line:5\n-------\n", 1) + "</content></diff>" +
				"</file></args></apply_diff>",
			path: "m.py",
			diff: "<<<<<<< SEARCH\n:start_line:1\ndef a():\n=======\ndef a(x):\n>>>>>>> REPLACE\n" +
				"<<<<<<< SEARCH\n:start_line:5\n-------\ndef b():\n=======\ndef b(x):\n>>>>>>> REPLACE",
		},
		{
			name: "deepseek: one file in two <file> elements joins, CDATA taken off",
			text: "<apply_diff>\n<args>\n<file><path>m.py</path><diff><content><![CDATA[" + block("a\n", "b\n") + "]]></content></diff></file>\n" +
				"<file><path>m.py</path><diff><content>" + block("c\n", "d\n") + "</content></diff></file>\n</args>\n</apply_diff>",
			path: "m.py",
			diff: block("a\n", "b\n") + "\n" + strings.TrimSuffix(block("c\n", "d\n"), "\n"),
		},
		{
			name: "an Atom feed's diff holding </content>",
			text: "<apply_diff><args><file><path>feed.xml</path><diff><content>" + block("<content>old</content>\n", "<content>new</content>\n") +
				"</content><start_line>3</start_line></diff></file></args></apply_diff>",
			path: "feed.xml",
			diff: "<<<<<<< SEARCH\n:start_line:3\n<content>old</content>\n=======\n<content>new</content>\n>>>>>>> REPLACE",
		},
		{
			name: "two files are refused",
			text: "<apply_diff><args><file><path>src/user.ts</path><diff><content>" + block("a\n", "b\n") + "</content><start_line>5</start_line></diff></file>" +
				"<file><path>src/config.ts</path><diff><content>" + block("c\n", "d\n") + "</content><start_line>20</start_line></diff></file></args></apply_diff>",
			code: CodeInvalidValue,
			msg:  `The <args> of replace_in_file change 2 files ("src/user.ts", "src/config.ts"); one call changes one file. Send one replace_in_file call for each file`,
		},
		{
			name: "a start line that is no number",
			text: "<apply_diff><args><file><path>m.py</path><diff><content>" + block("a\n", "b\n") + "</content><start_line>ten</start_line></diff></file></args></apply_diff>",
			code: CodeUnparseable,
			msg:  `The <args> of replace_in_file could not be read: <start_line> must be a line number, not "ten".`,
		},
		{
			name: "an element Roo does not write",
			text: "<apply_diff><args><file><path>m.py</path><search>a</search></file></args></apply_diff>",
			code: CodeUnparseable,
			msg:  "<search> inside <file>, which takes <path> and <diff>",
		},
		{
			name: "a file without a diff",
			text: "<apply_diff><args><file><path>m.py</path></file></args></apply_diff>",
			code: CodeMissingRequired,
			msg:  "hold no <file> with a <path> and a <diff> that has <content>",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(Call{Form: FormXML, Text: tc.text}, Options{})
			if tc.code != "" {
				if res.OK() {
					t.Fatalf("usable %v, want refused", res.Args)
				}
				if !slices.ContainsFunc(res.Violations, func(v Violation) bool { return v.Code == tc.code && strings.Contains(v.Message, tc.msg) }) {
					t.Errorf("violations %v, want %s holding %q", res.Violations, tc.code, tc.msg)
				}
				return
			}
			if !res.OK() {
				t.Fatalf("refused: %v", res.Violations)
			}
			if res.ToolName != "replace_in_file" || res.Args["path"] != tc.path || res.Args["diff"] != tc.diff {
				t.Errorf("got %s %q\n%q\nwant path %q diff\n%q", res.ToolName, res.Args["path"], res.Args["diff"], tc.path, tc.diff)
			}
		})
	}
}

package repair

import (
	"encoding/json"
	"reflect"
	"testing"
)

type contentFixCase struct {
	name       string
	tool       string
	args       map[string]any
	want       map[string]any // expected values of the listed params
	repairs    []string
	violations []string
}

// TestContentFixesInPipeline checks where each content fix applies in a
// call, and where it must not.
func TestContentFixesInPipeline(t *testing.T) {
	reg := mustRegistry(t, ToolsFile{Tools: []ToolDef{{
		Name: "bash",
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"command": map[string]any{"type": "string"}},
			"required":   []any{"command"},
		},
	}}})
	tests := []contentFixCase{
		{
			name:    "fence around Python content",
			tool:    "write_to_file",
			args:    map[string]any{"path": "a.py", "content": "```python\nprint(1)\n```"},
			want:    map[string]any{"content": "print(1)\n"},
			repairs: []string{"CODE_FENCE_STRIPPED:content"},
		},
		{
			name:    "fence kept in Markdown",
			tool:    "write_to_file",
			args:    map[string]any{"path": "README.md", "content": "```sh\nmake\n```"},
			want:    map[string]any{"content": "```sh\nmake\n```"},
			repairs: []string{},
		},
		{
			name:    "double-escaped content",
			tool:    "write_to_file",
			args:    map[string]any{"path": "a.py", "content": `def f():\n    return "x"\n`},
			want:    map[string]any{"content": "def f():\n    return \"x\"\n"},
			repairs: []string{"ESCAPES_DECODED:content"},
		},
		{
			name:    "escapes kept when the content has real newlines",
			tool:    "write_to_file",
			args:    map[string]any{"path": "a.py", "content": "print('a\\nb')\nprint(2)\n"},
			want:    map[string]any{"content": "print('a\\nb')\nprint(2)\n"},
			repairs: []string{},
		},
		{
			name:    "escapes never decoded in edit text",
			tool:    "edit",
			args:    map[string]any{"path": "a.py", "old_text": `a\nb`, "new_text": `c\nd`},
			want:    map[string]any{"old_text": `a\nb`, "new_text": `c\nd`},
			repairs: []string{},
		},
		{
			name:    "HTML entities in mangled code",
			tool:    "write_to_file",
			args:    map[string]any{"path": "a.py", "content": "if a &lt; b &amp;&amp; c:\n    pass\n"},
			want:    map[string]any{"content": "if a < b && c:\n    pass\n"},
			repairs: []string{"HTML_ENTITIES_DECODED:content"},
		},
		{
			name:    "HTML entities in a literal kept",
			tool:    "write_to_file",
			args:    map[string]any{"path": "a.py", "content": "x = '&lt;'\n"},
			want:    map[string]any{"content": "x = '&lt;'\n"},
			repairs: []string{},
		},
		{
			name:    "escaping function kept byte for byte",
			tool:    "write_to_file",
			args:    map[string]any{"path": "escape.js", "content": "export const esc = (s) => s.replace(/&/g, \"&amp;\").replace(/</g, \"&lt;\");\n"},
			want:    map[string]any{"content": "export const esc = (s) => s.replace(/&/g, \"&amp;\").replace(/</g, \"&lt;\");\n"},
			repairs: []string{},
		},
		{
			name:    "HTML entities kept in markup",
			tool:    "edit",
			args:    map[string]any{"path": "page.html", "old_text": "a &lt; b", "new_text": "a &lt; c"},
			want:    map[string]any{"old_text": "a &lt; b", "new_text": "a &lt; c"},
			repairs: []string{},
		},
		{
			name:    "edit text decoded as a pair",
			tool:    "edit",
			args:    map[string]any{"path": "a.js", "old_text": "s = &quot;x&quot;", "new_text": "if (a &lt; b) s = &quot;x&quot;"},
			want:    map[string]any{"old_text": "s = \"x\"", "new_text": "if (a < b) s = \"x\""},
			repairs: []string{"HTML_ENTITIES_DECODED:old_text", "HTML_ENTITIES_DECODED:new_text"},
		},
		{
			name:    "edit pair kept when the old text holds a raw <",
			tool:    "edit",
			args:    map[string]any{"path": "a.js", "old_text": "a < b", "new_text": "a &lt; b &amp;&amp; c"},
			want:    map[string]any{"old_text": "a < b", "new_text": "a &lt; b &amp;&amp; c"},
			repairs: []string{},
		},
		{
			name:    "multi_edit items decoded per pair",
			tool:    "multi_edit",
			args:    map[string]any{"path": "a.go", "edits": []any{map[string]any{"old_text": "x := 1", "new_text": "if a &lt; b {}"}, map[string]any{"old_text": "y", "new_text": "\"&amp;\""}}},
			want:    map[string]any{"edits": []any{map[string]any{"old_text": "x := 1", "new_text": "if a < b {}"}, map[string]any{"old_text": "y", "new_text": "\"&amp;\""}}},
			repairs: []string{"HTML_ENTITIES_DECODED:edits/0/new_text"},
		},
		{
			name:    "shell command decoded",
			tool:    "bash",
			args:    map[string]any{"command": "cd app &amp;&amp; make"},
			want:    map[string]any{"command": "cd app && make"},
			repairs: []string{"HTML_ENTITIES_DECODED:command"},
		},
		{
			name:    "shell command with encoded quotes decoded",
			tool:    "bash",
			args:    map[string]any{"command": "grep -E &quot;a|b&quot; file"},
			want:    map[string]any{"command": "grep -E \"a|b\" file"},
			repairs: []string{"HTML_ENTITIES_DECODED:command"},
		},
		{
			name:    "shell command escaping on purpose kept",
			tool:    "bash",
			args:    map[string]any{"command": "sed -i 's/&/\\&amp;/g' page.html"},
			want:    map[string]any{"command": "sed -i 's/&/\\&amp;/g' page.html"},
			repairs: []string{},
		},
		{
			name:    "todo item decoded",
			tool:    "todo_write",
			args:    map[string]any{"todos": []any{map[string]any{"id": "1", "content": "Run &quot;make test&quot;", "status": "pending"}}},
			want:    map[string]any{"todos": []any{map[string]any{"id": "1", "content": "Run \"make test\"", "status": "pending"}}},
			repairs: []string{"HTML_ENTITIES_DECODED:todos/0/content"},
		},
		{
			name:    "line numbers stripped from old and new text",
			tool:    "edit",
			args:    map[string]any{"path": "a.py", "old_text": "  7 | a = 1\n  8 | b = 2", "new_text": "  7 | a = 3\n  8 | b = 2"},
			want:    map[string]any{"old_text": "a = 1\nb = 2", "new_text": "a = 3\nb = 2"},
			repairs: []string{"LINE_NUMBERS_STRIPPED:old_text", "LINE_NUMBERS_STRIPPED:new_text"},
		},
		{
			name:    "a table keeps its numbers",
			tool:    "edit",
			args:    map[string]any{"path": "codes.md", "old_text": "200 | OK\n404 | Not Found", "new_text": "200 | OK"},
			want:    map[string]any{"old_text": "200 | OK\n404 | Not Found", "new_text": "200 | OK"},
			repairs: []string{},
		},
		{
			name:    "line numbers in multi_edit items",
			tool:    "multi_edit",
			args:    map[string]any{"path": "a.py", "edits": []any{map[string]any{"old_text": "  3 | x\n  4 | y", "new_text": "z"}}},
			want:    map[string]any{"edits": []any{map[string]any{"old_text": "x\ny", "new_text": "z"}}},
			repairs: []string{"LINE_NUMBERS_STRIPPED:edits/0/old_text"},
		},
		{
			name:    "U+FFFD removed from written text",
			tool:    "write_to_file",
			args:    map[string]any{"path": "a.txt", "content": "caf\ufffd\n"},
			want:    map[string]any{"content": "caf\n"},
			repairs: []string{"REPLACEMENT_CHARS_REMOVED:content"},
		},
		{
			name:       "placeholder content is refused",
			tool:       "write_to_file",
			args:       map[string]any{"path": "a.py", "content": "import os\n\n# ... rest of the code unchanged ...\n"},
			want:       map[string]any{"content": "import os\n\n# ... rest of the code unchanged ...\n"},
			repairs:    []string{},
			violations: []string{"PLACEHOLDER_CONTENT:content"},
		},
		{
			name:       "Chinese placeholder in content is refused",
			tool:       "write_to_file",
			args:       map[string]any{"path": "a.js", "content": "import x from 'x';\n// ... 其余代码保持不变 ...\n"},
			want:       map[string]any{"content": "import x from 'x';\n// ... 其余代码保持不变 ...\n"},
			repairs:    []string{},
			violations: []string{"PLACEHOLDER_CONTENT:content"},
		},
		{
			name:       "placeholder in edit new text is refused",
			tool:       "edit",
			args:       map[string]any{"path": "a.py", "old_text": "def f():\n    return 1\n", "new_text": "def f():\n    # ... existing code ...\n    return 2\n"},
			want:       map[string]any{"new_text": "def f():\n    # ... existing code ...\n    return 2\n"},
			repairs:    []string{},
			violations: []string{"PLACEHOLDER_CONTENT:new_text"},
		},
		{
			name:       "Chinese placeholder in a multi_edit item is refused",
			tool:       "multi_edit",
			args:       map[string]any{"path": "a.go", "edits": []any{map[string]any{"old_text": "a()", "new_text": "b()"}, map[string]any{"old_text": "c()\nd()", "new_text": "// 其他代码不变\ne()"}}},
			repairs:    []string{},
			violations: []string{"PLACEHOLDER_CONTENT:edits/1/new_text"},
		},
		{
			name:    "the file's own elision comment kept by an edit",
			tool:    "edit",
			args:    map[string]any{"path": "a.go", "old_text": "\t// ...\n\treturn 1", "new_text": "\t// ...\n\treturn 2"},
			want:    map[string]any{"new_text": "\t// ...\n\treturn 2"},
			repairs: []string{},
		},
		{
			name:    "Python Ellipsis in edit new text is code",
			tool:    "edit",
			args:    map[string]any{"path": "a.py", "old_text": "def f():\n    pass", "new_text": "def f():\n    ..."},
			want:    map[string]any{"new_text": "def f():\n    ..."},
			repairs: []string{},
		},
		{
			name:       "placeholder in a REPLACE section is refused",
			tool:       "replace_in_file",
			args:       map[string]any{"path": "a.py", "diff": "------- SEARCH\ndef f():\n    return 1\n=======\ndef f():\n    # ... rest of the code unchanged ...\n+++++++ REPLACE"},
			repairs:    []string{},
			violations: []string{"PLACEHOLDER_CONTENT:diff"},
		},
		{
			name:    "placeholder in both SEARCH and REPLACE is the file's",
			tool:    "replace_in_file",
			args:    map[string]any{"path": "a.py", "diff": "------- SEARCH\n# ... rest of the code unchanged ...\nx = 1\n=======\n# ... rest of the code unchanged ...\nx = 2\n+++++++ REPLACE"},
			repairs: []string{},
		},
		{
			name:    "legacy SEARCH/REPLACE markers with encoded code",
			tool:    "replace_in_file",
			args:    map[string]any{"path": "a.sh", "diff": "<<<<<<< SEARCH\nmake\n=======\ncd app &amp;&amp; make\n>>>>>>> REPLACE"},
			want:    map[string]any{"diff": "<<<<<<< SEARCH\nmake\n=======\ncd app && make\n>>>>>>> REPLACE"},
			repairs: []string{"HTML_ENTITIES_DECODED:diff"},
		},
		{
			name:       "placeholder added by a patch is refused",
			tool:       "apply_patch",
			args:       map[string]any{"patch": "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-    return 1\n+    # ... existing code ...\n+    return 2\n*** End Patch"},
			repairs:    []string{},
			violations: []string{"PLACEHOLDER_CONTENT:patch"},
		},
		{
			name:       "Chinese placeholder in a patch's new file is refused",
			tool:       "apply_patch",
			args:       map[string]any{"patch": "*** Begin Patch\n*** Add File: b.go\n+package b\n+// 此处省略\n*** End Patch"},
			repairs:    []string{},
			violations: []string{"PLACEHOLDER_CONTENT:patch"},
		},
		{
			name:    "a patch's context line is the file's",
			tool:    "apply_patch",
			args:    map[string]any{"patch": "*** Begin Patch\n*** Update File: a.go\n@@\n \t// ...\n-\treturn 1\n+\treturn 2\n*** End Patch"},
			repairs: []string{},
		},
		{
			name:    "patch with encoded code decoded",
			tool:    "apply_patch",
			args:    map[string]any{"patch": "*** Begin Patch\n*** Update File: a.js\n@@\n-ok = a\n+ok = a &amp;&amp; b\n*** End Patch"},
			want:    map[string]any{"patch": "*** Begin Patch\n*** Update File: a.js\n@@\n-ok = a\n+ok = a && b\n*** End Patch"},
			repairs: []string{"HTML_ENTITIES_DECODED:patch"},
		},
		{
			name:    "patch touching markup kept",
			tool:    "apply_patch",
			args:    map[string]any{"patch": "*** Begin Patch\n*** Update File: a.js\n@@\n-ok = a\n+ok = a &amp;&amp; b\n*** Update File: b.html\n@@\n-x\n+Tom &amp; Jerry\n*** End Patch"},
			want:    map[string]any{"patch": "*** Begin Patch\n*** Update File: a.js\n@@\n-ok = a\n+ok = a &amp;&amp; b\n*** Update File: b.html\n@@\n-x\n+Tom &amp; Jerry\n*** End Patch"},
			repairs: []string{},
		},
		{
			name:    "Python Ellipsis is code",
			tool:    "write_to_file",
			args:    map[string]any{"path": "a.py", "content": "def f():\n    ...\n"},
			want:    map[string]any{"content": "def f():\n    ...\n"},
			repairs: []string{},
		},
	}
	// The model family decides nothing: every case holds for each.
	models := []string{"", "gpt-4o", "claude-sonnet-4-5", "deepseek-chat", "grok-3", "qwen3-coder-plus", "gemini-2.5-pro"}
	for _, tc := range tests {
		for _, model := range models {
			t.Run(tc.name+"/"+model, func(t *testing.T) { checkContentFix(t, reg, tc, model) })
		}
	}
}

func checkContentFix(t *testing.T, reg *Registry, tc contentFixCase, model string) {
	t.Helper()
	js := func(v any) string { raw, _ := json.Marshal(v); return string(raw) }
	res := reg.Validate(Call{Name: tc.tool, Form: FormText, Text: js(tc.args)}, Options{ModelID: model})
	for k, want := range tc.want {
		if got := res.Args[k]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if got := codes(res.Repairs); !reflect.DeepEqual(got, tc.repairs) {
		t.Errorf("repairs = %v, want %v", got, tc.repairs)
	}
	wantV := tc.violations
	if wantV == nil {
		wantV = []string{}
	}
	if got := codes(res.Violations); !reflect.DeepEqual(got, wantV) {
		t.Errorf("violations = %v, want %v", got, wantV)
	}
	// Idempotent: the repaired call needs no further repair.
	if res.OK() {
		again := reg.Validate(Call{Name: tc.tool, Form: FormText, Text: js(res.Args)}, Options{ModelID: model})
		if len(again.Repairs) != 0 || !reflect.DeepEqual(again.Args, res.Args) {
			t.Errorf("second pass repairs %v", again.Repairs)
		}
	}
}

// TestHTMLEntitiesByEvidence runs real escaping code and entity-mangled code
// through Validate for models of every family: the value decides, never the
// family. Escaping code comes back byte for byte as write content and as
// edit text; mangled code and commands come back decoded.
func TestHTMLEntitiesByEvidence(t *testing.T) {
	reg := mustRegistry(t, ToolsFile{Tools: []ToolDef{{
		Name: "bash",
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"command": map[string]any{"type": "string"}},
			"required":   []any{"command"},
		},
	}}})
	models := []string{"", "gpt-4o", "gpt-5", "claude-opus-4-1", "grok-4", "deepseek-chat", "qwen3-coder-plus", "gemini-2.5-pro", "kimi-k2"}
	kept := []struct{ path, content string }{
		{"escape.js", "function esc(s) {\n  return s.replace(/&/g, \"&amp;\").replace(/</g, \"&lt;\").replace(/>/g, \"&gt;\");\n}\n"},
		{"escape.py", "HTML_ESCAPES = {\"&\": \"&amp;\", \"<\": \"&lt;\", \">\": \"&gt;\", '\"': \"&quot;\"}\n"},
		{"entities.py", "ENTITIES = {\n    \"lt\": \"&lt;\",\n    \"gt\": \"&gt;\",\n    \"amp\": \"&amp;\",\n}\n"},
		{"test_escape.py", "def test_escape():\n    assert escape(\"<a>\") == \"&lt;a&gt;\"\n"},
		{"escape.go", "var r = strings.NewReplacer(\"&\", \"&amp;\", \"<\", \"&lt;\", \">\", \"&gt;\", `\"`, \"&#34;\", \"'\", \"&#39;\")\n"},
		{"consts.go", "const lt = \"&lt;\"\n"},
		{"view.php", "<?php echo htmlspecialchars($s); // & becomes &amp;\n$s = str_replace('&amp;', '&', $s);\n"},
		{"escape.rs", "pub fn escape(s: &str) -> String {\n    s.replace('&', \"&amp;\").replace('<', \"&lt;\")\n}\n"},
		{"tpl.ts", "const open = `&lt;div class=&quot;x&quot;&gt;`;\n"},
		{"ENTITIES.md", "| entity | character |\n|---|---|\n| &lt; | less-than |\n| &amp; | ampersand |\n"},
		{"entities.txt", "&lt;  less-than sign\n&gt;  greater-than sign\n&amp; ampersand\n"},
		{"page.html", "<p>Tom &amp; Jerry</p>\n"},
		{"App.tsx", "a &lt; b &amp;&amp; c"},
	}
	decoded := []struct{ tool, param, path, in, want string }{
		{"write_to_file", "content", "a.js", "if (a &lt; b &amp;&amp; c &gt; d) {\n  f(x =&gt; x * 2);\n}\n", "if (a < b && c > d) {\n  f(x => x * 2);\n}\n"},
		{"write_to_file", "content", "a.py", "if a &lt; b:\n    s = &quot;x&quot;\n", "if a < b:\n    s = \"x\"\n"},
		{"write_to_file", "content", "main.go", "for i := 0; i &lt; n; i++ {\n\tp := &amp;xs[i]\n}\n", "for i := 0; i < n; i++ {\n\tp := &xs[i]\n}\n"},
		{"edit", "new_text", "a.js", "if (a &lt; b) { s = &quot;x&quot; }", "if (a < b) { s = \"x\" }"},
		{"bash", "command", "", "cd app &amp;&amp; make", "cd app && make"},
		{"bash", "command", "", "grep -E &quot;a|b&quot; file", "grep -E \"a|b\" file"},
		{"bash", "command", "", "npm test 2&gt;&amp;1 | tee log", "npm test 2>&1 | tee log"},
	}
	js := func(v any) string { raw, _ := json.Marshal(v); return string(raw) }
	for _, model := range models {
		for _, k := range kept {
			t.Run("kept "+k.path+"/"+model, func(t *testing.T) {
				res := reg.Validate(Call{Name: "write_to_file", Form: FormText, Text: js(map[string]any{"path": k.path, "content": k.content})}, Options{ModelID: model})
				if got := res.Args["content"]; got != k.content || len(res.Repairs) != 0 {
					t.Errorf("content = %q, repairs %v; want it byte for byte", got, codes(res.Repairs))
				}
				res = reg.Validate(Call{Name: "edit", Form: FormText, Text: js(map[string]any{"path": k.path, "old_text": "TODO", "new_text": k.content})}, Options{ModelID: model})
				if got := res.Args["new_text"]; got != k.content || len(res.Repairs) != 0 {
					t.Errorf("new_text = %q, repairs %v; want it byte for byte", got, codes(res.Repairs))
				}
			})
		}
		for _, d := range decoded {
			t.Run("decoded "+d.in+"/"+model, func(t *testing.T) {
				args := map[string]any{d.param: d.in}
				switch d.tool {
				case "write_to_file":
					args["path"] = d.path
				case "edit":
					args["path"], args["old_text"] = d.path, "TODO"
				}
				res := reg.Validate(Call{Name: d.tool, Form: FormText, Text: js(args)}, Options{ModelID: model})
				if got := res.Args[d.param]; got != d.want || !reflect.DeepEqual(codes(res.Repairs), []string{"HTML_ENTITIES_DECODED:" + d.param}) {
					t.Errorf("%s = %q, repairs %v; want %q decoded", d.param, got, codes(res.Repairs), d.want)
				}
			})
		}
	}
}

// TestHTMLEntitiesInXMLCalls checks the rule on XML tool calls, whose
// parameter text is taken as written (no XML entity decoding; the newlines
// around a value are the XML layout's).
func TestHTMLEntitiesInXMLCalls(t *testing.T) {
	reg := mustRegistry(t)
	tests := []struct{ text, param, want string }{
		{"<write_to_file>\n<path>a.ts</path>\n<content>\nconst ok = a &lt; b &amp;&amp; c;\n</content>\n</write_to_file>", "content", "const ok = a < b && c;"},
		{"<write_to_file>\n<path>esc.ts</path>\n<content>\nexport const esc = (s: string) => s.replace(/&/g, \"&amp;\");\n</content>\n</write_to_file>", "content", "export const esc = (s: string) => s.replace(/&/g, \"&amp;\");"},
		{"<edit>\n<path>a.py</path>\n<old_text>if a:</old_text>\n<new_text>if a &lt; b:</new_text>\n</edit>", "new_text", "if a < b:"},
	}
	for _, tt := range tests {
		for _, model := range []string{"claude-sonnet-4-5", "gpt-4o", "qwen3-coder-plus"} {
			res := reg.Validate(Call{Form: FormXML, Text: tt.text}, Options{ModelID: model})
			if got := res.Args[tt.param]; got != tt.want {
				t.Errorf("%s for %s: %s = %q, want %q", tt.text, model, tt.param, got, tt.want)
			}
		}
	}
}

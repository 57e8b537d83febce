package contentfix

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStripCodeFence(t *testing.T) {
	tests := []struct {
		name, content, path string
		want                string
		changed             bool
	}{
		{"python fence", "```py\nx = 1\n```", "a.py", "x = 1\n", true},
		{"no language", "```\nx = 1\ny = 2\n```\n", "a.py", "x = 1\ny = 2\n", true},
		{"surrounding whitespace", "\n\n  ```go\npackage a\n```  \n\n", "a.go", "package a\n", true},
		{"inner blank lines kept", "```\n\nx\n\n```", "a.txt", "\nx\n\n", true},
		{"inner indentation kept", "```py\n    x = 1\n```", "a.py", "    x = 1\n", true},
		{"crlf", "```py\r\nx = 1\r\ny = 2\r\n```\r\n", "a.py", "x = 1\r\ny = 2\r\n", true},
		// A fence inside a fence is a document about code blocks: left whole, so the repair stays idempotent.
		{"four backticks with inner fence", "````md\n```py\nx\n```\n````", "a.txt", "````md\n```py\nx\n```\n````", false},
		{"tildes", "~~~js\nlet a = 1\n~~~", "a.js", "let a = 1\n", true},
		{"longer closing fence", "```\nx\n`````", "a.txt", "x\n", true},
		{"closing fence indented", "```\nx\n   ```", "a.txt", "x\n", true},
		{"empty fence", "```\n```", "a.txt", "", true},
		{"info string with attributes", "```python title=\"a.py\"\nx\n```", "a.py", "x\n", true},
		{"empty path is not markdown", "```\nx\n```", "", "x\n", true},
		{"uppercase extension of code file", "```\nx\n```", "A.PY", "x\n", true},

		{"markdown target", "```py\nx = 1\n```", "README.md", "```py\nx = 1\n```", false},
		{"markdown target upper case", "```py\nx = 1\n```", "docs/GUIDE.MD", "```py\nx = 1\n```", false},
		{"markdown long extension", "```\nx\n```", "a.markdown", "```\nx\n```", false},
		{"mdx target", "```\nx\n```", `C:\docs\page.Mdx`, "```\nx\n```", false},
		{"prose after the fence", "```py\nx = 1\n```\nThis sets x.", "a.py", "```py\nx = 1\n```\nThis sets x.", false},
		{"prose before the fence", "Here it is:\n```py\nx = 1\n```", "a.py", "Here it is:\n```py\nx = 1\n```", false},
		{"two fences", "```py\na\n```\n```py\nb\n```", "a.py", "```py\na\n```\n```py\nb\n```", false},
		{"more after closing fence", "```\na\n```\nb\n```", "a.txt", "```\na\n```\nb\n```", false},
		{"not closed", "```py\nx = 1\n", "a.py", "```py\nx = 1\n", false},
		{"closing char differs", "```\nx\n~~~", "a.txt", "```\nx\n~~~", false},
		{"closing fence shorter", "````\nx\n```", "a.txt", "````\nx\n```", false},
		{"closing fence with text", "```\nx\n``` end", "a.txt", "```\nx\n``` end", false},
		{"closing fence indented 4", "```\nx\n    ```", "a.txt", "```\nx\n    ```", false},
		{"two backticks", "``\nx\n``", "a.txt", "``\nx\n``", false},
		{"inline code on one line", "```x = 1```", "a.py", "```x = 1```", false},
		{"backtick in info string", "``` a`b\nx\n```", "a.txt", "``` a`b\nx\n```", false},
		{"plain content", "x = 1\n", "a.py", "x = 1\n", false},
		{"fence in the middle", "a\n```\nb\n```\nc", "a.txt", "a\n```\nb\n```\nc", false},
		{"empty", "", "a.py", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := StripCodeFence(tt.content, tt.path)
			if got != tt.want || changed != tt.changed {
				t.Errorf("StripCodeFence(%q, %q) = %q, %v; want %q, %v", tt.content, tt.path, got, changed, tt.want, tt.changed)
			}
		})
	}
}

func TestDecodeEscapes(t *testing.T) {
	tests := []struct {
		name, content string
		want          string
		changed       bool
	}{
		{"function", `def f():\n    return 1\n`, "def f():\n    return 1\n", true},
		{"two lines", `import os\nimport sys\nprint(1)`, "import os\nimport sys\nprint(1)", true},
		{"yaml one-letter keys", `a: 1\nb:\n  c: 2\n`, "a: 1\nb:\n  c: 2\n", true},
		{"colon then newline", `while x:\n\tx -= 1\n`, "while x:\n\tx -= 1\n", true},
		{"one \n then indentation", `if x:\n    y()`, "if x:\n    y()", true},
		{"one \n then tab", `a {\n	b`, "a {\n\tb", true},
		{"one \n at the end", `echo hi\n`, "echo hi\n", true},
		{"quotes and backslashes one pass", `print(\"a\\nb\")\nx = 1\n`, "print(\"a\\nb\")\nx = 1\n", true},
		{"escaped backslash before n", `a\\n\nb\n`, "a\\n\nb\n", true},
		{"tabs crs slashes quotes", `a\tb\r\nc\/d\'e\n`, "a\tb\r\nc/d'e\n", true},
		{"unknown escapes kept", `re.compile(r'\d+\s')\nx = 1\n`, "re.compile(r'\\d+\\s')\nx = 1\n", true},
		{"unicode escapes", `s = \"\u00e9\ud83d\ude00\"\nt = 1\n`, "s = \"é😀\"\nt = 1\n", true},
		{"lone surrogate kept", `a\ud800b\nc\n`, "a\\ud800b\nc\n", true},
		{"short unicode kept", `a\u12\nb\n`, "a\\u12\nb\n", true},
		{"raw quotes balanced per line", `x = 'a'\ny = "b"\n`, "x = 'a'\ny = \"b\"\n", true},
		{"apostrophe in a comment", `# it's fine\nx = 1\n`, "# it's fine\nx = 1\n", true},
		{"JSON object double-escaped", `{\n  \"a\": 1\n}`, "{\n  \"a\": 1\n}", true},
		{"non-ASCII kept", `# héllo\nx = \"ü\"\n`, "# héllo\nx = \"ü\"\n", true},
		{"fenced and double-escaped", "```py\\nx = 1\\n```", "```py\nx = 1\n```", true},
		{"backtick quotes balanced", "s = `a`\\nt = `b`\\n", "s = `a`\nt = `b`\n", true},
		{"trailing backslash", `a\nb\n\`, "a\nb\n\\", true},

		{"whole content one JSON string literal", `"def f():\n    return 1\n"`, `"def f():\n    return 1\n"`, false},
		{"real newline present", "a\\nb\nc\\nd\n", "a\\nb\nc\\nd\n", false},
		{"real CR present", "a\\nb\\nc\r", "a\\nb\\nc\r", false},
		{"JSON text with real newlines", "{\n  \"msg\": \"a\\nb\\nc\"\n}\n", "{\n  \"msg\": \"a\\nb\\nc\"\n}\n", false},
		{"windows path", `C:\new\folder`, `C:\new\folder`, false},
		{"windows path two \n", `C:\new\net`, `C:\new\net`, false},
		{"windows path in a command", `copy C:\new\nodes.txt D:\new\n`, `copy C:\new\nodes.txt D:\new\n`, false},
		{"windows path no literal \n", `C:\table\folder`, `C:\table\folder`, false},
		{"python one-liner", `print('a\nb')`, `print('a\nb')`, false},
		{"python one-liner two \n", `print('a\nb\nc')`, `print('a\nb\nc')`, false},
		{"printf one-liner", `printf("%d\n%d\n", a, b);`, `printf("%d\n%d\n", a, b);`, false},
		{"minified JSON", `{"a":"x\ny","b":"p\nq"}`, `{"a":"x\ny","b":"p\nq"}`, false},
		{"template literal", "const s = `a\\nb\\nc`;", "const s = `a\\nb\\nc`;", false},
		{"single \n followed by code", `a\nb`, `a\nb`, false},
		{"single \n between statements", `import os\nimport sys`, `import os\nimport sys`, false},
		{"latex", `\title{x}\author{y}`, `\title{x}\author{y}`, false},
		{"regex", `\d+\s\w*`, `\d+\s\w*`, false},
		{"only escaped backslash n", `a\\nb\\nc`, `a\\nb\\nc`, false},
		{"tabs but no \n", `a\tb\tc`, `a\tb\tc`, false},
		{"empty", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := DecodeEscapes(tt.content)
			if got != tt.want || changed != tt.changed {
				t.Errorf("DecodeEscapes(%q) = %q, %v; want %q, %v", tt.content, got, changed, tt.want, tt.changed)
			}
		})
	}
}

// TestDecodeEscapesPlain: the one-pass decoder without the evidence test,
// which DecodeEscapes adds.
func TestDecodeEscapesPlain(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"one \\n", `line1\nline2`, "line1\nline2"},
		{"nothing escaped", "a\nb", "a\nb"},
		{"real and literal newlines", "a\\nb\nc", "a\nb\nc"},
		{"escaped backslash", `a\\nb`, `a\nb`},
		{"quotes tab cr slash", `\"x\"\t\r\/\'`, "\"x\"\t\r/'"},
		{"unknown kept", `\d\s`, `\d\s`},
		{"unicode", `\u00e9`, "é"},
		{"lone surrogate kept", `\ud800`, `\ud800`},
		{"trailing backslash", `a\`, `a\`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DecodeEscapesPlain(tt.in); got != tt.want {
				t.Errorf("DecodeEscapesPlain(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestEscapedNewlines(t *testing.T) {
	tests := []struct {
		name               string
		in                 string
		structural, quoted int
	}{
		{"structural", `a\nb\nc`, 2, 0},
		{"quoted", `print("a\nb")`, 0, 1},
		{"both", `x()\nprint('a\n')`, 1, 1},
		{"escaped backslash", `a\\nb`, 0, 0},
		{"drive path", `C:\new\file`, 0, 0},
		{"real newlines, quoted", "fmt.Printf(\"%d\\n\", x)\nreturn", 0, 1},
		{"apostrophe does not open a literal", "# it's\nx\\ny", 1, 0},
		{"a quote does not span a real newline", "s = 'a\nb\\nc", 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, q := EscapedNewlines(tt.in)
			if s != tt.structural || q != tt.quoted {
				t.Errorf("EscapedNewlines(%q) = %d, %d; want %d, %d", tt.in, s, q, tt.structural, tt.quoted)
			}
		})
	}
}

func TestDecodeHTMLEntities(t *testing.T) {
	tests := []struct {
		name, content, model, path string
		want                       string
		changed                    bool
	}{
		{"python deepseek", "if a &lt; b &amp;&amp; c &gt; d:\n    s = &quot;x&quot; + &#39;y&#39; + &apos;z&apos;\n",
			"deepseek-chat", "a.py", "if a < b && c > d:\n    s = \"x\" + 'y' + 'z'\n", true},
		{"one level only", "&amp;amp; &amp;lt; &amp;amp;lt;", "gpt-4o", "a.go", "&amp; &lt; &amp;lt;", true},
		{"numeric", "&#60;&#x3E;&#X3e;&#0039;&#128512;", "qwen", "a.c", "<>>'😀", true},
		{"nbsp", "a&nbsp;b&#160;c", "gemini", "a.txt", "a\u00a0b\u00a0c", true},
		{"empty model", "a &lt; b", "", "a.rs", "a < b", true},
		{"empty path", "a &lt; b", "gpt", "", "a < b", true},
		{"adjacent", "&lt;&lt;&gt;&gt;", "gpt", "a.cpp", "<<>>", true},
		{"crlf kept", "a &lt; b\r\nc\r\n", "gpt", "a.py", "a < b\r\nc\r\n", true},

		{"claude", "a &lt; b", "claude-3-5-sonnet", "a.py", "a &lt; b", false},
		{"claude upper case", "a &lt; b", "anthropic/Claude-Opus-4", "a.py", "a &lt; b", false},
		{"tsx", "const a = b &lt; c;", "deepseek", "App.tsx", "const a = b &lt; c;", false},
		{"html", "<p>&amp;</p>", "gpt", "index.HTML", "<p>&amp;</p>", false},
		{"htm", "&lt;", "gpt", "a.htm", "&lt;", false},
		{"xml", "&lt;", "gpt", "a.xml", "&lt;", false},
		{"svg", "&lt;", "gpt", "a.svg", "&lt;", false},
		{"jsx", "&lt;", "gpt", "src/a.jsx", "&lt;", false},
		{"vue", "&lt;", "gpt", "a.vue", "&lt;", false},
		{"md", "&lt;", "gpt", "README.md", "&lt;", false},
		{"no entity", "a && b < c", "gpt", "a.py", "a && b < c", false},
		{"no semicolon", "url?a=1&copy=2&lt=3", "gpt", "a.py", "url?a=1&copy=2&lt=3", false},
		{"unknown names", "&copy; &hellip; &LT; &Amp;", "gpt", "a.py", "&copy; &hellip; &LT; &Amp;", false},
		{"invalid numeric", "&#0; &#xD800; &#1114112; &#x; &#; &#123456789;", "gpt", "a.py", "&#0; &#xD800; &#1114112; &#x; &#; &#123456789;", false},
		{"lone ampersand at end", "a &", "gpt", "a.py", "a &", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := DecodeHTMLEntities(tt.content, tt.model, tt.path)
			if got != tt.want || changed != tt.changed {
				t.Errorf("DecodeHTMLEntities(%q, %q, %q) = %q, %v; want %q, %v", tt.content, tt.model, tt.path, got, changed, tt.want, tt.changed)
			}
		})
	}
}

func TestRemoveReplacementChars(t *testing.T) {
	tests := []struct {
		name, content string
		want          string
		changed       bool
	}{
		{"one", "a\uFFFDb", "ab", true},
		{"several", "\uFFFD\uFFFDx = 1\n\uFFFD", "x = 1\n", true},
		{"only", "\uFFFD", "", true},
		{"none", "héllo wörld 😀\n", "héllo wörld 😀\n", false},
		{"invalid bytes kept", "a\xffb", "a\xffb", false},
		{"empty", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := RemoveReplacementChars(tt.content)
			if got != tt.want || changed != tt.changed {
				t.Errorf("RemoveReplacementChars(%q) = %q, %v; want %q, %v", tt.content, got, changed, tt.want, tt.changed)
			}
		})
	}
}

func TestStripLineNumbers(t *testing.T) {
	tests := []struct {
		name, text string
		want       string
		changed    bool
	}{
		{"padded pipe", "  7 | def f():\n  8 |     return 1", "def f():\n    return 1", true},
		{"unpadded pipe multi-line", "7 | a\n8 | b\n", "a\nb\n", true},
		{"width change", "  9 | a\n 10 | b\n 11 | c", "a\nb\nc", true},
		{"pipe without spaces", "7|a\n8|  b", "a\n b", true},
		{"empty line with prefix and space", "  7 | a\n  8 | \n  9 | c", "a\n\nc", true},
		{"empty line with prefix no space", "  7 | a\n  8 |\n  9 | c", "a\n\nc", true},
		{"blank line without prefix takes its number", "  7 | a\n\n  9 | c", "a\n\nc", true},
		{"cat -n tab form", "     7\tdef f():\n     8\t    return 1\n", "def f():\n    return 1\n", true},
		{"cat -n empty line trimmed", "     7\ta\n     8\n     9\tc", "a\n\nc", true},
		{"cat -n empty line with tab", "     7\ta\n     8\t\n     9\tc", "a\n\nc", true},
		{"arrow form", "    12→func a() {\n    13→}", "func a() {\n}", true},
		{"crlf", "  7 | a\r\n  8 | b\r\n", "a\r\nb\r\n", true},
		{"crlf with empty numbered line", "  7 | a\r\n  8 |\r\n  9 | c", "a\r\n\r\nc", true},
		{"single padded pipe line", "  7 | x = 1", "x = 1", true},
		{"single padded pipe line with newline", " 42 | return x\n", "return x\n", true},
		{"single cat -n line", "     7\tx = 1", "x = 1", true},
		{"single 6-digit cat -n line", "123456\tx", "x", true},
		{"single padded arrow line", "     7→x", "x", true},
		{"keeps code indentation after one space", "  3 |     if x:\n  4 |         y()", "    if x:\n        y()", true},

		{"table single line", "200 | OK", "200 | OK", false},
		{"single unpadded line", "7 | x = 1", "7 | x = 1", false},
		{"single unpadded arrow", "7→x", "7→x", false},
		{"not consecutive", "  7 | a\n  9 | b", "  7 | a\n  9 | b", false},
		{"decreasing", "  8 | a\n  7 | b", "  8 | a\n  7 | b", false},
		{"table with header", "code | text\n200 | OK\n201 | Created", "code | text\n200 | OK\n201 | Created", false},
		{"table not consecutive", "200 | OK\n404 | Not Found", "200 | OK\n404 | Not Found", false},
		{"one line without prefix", "  7 | a\nb\n  9 | c", "  7 | a\nb\n  9 | c", false},
		{"mixed forms", "  7 | a\n     8\tb", "  7 | a\n     8\tb", false},
		{"tsv data", "1\tAlice\n2\tBob\n3\tCarol", "1\tAlice\n2\tBob\n3\tCarol", false},
		{"numbers only", "1\n2\n3", "1\n2\n3", false},
		{"padded numbers only", "  1\n  2\n  3", "  1\n  2\n  3", false},
		{"bare numbers in pipe block", "  7 | a\n  8\n  9 | c", "  7 | a\n  8\n  9 | c", false},
		{"starts at zero", "0 | a\n1 | b", "0 | a\n1 | b", false},
		{"blank line first would be line 0", "\n  1 | a", "\n  1 | a", false},
		{"plain code", "x = 1\ny = 2\n", "x = 1\ny = 2\n", false},
		{"code starting with numbers", "1 + 2\n3 + 4", "1 + 2\n3 + 4", false},
		{"ten digit number", "  1234567890 | a\n  1234567891 | b", "  1234567890 | a\n  1234567891 | b", false},
		{"empty", "", "", false},
		{"blank only", "\n\n", "\n\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := StripLineNumbers(tt.text)
			if got != tt.want || changed != tt.changed {
				t.Errorf("StripLineNumbers(%q) = %q, %v; want %q, %v", tt.text, got, changed, tt.want, tt.changed)
			}
		})
	}
}

func TestFindPlaceholder(t *testing.T) {
	tests := []struct {
		name, content string
		line          int
		text          string
	}{
		{"rest of the code unchanged", "import os\n\n// ... rest of the code unchanged ...\n", 3, "// ... rest of the code unchanged ..."},
		{"existing code here", "def f():\n    # existing code here\n    return 1\n", 2, "# existing code here"},
		{"block comment existing code", "int a;\n/* ... existing code ... */\n", 2, "/* ... existing code ... */"},
		{"html comment", "<div>\n  <!-- rest of file unchanged -->\n</div>\n", 2, "<!-- rest of file unchanged -->"},
		{"no spaces around ellipsis", "// ...existing code...", 1, "// ...existing code..."},
		{"parenthesised", "x = 1\n# ... (rest of file unchanged)", 2, "# ... (rest of file unchanged)"},
		{"bracketed previous code", "// [previous code remains the same]\nfunc a() {}\n", 1, "// [previous code remains the same]"},
		{"sql", "SELECT 1;\n-- rest of the query unchanged\n", 2, "-- rest of the query unchanged"},
		{"semicolon comment", "; rest of config unchanged", 1, "; rest of config unchanged"},
		{"jsx comment", "return (\n  <div>\n    {/* ... existing code ... */}\n  </div>\n);", 3, "{/* ... existing code ... */}"},
		{"other methods with ellipsis", "class A {\n  // ... other methods ...\n}", 2, "// ... other methods ..."},
		{"rest of implementation remains the same", "// Rest of the implementation remains the same", 1, "// Rest of the implementation remains the same"},
		{"omitted for brevity", "# ... omitted for brevity ...", 1, "# ... omitted for brevity ..."},
		{"omitted for brevity plain", "# tests omitted for brevity", 1, "# tests omitted for brevity"},
		{"same as before decorated", "// ... same as before ...", 1, "// ... same as before ..."},
		{"keep existing code", "// keep existing code", 1, "// keep existing code"},
		{"unicode ellipsis", "// … rest of component …", 1, "// … rest of component …"},
		{"rest of file bare", "# rest of the file", 1, "# rest of the file"},
		{"rest goes here", "// rest of the code goes here", 1, "// rest of the code goes here"},
		{"rest unchanged", "# rest unchanged", 1, "# rest unchanged"},
		{"crlf", "a = 1\r\n# existing code here\r\n", 2, "# existing code here"},
		{"indented with tab", "\t\t// ... existing code ...", 1, "// ... existing code ..."},
		{"first one reported", "// ... existing code ...\n// rest of file unchanged", 1, "// ... existing code ..."},

		{"python ellipsis", "def f():\n    ...\n", 0, ""},
		{"python ellipsis assignment", "x = ...\n", 0, ""},
		{"pass todo", "def f():\n    pass  # TODO\n", 0, ""},
		{"rest api client", "# rest api client\nimport requests\n", 0, ""},
		{"rest of the items", "# handle the rest of the items\n", 0, ""},
		{"rest of the items alone", "# rest of the items\n", 0, ""},
		{"rest of the string", "// rest of the string is unchanged", 0, ""},
		{"string literal", "msg = \"rest of the code unchanged\"\n", 0, ""},
		{"inline comment after code", "foo()  // rest of file unchanged\n", 0, ""},
		{"returns value unchanged", "// returns the value unchanged\n", 0, ""},
		{"dont break existing code", "// don't break existing code\n", 0, ""},
		{"markdown heading", "# Existing code\n\nSome text.\n", 0, ""},
		{"section header", "# Other helpers\ndef g(): pass\n", 0, ""},
		{"file unchanged branch comment", "if same:\n    # file unchanged\n    return\n", 0, ""},
		{"same as before in tests", "# same as before\nassert f(2) == 3\n", 0, ""},
		{"existing file left unchanged if", "# existing file left unchanged if the write fails\n", 0, ""},
		{"omitted fields", "// omitted fields are zero\n", 0, ""},
		{"include", "#include <stdio.h>\n", 0, ""},
		{"shebang", "#!/usr/bin/env python\n", 0, ""},
		{"css id", "#main { color: red }\n", 0, ""},
		{"todo", "// TODO: rest\n", 0, ""},
		{"existing behaviour", "# existing behaviour unchanged\n", 0, ""},
		{"plain comment", "// compute the sum\n", 0, ""},
		{"keep old code", "# keep old code\ndef legacy(): pass\n", 0, ""},
		{"keep existing code working", "// keep existing code working\n", 0, ""},
		{"empty", "", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, text, ok := FindPlaceholder(tt.content)
			if ok != (tt.line > 0) || line != tt.line || text != tt.text {
				t.Errorf("FindPlaceholder(%q) = %d, %q, %v; want %d, %q", tt.content, line, text, ok, tt.line, tt.text)
			}
		})
	}
}

// FuzzContentFixes checks the content fixes' contracts on arbitrary input:
// no panic; "unchanged" means the very same text; valid UTF-8 stays valid;
// the guards (Markdown target, real newline, claude model, markup target)
// hold; and the idempotence each fix promises:
//
//   - StripCodeFence strips one level: a second call changes the text only
//     when the inner text is itself a whole fence.
//   - DecodeEscapes is idempotent: its output holds a real newline.
//   - RemoveReplacementChars is idempotent on valid UTF-8.
//   - StripLineNumbers is not idempotent (numbered lines inside the file lose
//     one level per call); it keeps the line count and every output line is a
//     suffix of its input line.
//   - DecodeHTMLEntities decodes one level, so it is not idempotent; it only
//     shortens the text.
func FuzzContentFixes(f *testing.F) {
	for _, s := range []struct{ content, path, model string }{
		{"```py\nx = 1\n```", "a.py", "gpt"},
		{"````\n```\nx\n```\n````", "a.txt", ""},
		{"```py\r\nx = 1\r\n```\r\n", "a.md", "claude"},
		{`def f():\n    return 1\n`, "a.py", "deepseek"},
		{`C:\new\folder`, "a.txt", ""},
		{`print('a\nb')`, "a.py", ""},
		{"x()\nprint('a\\n')\n# it's\\n", "a.py", ""},
		{`s = \"\ud83d\ude00\"\n\u00e9\n`, "a.py", ""},
		{"a &lt; b &amp;amp; &#x1F600; &#39;", "a.py", "qwen"},
		{"a\uFFFDb\xef\xbf", "a.go", ""},
		{"  7 | a\n  8 |\n  9 | c\n", "a.go", ""},
		{"     7\ta\r\n     8\r\n     9\tc", "a.go", ""},
		{"  1 |   1 | a\n  2 |   2 | b", "a.go", ""},
		{"x\n// ... rest of the code unchanged ...\n", "a.js", ""},
		{"<!-- rest of file unchanged -->", "a.html", ""},
	} {
		f.Add(s.content, s.path, s.model)
	}
	f.Fuzz(func(t *testing.T, content, path, model string) {
		fuzzFence(t, content, path)
		fuzzEscapes(t, content)
		fuzzEntities(t, content, model, path)
		fuzzReplacementChars(t, content)
		fuzzLineNumbers(t, content)
		fuzzPlaceholder(t, content)
	})
}

// checkFix fails when a fix's report of a change disagrees with its output,
// or when it turns valid UTF-8 into invalid.
func checkFix(t *testing.T, name, content, out string, changed bool) {
	t.Helper()
	if !changed && out != content {
		t.Fatalf("%s(%q): reported no change but returned %q", name, content, out)
	}
	if changed && out == content {
		t.Fatalf("%s(%q): reported a change but returned the same text", name, content)
	}
	if utf8.ValidString(content) && !utf8.ValidString(out) {
		t.Fatalf("%s(%q) = %q: invalid UTF-8", name, content, out)
	}
}

func fuzzFence(t *testing.T, content, path string) {
	out, changed := StripCodeFence(content, path)
	checkFix(t, "StripCodeFence", content, out, changed)
	if isMarkdownPath(path) && changed {
		t.Fatalf("StripCodeFence changed Markdown target %q", path)
	}
	if changed {
		if len(out) >= len(content) || !strings.Contains(content, out) {
			t.Fatalf("StripCodeFence(%q) = %q: not an inner part", content, out)
		}
		if again, ch := StripCodeFence(out, path); ch {
			if tl := strings.TrimLeft(out, " \t\r\n"); !strings.HasPrefix(tl, "```") && !strings.HasPrefix(tl, "~~~") {
				t.Fatalf("StripCodeFence stripped %q again to %q without a nested fence", out, again)
			}
		}
	}
}

func fuzzEscapes(t *testing.T, content string) {
	out, changed := DecodeEscapes(content)
	checkFix(t, "DecodeEscapes", content, out, changed)
	if changed {
		if strings.ContainsAny(content, "\n\r") {
			t.Fatalf("DecodeEscapes ran on %q, which has a real newline", content)
		}
		if len(out) >= len(content) || !strings.Contains(out, "\n") {
			t.Fatalf("DecodeEscapes(%q) = %q: should shrink and hold a newline", content, out)
		}
		if again, ch := DecodeEscapes(out); ch || again != out {
			t.Fatalf("DecodeEscapes not idempotent: %q → %q → %q", content, out, again)
		}
		if plain := DecodeEscapesPlain(content); plain != out {
			t.Fatalf("DecodeEscapes(%q) = %q but the plain decoder gives %q", content, out, plain)
		}
	}
	if plain := DecodeEscapesPlain(content); len(plain) > len(content) || (plain != content && !strings.Contains(content, `\`)) {
		t.Fatalf("DecodeEscapesPlain(%q) = %q: should never grow, nor change a text without a backslash", content, plain)
	}
	s, q := EscapedNewlines(content)
	if n := strings.Count(content, `\n`); s+q > n {
		t.Fatalf("EscapedNewlines(%q) = %d, %d: more than the %d \\n present", content, s, q, n)
	}
}

func fuzzEntities(t *testing.T, content, model, path string) {
	out, changed := DecodeHTMLEntities(content, model, path)
	checkFix(t, "DecodeHTMLEntities", content, out, changed)
	if changed {
		if strings.Contains(strings.ToLower(model), "claude") || isMarkupPath(path) {
			t.Fatalf("DecodeHTMLEntities ran for model %q path %q", model, path)
		}
		if len(out) >= len(content) {
			t.Fatalf("DecodeHTMLEntities(%q) = %q: should shrink", content, out)
		}
	}
}

func fuzzReplacementChars(t *testing.T, content string) {
	out, changed := RemoveReplacementChars(content)
	checkFix(t, "RemoveReplacementChars", content, out, changed)
	if utf8.ValidString(content) {
		if strings.ContainsRune(out, utf8.RuneError) {
			t.Fatalf("RemoveReplacementChars(%q) = %q: U+FFFD left", content, out)
		}
		if again, ch := RemoveReplacementChars(out); ch || again != out {
			t.Fatalf("RemoveReplacementChars not idempotent on %q", content)
		}
	}
}

func fuzzLineNumbers(t *testing.T, content string) {
	out, changed := StripLineNumbers(content)
	checkFix(t, "StripLineNumbers", content, out, changed)
	if changed {
		in := strings.Split(content, "\n")
		got := strings.Split(out, "\n")
		if len(in) != len(got) {
			t.Fatalf("StripLineNumbers(%q) = %q: line count changed", content, out)
		}
		for i := range in {
			if !strings.HasSuffix(in[i], got[i]) {
				t.Fatalf("StripLineNumbers(%q) = %q: line %d %q is not a suffix of %q", content, out, i+1, got[i], in[i])
			}
		}
	}
}

func fuzzPlaceholder(t *testing.T, content string) {
	if line, text, ok := FindPlaceholder(content); ok {
		lines := strings.Split(content, "\n")
		if line < 1 || line > len(lines) || strings.TrimSpace(lines[line-1]) != text {
			t.Fatalf("FindPlaceholder(%q) = %d, %q: not that line", content, line, text)
		}
		if _, isComment := commentBody(text); !isComment {
			t.Fatalf("FindPlaceholder(%q) = %q: no comment marker", content, text)
		}
	} else if line != 0 || text != "" {
		t.Fatalf("FindPlaceholder(%q) = %d, %q without ok", content, line, text)
	}
}

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

// escapingCode is real code that writes entities on purpose: it must come
// through byte for byte whatever the model.
var escapingCode = []struct{ name, path, content string }{
	{"js replace chain", "escape.js", "function esc(s) {\n  return s.replace(/&/g, \"&amp;\").replace(/</g, \"&lt;\").replace(/>/g, \"&gt;\");\n}\n"},
	{"js map of entities", "escape.ts", "const MAP: Record<string, string> = { \"&\": \"&amp;\", \"<\": \"&lt;\", \">\": \"&gt;\", '\"': \"&quot;\", \"'\": \"&#39;\" };\n"},
	{"python dict table", "escape.py", "HTML_ESCAPES = {\"&\": \"&amp;\", \"<\": \"&lt;\", \">\": \"&gt;\"}\n\ndef escape(s):\n    return \"\".join(HTML_ESCAPES.get(c, c) for c in s)\n"},
	{"python entity names only", "entities.py", "ENTITIES = {\n    \"lt\": \"&lt;\",\n    \"gt\": \"&gt;\",\n    \"amp\": \"&amp;\",\n    \"quot\": \"&quot;\",\n}\n"},
	{"python test of escaped output", "test_escape.py", "def test_escape():\n    assert escape(\"<a>\") == \"&lt;a&gt;\"\n    assert escape(\"a & b\") == \"a &amp; b\"\n"},
	{"python unescape", "unescape.py", "s = s.replace('&lt;', '<').replace('&gt;', '>').replace('&amp;', '&')\n"},
	{"go replacer", "escape.go", "var htmlEscaper = strings.NewReplacer(\n\t\"&\", \"&amp;\",\n\t\"<\", \"&lt;\",\n\t\">\", \"&gt;\",\n\t`\"`, \"&#34;\",\n\t\"'\", \"&#39;\",\n)\n"},
	{"go test want", "escape_test.go", "func TestEscape(t *testing.T) {\n\tif got := Escape(\"<b>\"); got != \"&lt;b&gt;\" {\n\t\tt.Fatal(got)\n\t}\n}\n"},
	{"go literals only", "consts.go", "const (\n\tlt = \"&lt;\"\n\tamp = \"&amp;\"\n)\n"},
	{"php htmlspecialchars", "view.php", "<?php\n$safe = htmlspecialchars($s, ENT_QUOTES); // & becomes &amp;\necho str_replace('&amp;', '&', $safe);\n"},
	{"rust replace", "escape.rs", "pub fn escape(s: &str) -> String {\n    s.replace('&', \"&amp;\").replace('<', \"&lt;\")\n}\n"},
	{"js template literal", "tpl.js", "const open = `&lt;div class=&quot;x&quot;&gt;`;\nconst close = `&lt;/div&gt;`;\n"},
	{"entity table in markdown", "ENTITIES.md", "| entity | character |\n|---|---|\n| `&lt;` | < |\n| `&amp;` | & |\n"},
	{"prose in a text file", "credits.txt", "Tom &amp; Jerry &lt;3\nx &lt; y\n"},
	{"csv row from an html export", "export.csv", "id,title\n1,Tom &amp; Jerry\n2,a &lt; b\n"},
	{"entity table as text", "entities.txt", "&lt;  less-than sign\n&gt;  greater-than sign\n&amp; ampersand\n&quot; quotation mark\n"},
	{"sql with escaped literal", "q.sql", "SELECT * FROM t WHERE body LIKE '%&amp;%';\n"},
	{"shell sed", "", "sed -i 's/&/\\&amp;/g' page.html"},
	{"url with raw ampersand", "", "curl 'https://x.test/?a=1&b=2&amp;c'"},
	{"quote raw and encoded", "a.js", "if (a &lt; b) { s = \"&quot;\" }\n"},
	{"numeric of other characters", "a.py", "if a &lt; b: x = 1 &#169; 2\n"},
	{"nbsp is not ours", "a.py", "if a &lt; b:&nbsp;pass\n"},
}

func TestDecodeHTMLEntitiesKeepsEscapingCode(t *testing.T) {
	for _, tt := range escapingCode {
		t.Run(tt.name, func(t *testing.T) {
			if got, changed := DecodeHTMLEntities(tt.content, tt.path); changed || got != tt.content {
				t.Errorf("DecodeHTMLEntities(%q, %q) = %q, %v; want it unchanged", tt.content, tt.path, got, changed)
			}
		})
	}
}

func TestDecodeHTMLEntities(t *testing.T) {
	tests := []struct {
		name, content, path string
		want                string
	}{
		{"python condition", "if a &lt; b &amp;&amp; c &gt; d:\n    s = &quot;x&quot; + &#39;y&#39; + &apos;z&apos;\n",
			"a.py", "if a < b && c > d:\n    s = \"x\" + 'y' + 'z'\n"},
		{"js condition", "if (a &lt; b &amp;&amp; c &gt; d) {\n  return;\n}\n", "a.js", "if (a < b && c > d) {\n  return;\n}\n"},
		{"arrow function", "const f = x =&gt; x * 2;\n", "a.ts", "const f = x => x * 2;\n"},
		{"encoded quotes act as quotes", "if (a &lt; b) { s = &quot;x&quot; }", "a.js", "if (a < b) { s = \"x\" }"},
		{"raw quotes kept raw", "if (a &lt; b) { s = \"x\" }", "a.js", "if (a < b) { s = \"x\" }"},
		{"bash and", "cd app &amp;&amp; make", "", "cd app && make"},
		{"grep with encoded quotes", "grep -E &quot;a|b&quot; file", "", "grep -E \"a|b\" file"},
		{"redirects", "make 2&gt;&amp;1 | tee log &gt; out.txt", "", "make 2>&1 | tee log > out.txt"},
		{"heredoc", "cat &lt;&lt;EOF\nx\nEOF", "", "cat <<EOF\nx\nEOF"},
		{"background", "sleep 1 &amp;", "", "sleep 1 &"},
		{"go channel", "v := &lt;-ch\n", "a.go", "v := <-ch\n"},
		{"rust reference", "let r = &amp;mut v;\nf(&amp;x);\n", "a.rs", "let r = &mut v;\nf(&x);\n"},
		{"generics", "List&lt;String&gt; xs = new ArrayList&lt;&gt;();\n", "A.java", "List<String> xs = new ArrayList<>();\n"},
		{"include", "#include &lt;stdio.h&gt;\n", "a.c", "#include <stdio.h>\n"},
		{"comparison at a line start after an operator line", "ok = (a\n    &amp;&amp; b)\n", "a.py", "ok = (a\n    && b)\n"},
		{"string content decoded with the code", "if a &lt; b:\n    s = \"&lt;p&gt;\"\n", "a.py", "if a < b:\n    s = \"<p>\"\n"},
		{"one level only", "x = a &amp;&amp; b; s = '&amp;amp;'", "a.js", "x = a && b; s = '&amp;'"},
		{"numeric forms", "if (a &#60; b &#x26;&#x26; c &#X3E; d) s = &#34;x&#x22;", "a.c", "if (a < b && c > d) s = \"x\""},
		{"crlf kept", "a &lt; b\r\nc\r\n", "a.py", "a < b\r\nc\r\n"},
		{"apostrophe in a comment", "// don't\nif (a &lt; b) {}\n", "a.js", "// don't\nif (a < b) {}\n"},
		{"unknown extension", "a &lt; b", "Makefile", "a < b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := DecodeHTMLEntities(tt.content, tt.path)
			if got != tt.want || !changed {
				t.Errorf("DecodeHTMLEntities(%q, %q) = %q, %v; want %q, true", tt.content, tt.path, got, changed, tt.want)
			}
		})
	}
	kept := []struct{ name, content, path string }{
		{"tsx", "const a = b &lt; c;", "App.tsx"},
		{"html", "a &lt; b", "index.HTML"},
		{"htm", "a &lt; b", "a.htm"},
		{"xml", "a &lt; b", "a.xml"},
		{"svg", "a &lt; b", "a.svg"},
		{"jsx", "a &lt; b", "src/a.jsx"},
		{"vue", "a &lt; b", "a.vue"},
		{"md", "a &lt; b", "README.md"},
		{"template", "a &lt; b", "views/a.erb"},
		{"no entity", "a && b < c", "a.py"},
		{"raw less-than beside", "a &lt; b < c", "a.py"},
		{"raw ampersand beside", "a &lt; b & c", "a.py"},
		{"no semicolon", "url?a=1&copy=2&lt=3", "a.py"},
		{"unknown names", "a &lt; b &copy; &hellip;", "a.py"},
		{"invalid numeric", "a &lt; b &#0; &#xD800; &#; &#123456789;", "a.py"},
		{"lone ampersand at end", "a &lt; b &", "a.py"},
		{"only in a literal", "x = '&lt;'\n", "a.py"},
		{"only in a backtick literal", "s := `a &lt; b`", "a.go"},
		{"only in a triple-quoted literal", "doc = \"\"\"\na &lt; b\n\"\"\"\n", "a.py"},
		{"entity at a line start", "&lt; less\n&gt; greater", "a.txt"},
		{"table cells", "| &lt; | lt |", "a.txt"},
		{"unclosed encoded quote", "&quot; quotation mark", "a.txt"},
		{"empty", "", "a.py"},
	}
	for _, tt := range kept {
		t.Run("kept "+tt.name, func(t *testing.T) {
			if got, changed := DecodeHTMLEntities(tt.content, tt.path); changed || got != tt.content {
				t.Errorf("DecodeHTMLEntities(%q, %q) = %q, %v; want it unchanged", tt.content, tt.path, got, changed)
			}
		})
	}
}

func TestDecodeHTMLEntitiesTogether(t *testing.T) {
	tests := []struct {
		name, old, new, path string
		wantOld, wantNew     string
		changed              bool
	}{
		{"both encoded", "if (a &lt; b)", "if (a &lt; b &amp;&amp; c)", "a.js", "if (a < b)", "if (a < b && c)", true},
		{"evidence in new text decides for old", "s = &quot;&amp;&quot;", "if a &lt; b: s = &quot;&amp;&quot;", "a.py", "s = \"&\"", "if a < b: s = \"&\"", true},
		{"old text without entities", "return x", "return x &amp;&amp; y", "a.js", "return x", "return x && y", true},
		{"raw in old text keeps both", "a < b", "a &lt; b &amp;&amp; c", "a.js", "a < b", "a &lt; b &amp;&amp; c", false},
		{"quote raw in one, encoded in the other", "s = \"x\"", "if a &lt; b: s = &quot;x&quot;", "a.py", "s = \"x\"", "if a &lt; b: s = &quot;x&quot;", false},
		{"markup", "a &lt; b", "a &lt; c", "a.html", "a &lt; b", "a &lt; c", false},
		{"escaping code in both", "s.replace(/&/g, \"&amp;\")", "s.replace(/&/g, \"&amp;\").replace(/</g, \"&lt;\")", "a.js",
			"s.replace(/&/g, \"&amp;\")", "s.replace(/&/g, \"&amp;\").replace(/</g, \"&lt;\")", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changed := DecodeHTMLEntitiesTogether(tt.path, tt.old, tt.new)
			if out[0] != tt.wantOld || out[1] != tt.wantNew || changed != tt.changed {
				t.Errorf("DecodeHTMLEntitiesTogether(%q, %q) = %q, %v; want %q, %q, %v", tt.old, tt.new, out, changed, tt.wantOld, tt.wantNew, tt.changed)
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
		{"bare ellipsis", "function f() {\n  // ...\n}\n", 2, "// ..."},
		{"bare hash ellipsis", "x = 1\n# ...\n", 2, "# ..."},
		{"bare block ellipsis", "/* … */", 1, "/* … */"},
		{"hash rest of file", "# ... (rest of file)", 1, "# ... (rest of file)"},
		{"remaining code omitted", "// remaining code omitted", 1, "// remaining code omitted"},
		{"unchanged code here", "# unchanged code here", 1, "# unchanged code here"},
		{"latex comment", "% ... rest of the document unchanged ...", 1, "% ... rest of the document unchanged ..."},

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
		{"dots in a sentence", "// wait... then retry\n", 0, ""},
		{"separator", "// ----\n# ====\n", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, text, ok := FindPlaceholder(tt.content, "a.txt")
			if ok != (tt.line > 0) || line != tt.line || text != tt.text {
				t.Errorf("FindPlaceholder(%q) = %d, %q, %v; want %d, %q", tt.content, line, text, ok, tt.line, tt.text)
			}
		})
	}
}

// TestFindPlaceholderLanguages checks the elision comments models write in
// other languages, and remarks in those languages that are code comments.
func TestFindPlaceholderLanguages(t *testing.T) {
	placeholders := []struct{ lang, comment string }{
		{"zh", "// ... 其余代码保持不变 ..."},
		{"zh", "// 其余代码保持不变"},
		{"zh", "// 其他代码不变"},
		{"zh", "# 其他方法保持不变"},
		{"zh", "// 此处省略"},
		{"zh", "// ...省略..."},
		{"zh", "// 省略"},
		{"zh", "/* 之前的代码保持不变 */"},
		{"zh", "// ... 原有代码 ..."},
		{"zh", "// 保留原有代码"},
		{"zh", "// （原有代码保持不变）"},
		{"zh", "<!-- 其余内容不变 -->"},
		{"zh", "-- 其余部分保持不变"},
		{"zh", "// ... 保持不变 ..."},
		{"zh", "// 此处省略 50 行代码"},
		{"zh", "// 省略部分代码"},
		{"zh", "// 这里是原有代码"},
		{"zh", "// 保持原有代码不变"},
		{"zh", "// ...（其余代码）..."},
		{"ja", "// ... 既存のコード ..."},
		{"ja", "// 残りのコードは変更なし"},
		{"ja", "// 以下省略"},
		{"ja", "# 他の処理はそのまま"},
		{"ko", "// ... 기존 코드 ..."},
		{"ko", "// 나머지 코드는 동일"},
		{"ko", "// 생략"},
		{"ko", "// 이전 코드와 동일"},
		{"es", "// ... resto del código sin cambios ..."},
		{"es", "// ... código existente ..."},
		{"es", "# el resto permanece igual"},
		{"es", "// ... como antes ..."},
		{"pt", "// ... resto do código permanece igual ..."},
		{"fr", "// ... reste du code inchangé ..."},
		{"fr", "// le reste du code reste identique"},
		{"fr", "// ... code existant ..."},
		{"fr", "// le reste est inchangé"},
		{"de", "// ... restlicher Code unverändert ..."},
		{"de", "// Rest des Codes bleibt gleich"},
		{"de", "// ... bestehender Code ..."},
		{"it", "// ... resto del codice invariato ..."},
		{"ru", "// ... остальной код без изменений ..."},
		{"ru", "// ... существующий код ..."},
		{"ru", "# остальные методы не изменились"},
	}
	for _, tt := range placeholders {
		t.Run(tt.lang+" "+tt.comment, func(t *testing.T) {
			content := "x = 1\n    " + tt.comment + "\ny = 2\n"
			if line, text, ok := FindPlaceholder(content, "a.py"); !ok || line != 2 || text != tt.comment {
				t.Errorf("FindPlaceholder(%q) = %d, %q, %v; want 2, %q", content, line, text, ok, tt.comment)
			}
		})
	}
	remarks := []string{
		"// 如果值不变则返回",
		"// 省略号",
		"// 不变量",
		"// 其他情况",
		"// 以下代码处理错误",
		"// 其余情况返回空",
		"// 省略参数时使用默认值",
		"// 内容不变时跳过",
		"// 保持不变",
		"# 原有代码",
		"// 代码",
		"// 既存のユーザーを取得",
		"// 기존 사용자 조회",
		"// código de error",
		"// el resto",
		"// Rest berechnen",
		"// остаток от деления",
		"// igual",
		"// le code",
	}
	for _, c := range remarks {
		t.Run("remark "+c, func(t *testing.T) {
			if line, text, ok := FindPlaceholder("x = 1\n"+c+"\n", "a.py"); ok {
				t.Errorf("FindPlaceholder found %q at line %d in a remark", text, line)
			}
		})
	}
}

func TestFindPlaceholderMarkdown(t *testing.T) {
	doc := "# Usage\n\n```go\nfunc main() {\n    // ...\n}\n```\n"
	if line, text, ok := FindPlaceholder(doc, "README.md"); ok {
		t.Errorf("FindPlaceholder found %q at line %d in a Markdown example", text, line)
	}
	if _, _, ok := FindPlaceholder(doc+"<!-- rest of the file unchanged -->\n", "README.md"); !ok {
		t.Error("FindPlaceholder missed a placeholder phrase in Markdown")
	}
}

func TestFindNewPlaceholder(t *testing.T) {
	tests := []struct {
		name, old, new string
		line           int
		text           string
	}{
		{"placeholder added", "def f():\n    return 1\n", "def f():\n    # ... existing code ...\n    return 2\n", 2, "# ... existing code ..."},
		{"chinese placeholder added", "a()\nb()\n", "// 其余代码保持不变\nc()\n", 1, "// 其余代码保持不变"},
		{"empty old text", "", "// ...\n", 1, "// ..."},
		{"the file's own comment kept", "    // ...\n    x := 1\n", "    // ...\n    x := 2\n", 0, ""},
		{"kept whatever its indentation", "\t// rest of the code unchanged\n", "        // rest of the code unchanged\nfoo()\n", 0, ""},
		{"python ellipsis", "def f():\n    pass\n", "def f():\n    ...\n", 0, ""},
		{"pass", "def f():\n    ...\n", "def f():\n    pass\n", 0, ""},
		{"no comment", "a = 1", "a = 2", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, text, ok := FindNewPlaceholder(tt.old, tt.new, "a.go")
			if ok != (tt.line > 0) || line != tt.line || text != tt.text {
				t.Errorf("FindNewPlaceholder(%q, %q) = %d, %q, %v; want %d, %q", tt.old, tt.new, line, text, ok, tt.line, tt.text)
			}
		})
	}
}

// FuzzContentFixes checks the content fixes' contracts on arbitrary input:
// no panic; "unchanged" means the very same text; valid UTF-8 stays valid;
// the guards (Markdown target, real newline, markup target, raw < or >)
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
		{"if (a &lt; b &amp;&amp; c) { s = &quot;x&#34; }\n// don't\nx =&gt; `&lt;`", "a.js", ""},
		{"s = \"\"\"&lt;\\\"\"\"\" + '&#39;' &amp;x", "", ""},
		{"a\uFFFDb\xef\xbf", "a.go", ""},
		{"  7 | a\n  8 |\n  9 | c\n", "a.go", ""},
		{"     7\ta\r\n     8\r\n     9\tc", "a.go", ""},
		{"  1 |   1 | a\n  2 |   2 | b", "a.go", ""},
		{"x\n// ... rest of the code unchanged ...\n", "a.js", ""},
		{"<!-- rest of file unchanged -->", "a.html", ""},
		{"x\n// ... 其余代码保持不变 ...\n# 残りのコードは変更なし\n// 나머지 코드는 동일", "a.go", ""},
	} {
		f.Add(s.content, s.path, s.model)
	}
	f.Fuzz(func(t *testing.T, content, path, _ string) {
		fuzzFence(t, content, path)
		fuzzEscapes(t, content)
		fuzzEntities(t, content, path)
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

func fuzzEntities(t *testing.T, content, path string) {
	out, changed := DecodeHTMLEntities(content, path)
	checkFix(t, "DecodeHTMLEntities", content, out, changed)
	if changed {
		if isMarkupPath(path) {
			t.Fatalf("DecodeHTMLEntities ran for markup path %q", path)
		}
		if strings.ContainsAny(content, "<>") {
			t.Fatalf("DecodeHTMLEntities(%q) decoded a value holding a raw < or >", content)
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
	// Every line of the new text is in the old: all of them are the file's.
	if line, text, ok := FindNewPlaceholder(content, content, "a.go"); ok {
		t.Fatalf("FindNewPlaceholder(%q, same) = %d, %q: a kept line refused", content, line, text)
	}
	l1, t1, ok1 := FindPlaceholder(content, "a.go")
	if l2, t2, ok2 := FindNewPlaceholder("", content, "a.go"); l1 != l2 || t1 != t2 || ok1 != ok2 {
		t.Fatalf("FindNewPlaceholder with no old text differs from FindPlaceholder on %q", content)
	}
	if line, text, ok := FindPlaceholder(content, "a.go"); ok {
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

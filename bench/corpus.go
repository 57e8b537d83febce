package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Corpus kinds. The broken kinds are what models get wrong in tool-call
// arguments; the valid kinds are what they mostly get right.
const (
	KindPython        = "python"         // Python dict repr: single quotes, True/False/None
	KindTrailingComma = "trailing_comma" // JSON with trailing commas in objects and arrays
	KindUnquotedKeys  = "unquoted_keys"  // JSON with bare identifier keys
	KindFenced        = "fenced"         // valid JSON in a ```json fence, with prose around it
	KindTruncated     = "truncated"      // JSON cut off inside a string (a max-tokens stop)
	KindLargeBroken   = "large_broken"   // ~1 MB escape-heavy content, with a trailing comma / as a Python dict
	KindValid         = "valid"          // valid JSON, compact or indented
	KindLargeValid    = "large_valid"    // valid JSON, ~1 MB escape-heavy content
)

// BrokenKinds and ValidKinds list the kinds of each set, in corpus order.
var (
	BrokenKinds = []string{KindPython, KindTrailingComma, KindUnquotedKeys, KindFenced, KindTruncated, KindLargeBroken}
	ValidKinds  = []string{KindValid, KindLargeValid}
)

// Doc is one tool-call arguments text of the corpus.
type Doc struct {
	Kind  string
	Input string
	// Want is the value the model meant, as encoding/json with UseNumber
	// decodes it (map[string]any, []any, string, json.Number, bool, nil).
	// It is nil for truncated documents, whose intent is unknown.
	Want any
}

// Corpus is the generated corpus, split into text that is not valid JSON
// (Broken) and text that is (Valid).
type Corpus struct {
	Broken []Doc
	Valid  []Doc
}

// CorpusSeed fixes the corpus: every Generate call returns the same bytes.
const CorpusSeed = 20251104

// Per-kind document counts of the generated corpus.
const (
	smallBrokenPerKind = 200
	smallValid         = 800
	largeBroken        = 2
	largeValid         = 2
	largeContentBytes  = 1 << 20
)

// Generate builds the corpus deterministically from CorpusSeed.
func Generate() Corpus {
	g := &gen{r: rand.New(rand.NewPCG(CorpusSeed, CorpusSeed^0x9e3779b97f4a7c15))}
	var c Corpus
	for range smallBrokenPerKind {
		c.Broken = append(c.Broken, g.python(g.call()))
	}
	for range smallBrokenPerKind {
		c.Broken = append(c.Broken, g.trailingComma(g.call()))
	}
	for range smallBrokenPerKind {
		c.Broken = append(c.Broken, g.unquotedKeys(g.call()))
	}
	for range smallBrokenPerKind {
		c.Broken = append(c.Broken, g.fenced(g.call()))
	}
	for range smallBrokenPerKind {
		c.Broken = append(c.Broken, g.truncated(g.contentCall(g.code(g.lines()))))
	}
	for i := range largeBroken {
		v := g.contentCall(g.largeCode())
		if i%2 == 0 {
			d := g.trailingComma(v)
			d.Kind = KindLargeBroken
			c.Broken = append(c.Broken, d)
		} else {
			d := g.python(v)
			d.Kind = KindLargeBroken
			c.Broken = append(c.Broken, d)
		}
	}
	for range smallValid {
		c.Valid = append(c.Valid, g.valid(g.call()))
	}
	for i := range largeValid {
		st := jsonStyle{strMode: strStd}
		if i%2 == 1 {
			st = jsonStyle{strMode: strASCII, spaced: true}
		}
		v := g.contentCall(g.largeCode())
		c.Valid = append(c.Valid, Doc{Kind: KindLargeValid, Input: st.render(v), Want: plain(v)})
	}
	return c
}

// Stats is the count and total size of one kind's documents.
type Stats struct {
	Kind  string
	Docs  int
	Bytes int
}

// Composition returns the per-kind statistics of docs, in order of first
// appearance.
func Composition(docs []Doc) []Stats {
	var out []Stats
	at := map[string]int{}
	for _, d := range docs {
		i, ok := at[d.Kind]
		if !ok {
			i = len(out)
			at[d.Kind] = i
			out = append(out, Stats{Kind: d.Kind})
		}
		out[i].Docs++
		out[i].Bytes += len(d.Input)
	}
	return out
}

// TotalBytes is the summed input size of docs.
func TotalBytes(docs []Doc) int64 {
	var n int64
	for _, d := range docs {
		n += int64(len(d.Input))
	}
	return n
}

// WriteJSONL writes one {"set", "kind", "input", "want"} object per line,
// the broken set first, for benchmarks outside Go (bench/npm/bench.mjs).
// want is the value the model meant (absent for truncated documents).
func (c Corpus) WriteJSONL(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, set := range []struct {
		name string
		docs []Doc
	}{{"broken", c.Broken}, {"valid", c.Valid}} {
		for _, d := range set.docs {
			line := struct {
				Set   string `json:"set"`
				Kind  string `json:"kind"`
				Input string `json:"input"`
				Want  any    `json:"want,omitempty"`
			}{set.name, d.Kind, d.Input, d.Want}
			if err := enc.Encode(line); err != nil {
				return err
			}
		}
	}
	return nil
}

// obj is an object with its keys in order, so rendering is deterministic.
type obj []member

type member struct {
	k string
	v any
}

// plain converts a generated value to what encoding/json decodes it to.
func plain(v any) any {
	switch v := v.(type) {
	case obj:
		m := make(map[string]any, len(v))
		for _, e := range v {
			m[e.k] = plain(e.v)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = plain(e)
		}
		return a
	default:
		return v
	}
}

type gen struct{ r *rand.Rand }

func (g *gen) pick(s []string) string { return s[g.r.IntN(len(s))] }

// lines draws a content length: mostly short files, a tail of long ones.
func (g *gen) lines() int {
	switch n := g.r.IntN(100); {
	case n < 50:
		return 3 + g.r.IntN(15)
	case n < 85:
		return 18 + g.r.IntN(60)
	default:
		return 80 + g.r.IntN(170)
	}
}

var (
	idents = []string{"handler", "event", "result", "config", "payload", "user_id", "items", "retry", "ctx", "buf", "total", "résumé", "naïve_count", "path", "err", "value", "request", "cache_key"}
	words  = []string{"Add", "error", "handling", "to", "the", "parser", "Update", "tests", "for", "edge", "cases", "Refactor", "config", "loader", "Fix", "the", "regression", "in", "auth", "middleware", "Document", "API", "café", "naïve", "日本語", "✓", "🚀"}
	paths  = []string{"src/handler.py", "src/app/main.go", "web/src/components/Button.tsx", "scripts/deploy.sh", "README.md", "internal/parse/lexer.go", "tests/test_api.py", `C:\Users\dev\project\main.c`, "docs/guide/日本語.md", "lib/utils/format.js", "config/settings.yaml", "src/émoji_🚀.rs"}
)

// codeLines are templates of realistic code; {i} and {j} become
// identifiers, {n} a number, {w} a word. They hold what makes JSON strings
// hard: double and single quotes, backslashes, escape sequences in string
// literals, tabs, non-ASCII text, <, > and &.
var codeLines = []string{
	`def {i}({j}):`,
	`    return {"status": {n}, "body": {j}}`,
	`    raise ValueError(f"invalid {i}: {{{j}!r}}")`,
	`    print("line one\nline two\t{w}")`,
	`    pattern = re.compile(r"^\s*(\w+)\s*=\s*'([^']*)'$")`,
	`    path = "C:\\Users\\{i}\\AppData\\Local\\Temp"`,
	`# {w}: ensure {i} handles "quoted" and 'single' text — café ✓`,
	`	if {i} != nil {`,
	`		return fmt.Errorf("load %q: %w", {j}, err)`,
	`	}`,
	"\t{i} := strings.Split(line, \"\\t\")",
	"\tlog.Printf(\"%s\\n\", `raw \\d+ string`)",
	`func ({i} *{j}) Close() error { return nil }`,
	`const {i} = ` + "`" + `template ${{j}} with "quotes"` + "`" + `;`,
	`export function {i}({j}) { return {j}.replace(/\\/g, "/").split("\n"); }`,
	`  if ({i} && {j}.length > {n}) { console.error('bad "{w}" value'); }`,
	`  <Button onClick={() => set{i}(!{j})} label="Save & close" />`,
	`    /* {w} — 日本語のコメント, naïve résumé, emoji 🚀🔥 */`,
	`	const char *{i} = "tab\there\\nnewline \"quoted\"";`,
	`    assert {i} == {n}, "expected {n} but got %r" % ({j},)`,
	`| {w} | ` + "`{i}`" + ` | {n} ms |`,
	`SELECT * FROM users WHERE name = '{w}' AND id > {n};`,
	`{i}: "{w} \"nested\" value"   # yaml`,
	``,
	`    }`,
	`        self.{i} = {j}.get("{i}", None)`,
	`    for k, v in {j}.items(): yield k, v`,
	`<div class="{i}">{w} &amp; more</div>`,
	`    Ω ≈ ∑ {i}² — “smart quotes” and ‘apostrophes’`,
}

func (g *gen) ident() string { return g.pick(idents) }

func (g *gen) codeLine(pool []string) string {
	t := g.pick(pool)
	var b strings.Builder
	for {
		k := strings.IndexByte(t, '{')
		if k < 0 || k+2 >= len(t) || t[k+2] != '}' || !strings.ContainsRune("ijnw", rune(t[k+1])) {
			if k < 0 {
				b.WriteString(t)
				return b.String()
			}
			b.WriteString(t[:k+1])
			t = t[k+1:]
			continue
		}
		b.WriteString(t[:k])
		switch t[k+1] {
		case 'i', 'j':
			b.WriteString(g.ident())
		case 'n':
			b.WriteString(strconv.Itoa(g.r.IntN(10000)))
		case 'w':
			b.WriteString(g.pick(words))
		}
		t = t[k+3:]
	}
}

func (g *gen) code(n int) string {
	var b strings.Builder
	for range n {
		if g.r.IntN(12) == 0 {
			b.WriteString(g.codeLine(shellLines))
		} else {
			b.WriteString(g.codeLine(codeLines))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// shellLines are commands, for execute_command and inside files.
var shellLines = []string{
	`echo "deploying $1" && grep -rn '\bTODO\b' src/ | sed 's/\t/  /g'`,
	`printf '%s\n' "{w}" >> /tmp/{i}.log 2>&1`,
	`find . -name '*.py' -exec sed -i 's/"{i}"/"{j}"/g' {} +`,
}

// escapeLines are C and shell lines dense in what JSON must escape.
var escapeLines = []string{
	"\tprintf(\"%s\\t%d\\n\", \"{w}\", {n});",
	"\tfputs(\"\\\"quoted\\\" \\\\ backslash\\n\", stderr);",
	"\t\tpath = \"C:\\\\Program Files\\\\{i}\\\\bin\";",
	"\t\t\tif (c == '\\\\' || c == '\"') { *out++ = '\\\\'; }",
	"echo \"\\t{i}=\\\"$VAR\\\"\" | tr '\\t' ' '",
	"\t\"{i}\": \"{w}\\n\",",
	"#define {i}(x) do { fprintf(stderr, \"\\\"%s\\\"\\n\", #x); } while (0)",
}

// largeCode is about largeContentBytes of escape-heavy source.
func (g *gen) largeCode() string {
	var b strings.Builder
	for b.Len() < largeContentBytes {
		b.WriteString(g.codeLine(escapeLines))
		b.WriteByte('\n')
	}
	return b.String()
}

func (g *gen) sentence() string {
	n := 3 + g.r.IntN(8)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = g.pick(words)
	}
	return strings.Join(ws, " ")
}

// call returns the arguments of one tool call, of the shapes coding agents
// send most: write_to_file, edit, todo_write, execute_command.
func (g *gen) call() obj {
	switch n := g.r.IntN(10); {
	case n < 4:
		return g.contentCall(g.code(g.lines()))
	case n < 7:
		o := obj{
			{"file_path", g.pick(paths)},
			{"old_string", g.code(1 + g.r.IntN(12))},
			{"new_string", g.code(1 + g.r.IntN(16))},
			{"replace_all", g.r.IntN(4) == 0},
		}
		if g.r.IntN(3) == 0 {
			o = append(o, member{"expected_replacements", json.Number(strconv.Itoa(1 + g.r.IntN(3)))})
		}
		return o
	case n < 9:
		todos := make([]any, 1+g.r.IntN(8))
		for i := range todos {
			todos[i] = obj{
				{"id", strconv.Itoa(i + 1)},
				{"content", g.sentence()},
				{"status", g.pick([]string{"pending", "in_progress", "completed"})},
				{"priority", g.pick([]string{"high", "medium", "low"})},
			}
		}
		return obj{{"todos", todos}, {"merge", g.r.IntN(2) == 0}}
	default:
		return obj{
			{"command", g.codeLine(shellLines)},
			{"cwd", nil},
			{"timeout", json.Number(strconv.Itoa(1000 * (1 + g.r.IntN(120))))},
			{"requires_approval", g.r.IntN(2) == 0},
		}
	}
}

func (g *gen) contentCall(content string) obj {
	o := obj{{"path", g.pick(paths)}, {"content", content}}
	switch g.r.IntN(3) {
	case 0:
		o = append(o, member{"create_dirs", true})
	case 1:
		o = append(o, member{"encoding", nil}, member{"mode", json.Number("0.644e3")})
	}
	return o
}

func (g *gen) style() jsonStyle {
	st := jsonStyle{strMode: g.r.IntN(3), spaced: g.r.IntN(2) == 0}
	if g.r.IntN(4) == 0 {
		st.indent = "  "
	}
	return st
}

func (g *gen) valid(v obj) Doc {
	return Doc{Kind: KindValid, Input: g.style().render(v), Want: plain(v)}
}

func (g *gen) trailingComma(v obj) Doc {
	st := g.style()
	st.trailingCommas = true
	return Doc{Kind: KindTrailingComma, Input: st.render(v), Want: plain(v)}
}

func (g *gen) unquotedKeys(v obj) Doc {
	st := g.style()
	st.unquotedKeys = true
	return Doc{Kind: KindUnquotedKeys, Input: st.render(v), Want: plain(v)}
}

var (
	prose = []string{
		"I'll create the file with the requested changes.",
		"Here are the arguments for the tool call:",
		"Sure! Let me update the handler so it doesn't crash on empty input.",
		"Now I'll write the tests — they cover the edge cases you mentioned.",
	}
	after = []string{
		"This should fix the issue.",
		"Let me know if you'd like any changes!",
		"After this, I'll run the test suite.",
		"",
	}
)

func (g *gen) fenced(v obj) Doc {
	st := g.style()
	st.indent = "  "
	lang := g.pick([]string{"json", "json", "JSON", ""})
	text := g.pick(prose) + "\n\n```" + lang + "\n" + st.render(v) + "\n```\n"
	if a := g.pick(after); a != "" {
		text += "\n" + a
	}
	return Doc{Kind: KindFenced, Input: text, Want: plain(v)}
}

// truncated renders v and cuts it inside the content string, as a
// max-tokens stop does.
func (g *gen) truncated(v obj) Doc {
	st := g.style()
	full := st.render(v)
	content, _ := v[1].v.(string)
	enc := st.str(content)
	at := strings.Index(full, enc)
	cut := at + 1 + g.r.IntN(len(enc)-1)
	for cut > at+1 && !utf8.RuneStart(full[cut]) {
		cut--
	}
	return Doc{Kind: KindTruncated, Input: full[:cut]}
}

// python renders v as Python's repr of the dict would.
func (g *gen) python(v obj) Doc {
	var b strings.Builder
	pyValue(&b, v)
	return Doc{Kind: KindPython, Input: b.String(), Want: plain(v)}
}

func pyValue(b *strings.Builder, v any) {
	switch v := v.(type) {
	case obj:
		b.WriteByte('{')
		for i, e := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			pyStr(b, e.k)
			b.WriteString(": ")
			pyValue(b, e.v)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			pyValue(b, e)
		}
		b.WriteByte(']')
	case string:
		pyStr(b, v)
	case json.Number:
		b.WriteString(string(v))
	case bool:
		if v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case nil:
		b.WriteString("None")
	default:
		panic(fmt.Sprintf("pyValue: %T", v))
	}
}

// pyStr writes Python 3's repr of s.
func pyStr(b *strings.Builder, s string) {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteByte(q)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
}

// String escaping modes of jsonStyle.
const (
	strStd    = iota // as encoding/json: <, >, & as \u003c...
	strNoHTML        // as an encoder with SetEscapeHTML(false), or JSON.stringify
	strASCII         // as Python's json.dumps: all non-ASCII as \uXXXX
)

// jsonStyle renders generated values as JSON, or as the near-JSON of the
// broken kinds.
type jsonStyle struct {
	indent         string
	spaced         bool // ", " and ": " separators, as Python's json.dumps
	strMode        int
	trailingCommas bool
	unquotedKeys   bool
}

func (st jsonStyle) render(v any) string {
	var b strings.Builder
	st.value(&b, v, 0)
	return b.String()
}

func (st jsonStyle) newline(b *strings.Builder, depth int) {
	if st.indent == "" {
		return
	}
	b.WriteByte('\n')
	for range depth {
		b.WriteString(st.indent)
	}
}

func (st jsonStyle) sep(b *strings.Builder) {
	b.WriteByte(',')
	if st.spaced && st.indent == "" {
		b.WriteByte(' ')
	}
}

func (st jsonStyle) value(b *strings.Builder, v any, depth int) {
	switch v := v.(type) {
	case obj:
		b.WriteByte('{')
		for i, e := range v {
			if i > 0 {
				st.sep(b)
			}
			st.newline(b, depth+1)
			if st.unquotedKeys {
				b.WriteString(e.k)
			} else {
				b.WriteString(st.str(e.k))
			}
			b.WriteByte(':')
			if st.spaced || st.indent != "" {
				b.WriteByte(' ')
			}
			st.value(b, e.v, depth+1)
		}
		if st.trailingCommas && len(v) > 0 {
			b.WriteByte(',')
		}
		if len(v) > 0 {
			st.newline(b, depth)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				st.sep(b)
			}
			st.newline(b, depth+1)
			st.value(b, e, depth+1)
		}
		if st.trailingCommas && len(v) > 0 {
			b.WriteByte(',')
		}
		if len(v) > 0 {
			st.newline(b, depth)
		}
		b.WriteByte(']')
	case string:
		b.WriteString(st.str(v))
	case json.Number:
		b.WriteString(string(v))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case nil:
		b.WriteString("null")
	default:
		panic(fmt.Sprintf("jsonStyle.value: %T", v))
	}
}

const hexDigits = "0123456789abcdef"

func (st jsonStyle) str(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8 + 2)
	b.WriteByte('"')
	u := func(r rune) {
		b.WriteString(`\u`)
		for sh := 12; sh >= 0; sh -= 4 {
			b.WriteByte(hexDigits[r>>sh&0xf])
		}
	}
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
			u(r)
		case st.strMode == strStd && (r == '<' || r == '>' || r == '&'):
			u(r)
		case st.strMode != strASCII && (r == 0x2028 || r == 0x2029):
			u(r)
		case st.strMode == strASCII && r > 0x7e:
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				u(r1)
				u(r2)
			} else {
				u(r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

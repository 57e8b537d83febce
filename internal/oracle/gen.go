package oracle

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Call is a valid call: the answer a repaired case must give.
type Call struct {
	Tool Tool
	Args map[string]any // strings, bools, json.Number, nil, []any, map[string]any
}

// Gen draws calls and corruptions from one seeded PRNG.
type Gen struct {
	rng   *rand.Rand
	tools []Tool
}

// New returns a generator whose every draw follows from seed.
func New(seed uint64) *Gen {
	return &Gen{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), tools: Tools()}
}

// Rand is the generator's PRNG, for the choices a test makes (chunking).
func (g *Gen) Rand() *rand.Rand { return g.rng }

// Call draws a valid call to one of the tools.
func (g *Gen) Call() Call {
	t := g.tools[g.rng.IntN(len(g.tools))]
	var args map[string]any
	if props, _ := properties(t.Schema); props == nil {
		args = g.looseObject(3)
	} else {
		args = g.object(t.Schema, "", 0)
	}
	return Call{Tool: t, Args: args}
}

func (g *Gen) object(schema map[string]any, _ string, depth int) map[string]any {
	props, req := properties(schema)
	out := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		ps, _ := props[name].(map[string]any)
		if !slices.Contains(req, name) && g.rng.IntN(2) == 0 {
			continue
		}
		out[name] = g.value(ps, name, depth+1, slices.Contains(req, name))
	}
	return out
}

// value draws a valid value for a schema; required strings are not empty
// (the engine rightly counts "" as missing).
func (g *Gen) value(schema map[string]any, name string, depth int, required bool) any {
	if enum, ok := schema["enum"].([]any); ok {
		return enum[g.rng.IntN(len(enum))]
	}
	switch schema["type"] {
	case "string":
		if !required && g.rng.IntN(8) == 0 {
			return ""
		}
		return g.text(name)
	case "boolean":
		return g.rng.IntN(2) == 0
	case "integer":
		return json.Number(strconv.Itoa(g.rng.IntN(500) + 1))
	case "number":
		if g.rng.IntN(3) == 0 {
			return json.Number(strconv.Itoa(g.rng.IntN(90)+1) + ".5")
		}
		return json.Number(strconv.Itoa(g.rng.IntN(60000) + 1))
	case "array":
		items, _ := schema["items"].(map[string]any)
		n := g.rng.IntN(4)
		if mi, ok := schema["minItems"].(float64); ok && n < int(mi) {
			n = int(mi)
		}
		out := make([]any, n)
		for i := range out {
			if items == nil {
				out[i] = g.loose(depth + 1)
			} else {
				out[i] = g.value(items, name, depth+1, true)
			}
		}
		return out
	case "object":
		if props, _ := properties(schema); props == nil {
			return g.looseObject(depth + 1)
		}
		return g.object(schema, name, depth)
	}
	return g.loose(depth + 1)
}

// looseKeys are keys of untyped objects: none is a wrapper the engine
// unwraps (arguments, input, raw_arguments...), which would make the
// valid call ambiguous.
var looseKeys = []string{"name", "mode", "depth", "verbose", "target", "limit", "options", "nested", "标签", "key with space", "emoji😀", "a-b", "x"}

func (g *Gen) looseObject(depth int) map[string]any {
	out := map[string]any{}
	for range g.rng.IntN(4) + 1 {
		out[looseKeys[g.rng.IntN(len(looseKeys))]] = g.loose(depth + 1)
	}
	return out
}

// loose draws a value of any type, nested while depth allows.
func (g *Gen) loose(depth int) any {
	n := 7
	if depth > 3 {
		n = 5
	}
	switch g.rng.IntN(n) {
	case 0, 1:
		return g.text("")
	case 2:
		return json.Number(strconv.Itoa(g.rng.IntN(2000) - 100))
	case 3:
		return g.rng.IntN(2) == 0
	case 4:
		if g.rng.IntN(3) == 0 {
			return nil
		}
		return json.Number("3.25")
	case 5:
		out := make([]any, g.rng.IntN(4))
		for i := range out {
			out[i] = g.loose(depth + 1)
		}
		return out
	default:
		return g.looseObject(depth + 1)
	}
}

// Pools of strings by the parameter's role. Every one is a valid value as
// written: no surrounding white space, no whole JSON document, entities
// only beside raw markup, \n as two characters only beside real newlines,
// no whole-content code fence, none of the shapes the engine repairs on
// evidence in a valid call.
var (
	pathPool = []string{
		"src/app.py", "src/main.go", "web/index.html", "docs/README.md", "lib/utils.ts",
		"/home/dev/project/config.yaml", "测试/文件.txt", "notes/it's done.txt", "a b/c.json", "src/Ünïcödé.rs",
	}
	codePool = []string{
		"def greet(name):\n    return f\"Hello, {name}!\"",
		"fn main() {\n    println!(\"{}\", \"brace } quote \\\" end\");\n}",
		"const re = /\\d+\\.\\d+/;\nconsole.log('it\\'s', \"ok\");",
		"<div class=\"x\">Tom &amp; Jerry</div>\n<p>a < b && c > d</p>",
		"printf(\"line\\n\");\nreturn 0;",
		"if (a && b) { x = {\"k\": [1, 2]}; }\n// done",
		"SELECT * FROM t WHERE name = 'O''Brien';\n-- 注释",
		"title: \"Émoji 😀 test\"\nitems: [a, b]\npath: C:\\Users\\dev",
		"package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(`raw \\ string`) }",
		"x = {'a': True, 'b': None}\nprint(x)",
		"}",
		"a \"quoted\" word",
		"back\\slash and \\\\ double",
		"tab\tseparated\tvalues\nsecond\tline",
	}
	wordPool = []string{
		"创建项目结构和主程序文件", "Write the tests", "Fix the bug in parser", "it's done", "say \"hi\"",
		"a & b", "{not json", "x, y: z", "Ünïcödé ✓", "run `make test`", "100% sure", "50 items",
	}
	diffPool = []string{
		"------- SEARCH\n    print(\"hello\")\n=======\n    print(\"hello, world\")\n+++++++ REPLACE",
		"------- SEARCH\nconst a = {x: 1};\n=======\nconst a = {x: 2, y: \"two\"};\n+++++++ REPLACE",
	}
	patchPool = []string{
		"*** Begin Patch\n*** Update File: src/app.py\n@@ def greet(name):\n-    return name\n+    return f\"Hi {name}\"\n*** End Patch",
		"*** Begin Patch\n*** Add File: docs/new.md\n+# Title\n+Body with \"quotes\"\n*** End Patch",
	}
)

func (g *Gen) pick(pool []string) string { return pool[g.rng.IntN(len(pool))] }

// text draws a string for a parameter by its name's role.
func (g *Gen) text(name string) string {
	lower := strings.ToLower(name)
	switch {
	case strings.Contains(lower, "path") || lower == "workdir":
		return g.pick(pathPool)
	case lower == "diff":
		return g.pick(diffPool)
	case lower == "input":
		return g.pick(patchPool)
	case IsContentName(name):
		s := g.pick(codePool)
		if g.rng.IntN(3) == 0 {
			s += "\n" + g.pick(codePool)
		}
		return s
	case lower == "command":
		return g.pick([]string{"ls", "go", "test", "./...", "-run", "echo 'a b'", "grep -rn \"x\" ."})
	}
	return g.pick(wordPool)
}

// IsContentName reports whether a parameter carries file content or edit
// text in the agents' schemas.
func IsContentName(name string) bool {
	switch name {
	case "content", "file_text", "old_string", "new_string", "old_str", "new_str", "oldText", "newText":
		return true
	}
	return false
}

// Draw returns the case of a seed for kinds: the first call drawn that
// they all apply to, and the generator, for the test's further choices;
// ok is false when none of a few draws fits.
func Draw(seed uint64, kinds ...Kind) (Case, *Gen, bool) {
	g := New(seed)
	for range 20 {
		if c, ok := g.Corrupt(g.Call(), kinds...); ok {
			c.Seed = seed
			return c, g, true
		}
	}
	return Case{}, g, false
}

// Combos are the kinds the tests run: each alone, then each pair of
// different stages, and pairs of wrappers; no cut with a wrapper that
// writes after it.
func Combos() [][]Kind {
	var out [][]Kind
	for _, k := range Kinds {
		out = append(out, []Kind{k})
	}
	for i, a := range Kinds[1:] {
		for _, b := range Kinds[i+2:] {
			if a == Cut && writesAfter(b) || b == Cut && writesAfter(a) {
				continue
			}
			if a.Stage() != b.Stage() || a.Stage() == 4 {
				out = append(out, []Kind{a, b})
			}
		}
	}
	return out
}

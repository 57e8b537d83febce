package syntax

import (
	"context"
	"strings"
	"testing"
)

// TestPureGoLanguages: per language, a clean file, a broken one with the
// error's line and column (0: the parser gives none) and a word of its
// message.
func TestPureGoLanguages(t *testing.T) {
	tests := []struct {
		name, path, lang, src string
		line, col             int // 0, 0: clean
		msg                   string
	}{
		{"go clean", "a.go", "go", "package a\n\nfunc f() int { return (1) }\n", 0, 0, ""},
		{"go unclosed paren", "a.go", "go", "package a\n\nfunc f() {\n\tx := (1\n}\n", 4, 9, "expected ')'"},
		{"js clean", "a.js", "javascript", "const a = [1, 2];\nexport function f(x) { return x * 2 }\n", 0, 0, ""},
		{"js with jsx", "a.js", "javascript", "export const A = () => <div>hi</div>;\n", 0, 0, ""},
		{"js unclosed paren", "a.mjs", "javascript", "const a = 1;\nfunction f( {\n}\n", 4, 1, `Expected ")" but found end of file`},
		{"ts clean", "a.ts", "typescript", "export function f<T>(x: T): T { return x }\nconst n = <number>f(1);\n", 0, 0, ""},
		{"ts broken", "a.ts", "typescript", "let a: number = (1;\n", 1, 19, `Expected ")" but found ";"`},
		{"jsx clean", "a.jsx", "jsx", "export default () => <ul>{[1].map(i => <li key={i}>{i}</li>)}</ul>;\n", 0, 0, ""},
		{"jsx unclosed tag", "a.jsx", "jsx", "const a = (\n  <div>\n    <span>x</div>\n);\n", 3, 14, `closing "div" tag does not match`},
		{"tsx clean", "a.tsx", "tsx", "export const A = (p: {n: number}) => <b>{p.n}</b>;\n", 0, 0, ""},
		{"tsx broken", "a.tsx", "tsx", "export const A = (p: {n: number) => <b>{p.n}</b>;\n", 1, 32, `Unexpected ")"`},
		{"css clean", "a.css", "css", "a { color: red; }\n@media (max-width: 10px) { b { margin: 0 } }\n", 0, 0, ""},
		{"css unclosed block", "a.css", "css", "a { color: red; }\nb { margin: 0\n", 3, 1, `Expected "}"`},
		{"css unknown property is no syntax error", "a.css", "css", "a { colr: red; }\n", 0, 0, ""},
		{"json clean", "a.json", "json", `{"a": [1, 2]}`, 0, 0, ""},
		{"json number past float64 is syntax", "a.json", "json", `[1e400]`, 0, 0, ""},
		{"json unclosed array", "a.json", "json", "{\"a\": [1,\n2}", 2, 2, "invalid character '}'"},
		{"yaml clean", "a.yml", "yaml", "a: 1\nb:\n  - x\n---\nc: d\n", 0, 0, ""},
		{"yaml bad indentation", "a.yaml", "yaml", "a: 1\n  b: 2\n", 2, 0, "mapping values"},
		{"yaml tab", "a.yaml", "yaml", "a:\n\t- b\n", 2, 0, "cannot start any token"},
		{"toml clean", "a.toml", "toml", "[server]\nport = 80\nnames = [\"a\", \"b\"]\n", 0, 0, ""},
		{"toml missing value", "a.toml", "toml", "a = 1\nb = \n", 2, 5, "unexpected character"},
		{"toml unclosed array", "a.toml", "toml", "a = 1\nb = [1, 2\n", 2, 10, "array is incomplete"},
		{"node shebang", "bin/run", "javascript", "#!/usr/bin/env node\nconsole.log((1)\n", 3, 1, `Expected ")"`},
		{"ts-node shebang", "bin/run", "typescript", "#!/usr/bin/env ts-node\nlet a: number = 1;\n", 0, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(context.Background(), tc.path, []byte(tc.src), DefaultLimits)
			if !r.Checked || r.Lang != tc.lang {
				t.Fatalf("result %+v, want checked as %s", r, tc.lang)
			}
			if tc.msg == "" {
				if len(r.Errors) != 0 {
					t.Fatalf("errors %+v, want none", r.Errors)
				}
				return
			}
			if len(r.Errors) == 0 {
				t.Fatalf("no error, want one at %d:%d", tc.line, tc.col)
			}
			e := r.Errors[0]
			if e.Line != tc.line || e.Column != tc.col || !strings.Contains(e.Message, tc.msg) {
				t.Errorf("first error %+v, want %d:%d containing %q", e, tc.line, tc.col, tc.msg)
			}
		})
	}
}

// TestCheckBounds: a file over the size bound, and a parse past its
// deadline, are not checked, with a reason, and no error.
func TestCheckBounds(t *testing.T) {
	src := []byte("package a\n")
	if r := Check(context.Background(), "a.go", src, Limits{MaxBytes: 4}); r.Checked || r.Reason == "" || r.Lang != "go" {
		t.Errorf("over the size bound: %+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, p := range []string{"a.go", "a.ts", "a.yaml", "a.toml"} {
		if r := Check(ctx, p, src, DefaultLimits); r.Checked || !strings.Contains(r.Reason, "longer than its bound") {
			t.Errorf("%s past its deadline: %+v", p, r)
		}
	}
}

// TestMaxErrors: a check returns at most MaxErrors errors.
func TestMaxErrors(t *testing.T) {
	src := "package a\n" + strings.Repeat("func (\n", 100)
	r := Check(context.Background(), "a.go", []byte(src), DefaultLimits)
	if !r.Checked || len(r.Errors) == 0 || len(r.Errors) > MaxErrors {
		t.Errorf("%d errors, want 1..%d", len(r.Errors), MaxErrors)
	}
}

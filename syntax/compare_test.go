package syntax

import (
	"context"
	"strings"
	"testing"
)

// TestCompare: per language, a clean edit, an edit that breaks the file,
// an edit of a file already broken (its error is not the change's), and an
// edit that fixes a broken file (it now parses).
func TestCompare(t *testing.T) {
	type change struct{ before, after string }
	langs := []struct {
		path                            string
		clean, breaks, stillBroken, fix change
	}{
		{"a.go",
			change{"package a\n\nfunc f() int { return 1 }\n", "package a\n\nfunc f() int { return 2 }\n"},
			change{"package a\n\nfunc f() int { return 1 }\n", "package a\n\nfunc f() int { return (1 }\n"},
			change{"package a\n\nvar x = 1\n\nfunc f() {\n", "package a\n\n// x is one.\nvar x = 1\n\nfunc f() {\n"},
			change{"package a\n\nfunc f() {\n", "package a\n\nfunc f() {}\n"}},
		{"a.ts",
			change{"let a: number = 1;\n", "let a: number = 2;\n"},
			change{"let a: number = 1;\nlet b = 2;\n", "let a: number = (1;\nlet b = 2;\n"},
			change{"let a = 1;\nlet b = (2;\n", "let a = 10;\nlet b = (2;\n"},
			change{"let b = (2;\n", "let b = (2);\n"}},
		{"a.css",
			change{"a { color: red }\n", "a { color: blue }\n"},
			change{"a { color: red }\n", "a { color: red \n"},
			change{"a { color: red }\nb {\n", "a { color: blue }\nb {\n"},
			change{"b {\n", "b {}\n"}},
		{"a.json",
			change{"{\"a\": 1}\n", "{\"a\": 2}\n"},
			change{"{\"a\": 1}\n", "{\"a\": 1,}\n"},
			change{"{\n\"a\": 1,\n\"b\": 2,\n}\n", "{\n\"a\": 3,\n\"b\": 2,\n}\n"},
			change{"{\"a\": 1,}\n", "{\"a\": 1}\n"}},
		{"a.yaml",
			change{"a: 1\nb: 2\n", "a: 1\nb: 3\n"},
			change{"a: 1\nb: 2\n", "a: 1\n  b: 2\n"},
			change{"a: 1\nc: 0\n  b: 2\n", "a: 10\nc: 0\n  b: 2\n"},
			change{"a: 1\n  b: 2\n", "a: 1\nb: 2\n"}},
		{"a.toml",
			change{"a = 1\n", "a = 2\n"},
			change{"a = 1\nb = 2\n", "a = 1\nb = \n"},
			change{"x = 0\na = \n", "# top\nx = 0\na = \n"},
			change{"a = \n", "a = 2\n"}},
	}
	ctx := context.Background()
	for _, l := range langs {
		t.Run(l.path, func(t *testing.T) {
			if c := Compare(ctx, l.path, []byte(l.clean.before), []byte(l.clean.after), DefaultLimits); len(c.Added) != 0 || c.NowParses || len(c.After.Errors) != 0 {
				t.Errorf("clean edit: %+v", c)
			}
			if c := Compare(ctx, l.path, []byte(l.breaks.before), []byte(l.breaks.after), DefaultLimits); len(c.Added) == 0 || len(c.Before.Errors) != 0 {
				t.Errorf("breaking edit: %+v, want an added error", c)
			}
			if c := Compare(ctx, l.path, []byte(l.stillBroken.before), []byte(l.stillBroken.after), DefaultLimits); len(c.Added) != 0 || len(c.After.Errors) == 0 {
				t.Errorf("edit of a broken file: %+v, want its error and none added", c)
			}
			if c := Compare(ctx, l.path, []byte(l.fix.before), []byte(l.fix.after), DefaultLimits); !c.NowParses || len(c.Added) != 0 {
				t.Errorf("fixing edit: %+v, want it to parse now", c)
			}
			if c := Compare(ctx, l.path, nil, []byte(l.breaks.after), DefaultLimits); len(c.Added) == 0 {
				t.Errorf("a broken file created: %+v, want its errors added", c)
			}
		})
	}
}

// TestAddedRule: the matching rule on its own.
func TestAddedRule(t *testing.T) {
	before := "a\nb\nc\nd\n"
	tests := []struct {
		name      string
		after     string
		errBefore []Error
		errAfter  []Error
		added     int
	}{
		{"same line, same message", "a\nb\nc\nd\n", []Error{{Line: 3, Message: "m"}}, []Error{{Line: 3, Message: "m"}}, 0},
		{"shifted by lines added above", "x\ny\na\nb\nc\nd\n", []Error{{Line: 3, Message: "m"}}, []Error{{Line: 5, Message: "m"}}, 0},
		{"shifted by lines removed above", "b\nc\nd\n", []Error{{Line: 3, Message: "m"}}, []Error{{Line: 2, Message: "m"}}, 0},
		{"at the end, past the last line", "a\nb\nX\nY\nc\nd\n", []Error{{Line: 5, Message: "eof"}}, []Error{{Line: 7, Message: "eof"}}, 0},
		{"in the lines replaced", "a\nB\nc\nd\n", []Error{{Line: 2, Message: "m"}}, []Error{{Line: 2, Message: "m"}}, 0},
		{"another message", "a\nB\nc\nd\n", []Error{{Line: 2, Message: "m"}}, []Error{{Line: 2, Message: "n"}}, 1},
		{"moved to another line untouched", "a\nB\nc\nd\n", []Error{{Line: 4, Message: "m"}}, []Error{{Line: 1, Message: "m"}}, 1},
		{"one before answers for one after", "a\nB\nc\nd\n", []Error{{Line: 2, Message: "m"}}, []Error{{Line: 2, Message: "m"}, {Line: 2, Message: "m"}}, 1},
		{"new", "a\nB\nc\nd\n", nil, []Error{{Line: 2, Message: "m"}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Added([]byte(before), []byte(tc.after), tc.errBefore, tc.errAfter)
			if len(got) != tc.added {
				t.Errorf("added %+v, want %d", got, tc.added)
			}
		})
	}
}

// TestCompareNotChecked: a side that was not checked adds nothing.
func TestCompareNotChecked(t *testing.T) {
	big := "package a\n" + strings.Repeat("// x\n", 100)
	c := Compare(context.Background(), "a.go", []byte(big), []byte("package a\nfunc (\n"), Limits{MaxBytes: 100})
	if len(c.Added) != 0 || c.Before.Checked || !c.After.Checked {
		t.Errorf("before over the bound: %+v, want nothing added", c)
	}
	c = Compare(context.Background(), "notes.txt", []byte("a"), []byte("b"), DefaultLimits)
	if c.After.Checked || len(c.Added) != 0 {
		t.Errorf("no language: %+v", c)
	}
}

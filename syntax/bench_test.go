package syntax

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/edit"
)

// benchLangs make a file of about n lines per language, in blocks of
// four or five lines; block k's body lines are what the edit changes.
var benchLangs = []struct {
	path  string
	head  string
	block func(k int) string
	tail  string
}{
	{"m.go", "package m\n\n", func(k int) string {
		return fmt.Sprintf("func f%d(a int) int {\n\tx := a * %d // %s\n\ty := x + %d // %s\n\treturn y\n}\n", k, k, tok(k), k, tok(k+1))
	}, ""},
	{"m.js", "", func(k int) string {
		return fmt.Sprintf("function f%d(a) {\n  const x = a * %d; // %s\n  const y = x + %d; // %s\n  return y;\n}\n", k, k, tok(k), k, tok(k+1))
	}, ""},
	{"m.ts", "", func(k int) string {
		return fmt.Sprintf("function f%d(a: number): number {\n  const x: number = a * %d; // %s\n  const y: number = x + %d; // %s\n  return y;\n}\n", k, k, tok(k), k, tok(k+1))
	}, ""},
	{"m.json", "[\n", func(k int) string {
		return fmt.Sprintf("  {\n    \"x\": \"%d %s\",\n    \"y\": \"%d %s\",\n    \"name\": \"item\"\n  },\n", k, tok(k), k, tok(k+1))
	}, "  {}\n]\n"},
	{"m.yaml", "", func(k int) string {
		return fmt.Sprintf("item%d:\n  x: %d # %s\n  y: %d # %s\n  tags: [a, b]\n", k, k, tok(k), k, tok(k+1))
	}, ""},
	{"m.toml", "", func(k int) string {
		return fmt.Sprintf("[item%d]\nx = %d # %s\ny = %d # %s\ntags = [\"a\", \"b\"]\n", k, k, tok(k), k, tok(k+1))
	}, ""},
}

// tok is a word that differs from block to block, so that a fuzzy match
// finds one block.
func tok(k int) string { return fmt.Sprintf("%08x", uint32(k)*2654435761) }

// benchEdit is a file of lines lines and a fuzzy edit of its middle block:
// the old text has a typo, so only the FUZZY rung finds it.
func benchEdit(path string, lines int) (string, edit.Edit) {
	for _, l := range benchLangs {
		if l.path != path {
			continue
		}
		per := strings.Count(l.block(0), "\n")
		n := lines / per
		var b strings.Builder
		b.WriteString(l.head)
		for k := range n {
			b.WriteString(l.block(k))
		}
		b.WriteString(l.tail)
		body := strings.Split(l.block(n/2), "\n")[1:3] // the block's second and third lines
		old := strings.Join(body, "\n")
		typo := strings.Replace(old, "y", "z", 1)
		return b.String(), edit.Edit{OldText: typo, NewText: strings.Replace(old, fmt.Sprint(n/2), "42", 1)}
	}
	panic("no language " + path)
}

// BenchmarkCheckVsEdit sets the syntax check of a change (Compare: the file
// parsed before and after) beside the fuzzy edit of the same file, per
// language and size; docs/syntax-check.md has the ratios.
func BenchmarkCheckVsEdit(b *testing.B) {
	ctx := context.Background()
	for _, l := range benchLangs {
		for _, lines := range []int{1_000, 10_000, 100_000} {
			before, e := benchEdit(l.path, lines)
			after, r := edit.ApplyEdit(before, e, edit.MatchOptions{})
			if r.Status != edit.StatusApplied || r.Strategy != edit.StrategyFuzzy {
				b.Fatalf("%s: the edit is %s by %s, want applied by FUZZY", l.path, r.Status, r.Strategy)
			}
			if c := Compare(ctx, l.path, []byte(before), []byte(after), DefaultLimits); !c.After.Checked || len(c.After.Errors) > 0 {
				b.Fatalf("%s: %+v", l.path, c.After)
			}
			name := fmt.Sprintf("%s/%dk", strings.TrimPrefix(l.path, "m."), lines/1000)
			b.Run(name+"/edit", func(b *testing.B) {
				for b.Loop() {
					edit.ApplyEdit(before, e, edit.MatchOptions{})
				}
			})
			b.Run(name+"/check", func(b *testing.B) {
				for b.Loop() {
					Compare(ctx, l.path, []byte(before), []byte(after), DefaultLimits)
				}
			})
		}
	}
}

package edit

import (
	"fmt"
	"strings"
	"testing"
)

// TestNotFoundNothingSimilar: when no region resembles the old text, the
// hint says so and shows what the file holds (all of a short file, the
// outline of a long one, or its first lines) instead of a useless region.
func TestNotFoundNothingSimilar(t *testing.T) {
	goFile := "package main\n\nimport \"fmt\"\n\n// helper adds.\nfunc helper(a, b int) int {\n\treturn a + b\n}\n\n" +
		"type T struct {\n\tA int\n\tB string\n\tC []byte\n\tD map[string]int\n}\n\nfunc (t T) String() string {\n" +
		"\treturn fmt.Sprint(t.A)\n}\n\nfunc main() {\n\tfmt.Println(helper(1, 2))\n}\n"
	var prose strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&prose, "Paragraph %d of the notes.\n", i)
	}
	const head = "Nothing similar to the old text was found in the file (best similarity %s): " +
		"the old text may come from another file or an older version of this one. "
	tests := []struct {
		name, content, old string
		opts               MatchOptions
		want               string
	}{
		{"short file shown whole", "package main\n\nfunc main() {}\n", "SELECT * FROM users WHERE id = 1;\n", MatchOptions{},
			fmt.Sprintf(head, "0.12") + "The file has 3 lines:\n   1 | package main\n   2 | \n   3 | func main() {}"},
		{"long code: its outline", goFile, "def compute(x):\n    return x * 2\n", MatchOptions{},
			fmt.Sprintf(head, "0.31") + "Its outline (the 6 lines that start at the margin, of 23):\n" +
				"   1 | package main\n   3 | import \"fmt\"\n   6 | func helper(a, b int) int {\n  10 | type T struct {\n" +
				"  17 | func (t T) String() string {\n  21 | func main() {"},
		{"outline bounded by MaxHintLines", goFile, "zzzzzzzzzzzzzzzzzzzz\n", MatchOptions{MaxHintLines: 2},
			fmt.Sprintf(head, "0.00") + "Its outline (the 6 lines that start at the margin, of 23):\n" +
				"   1 | package main\n   3 | import \"fmt\"\n     | … (4 more lines)"},
		{"prose: its first lines", prose.String(), "func main() {\n\tos.Exit(1)\n}\n", MatchOptions{MaxHintLines: 3},
			fmt.Sprintf(head, "0.05") + "Its first lines (of 30):\n   1 | Paragraph 1 of the notes.\n   2 | Paragraph 2 of the notes.\n" +
				"   3 | Paragraph 3 of the notes.\n     | … (27 more lines)"},
		{"old text longer than the file", "a\nb\n", "x\ny\nz\n", MatchOptions{},
			"The old text has 3 lines but the file only 2:\n   1 | a\n   2 | b"},
		{"something similar: the closest region", goFile, "func main() {\n\tfmt.Println(helper(1, 3))\n", MatchOptions{FuzzyThreshold: 1},
			"closest region: lines 21-22 (similarity 0.97)\n  21 | func main() {\n  22 | \tfmt.Println(helper(1, 2))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, r := ApplyEdit(tt.content, Edit{OldText: tt.old, NewText: "q\n"}, tt.opts)
			if r.Status != StatusNotFound || out != tt.content {
				t.Fatalf("status %s, content changed: %v", r.Status, out != tt.content)
			}
			if r.Hint != tt.want {
				t.Errorf("hint:\n%s\nwant:\n%s", r.Hint, tt.want)
			}
		})
	}
}

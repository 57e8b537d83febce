//go:build cgo

package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/syntax"
)

// benchFunctions are, per tree-sitter language, the function a generated
// file repeats: %[1]s and %[2]s are names, %[3]d its number, so that each
// is found once. Its first line holds "limit", which the fuzzy edit changes.
var benchFunctions = map[string]string{
	"python": "def process_%[3]d(items, limit):\n    %[1]s = 0\n    for %[2]s in items[:limit]:\n        if %[2]s.value > %[3]d:\n            %[1]s += %[2]s.value * 2\n        else:\n            %[1]s -= 1\n    return %[1]s\n",
	"rust":   "fn process_%[3]d(items: &[Item], limit: usize) -> i64 {\n    let mut %[1]s = 0;\n    for %[2]s in items.iter().take(limit) {\n        if %[2]s.value > %[3]d { %[1]s += %[2]s.value * 2; }\n        else { %[1]s -= 1; }\n    }\n    %[1]s\n}\n",
	"java":   "class Process%[3]d {\n  long run(Item[] items, int limit) {\n    long %[1]s = 0;\n    for (Item %[2]s : items) {\n      if (%[2]s.value > %[3]d) { %[1]s += %[2]s.value * 2; } else { %[1]s -= 1; }\n    }\n    return %[1]s;\n  }\n}\n",
	"c":      "long process_%[3]d(const struct item *items, int limit) {\n  long %[1]s = 0;\n  for (int %[2]s = 0; %[2]s < limit; %[2]s++) {\n    if (items[%[2]s].value > %[3]d) %[1]s += items[%[2]s].value * 2;\n    else %[1]s -= 1;\n  }\n  return %[1]s;\n}\n",
	"cpp":    "long process_%[3]d(const std::vector<Item>& items, int limit) {\n  long %[1]s = 0;\n  for (const auto& %[2]s : items) {\n    if (%[2]s.value > %[3]d) %[1]s += %[2]s.value * 2;\n    else %[1]s -= 1;\n  }\n  return %[1]s;\n}\n",
	"csharp": "class Process%[3]d {\n  long Run(Item[] items, int limit) {\n    long %[1]s = 0;\n    foreach (var %[2]s in items) {\n      if (%[2]s.Value > %[3]d) { %[1]s += %[2]s.Value * 2; } else { %[1]s -= 1; }\n    }\n    return %[1]s;\n  }\n}\n",
	"ruby":   "def process_%[3]d(items, limit)\n  %[1]s = 0\n  items.first(limit).each do |%[2]s|\n    if %[2]s.value > %[3]d\n      %[1]s += %[2]s.value * 2\n    else\n      %[1]s -= 1\n    end\n  end\n  %[1]s\nend\n",
	"php":    "function process_%[3]d($items, $limit) {\n    $%[1]s = 0;\n    foreach (array_slice($items, 0, $limit) as $%[2]s) {\n        if ($%[2]s->value > %[3]d) { $%[1]s += $%[2]s->value * 2; }\n        else { $%[1]s -= 1; }\n    }\n    return $%[1]s;\n}\n",
	"shell":  "process_%[3]d() {\n  local limit=$1 %[1]s=0\n  for %[2]s in \"${@:2:$limit}\"; do\n    if [ \"$%[2]s\" -gt %[3]d ]; then\n      %[1]s=$((%[1]s + %[2]s * 2))\n    else %[1]s=$((%[1]s - 1)); fi\n  done\n  echo \"$%[1]s\"\n}\n",
	"html":   "<section id=\"process-%[3]d\" data-limit=\"limit\">\n  <h2>%[1]s %[3]d</h2>\n  <ul>\n    <li class=\"%[2]s\">%[1]s <b>%[3]d</b></li>\n    <li class=\"%[1]s\">%[2]s <i>twice</i></li>\n  </ul>\n  <p>%[2]s</p>\n</section>\n",
}

// benchNames, numbered, name the variables: neighbours differ in each line.
var benchNames = strings.Fields("total sum acc count tally amount score weight budget result " +
	"credit debit balance reserve stock supply demand volume quota margin")

// benchSource writes a file of at least lines lines of lang.
func benchSource(lang string, lines int) string {
	var b strings.Builder
	if lang == "php" {
		b.WriteString("<?php\n")
	}
	for i, n := 0, 0; n < lines; i++ {
		acc, elem := fmt.Sprint(benchNames[i%len(benchNames)], i), fmt.Sprint(benchNames[(i/3+7)%len(benchNames)], "_", i)
		f := fmt.Sprintf(benchFunctions[lang], acc, elem, i)
		b.WriteString(f)
		n += strings.Count(f, "\n")
	}
	return b.String()
}

// benchFuzzyEdit is an edit of the function in the middle of src that
// only the FUZZY rung finds: a word of its first line changed, trailing
// spaces added.
func benchFuzzyEdit(src string) edit.Edit {
	lines := strings.SplitAfter(src, "\n")
	start := len(lines) / 2
	for !strings.Contains(lines[start], "limit") {
		start++
	}
	block := strings.Join(lines[start:start+6], "")
	changed := strings.ReplaceAll(block, "\n", "  \n") // trailing spaces
	changed = strings.Replace(changed, "limit", "max_count", 1)
	return edit.Edit{OldText: changed, NewText: strings.Replace(block, "limit", "bound", 1)}
}

// BenchmarkTreeSitterVsFuzzyEdit checks a file of each tree-sitter
// language, 1k, 10k and 100k lines, against the fuzzy edit of the same
// file, in the same iteration: check-ms and edit-ms are each one's time,
// check/edit their ratio (the aim: at most 1).
func BenchmarkTreeSitterVsFuzzyEdit(b *testing.B) {
	ctx := context.Background()
	for _, l := range syntax.Languages() {
		if benchFunctions[l.Name] == "" {
			continue // not a tree-sitter language
		}
		for _, lines := range []int{1000, 10000, 100000} {
			src := benchSource(l.Name, lines)
			path := "bench" + l.Extensions[0]
			e := benchFuzzyEdit(src)
			b.Run(fmt.Sprintf("%s/%dk", l.Name, lines/1000), func(b *testing.B) {
				if r := syntax.Check(ctx, path, []byte(src), benchLimits); !r.Checked || len(r.Errors) != 0 {
					b.Fatalf("the generated file: %+v", r)
				}
				if _, r := edit.ApplyEdit(src, e, edit.MatchOptions{}); r.Status != edit.StatusApplied || r.Strategy != edit.StrategyFuzzy {
					b.Fatalf("the edit: %s by %s, want APPLIED by FUZZY\n%s", r.Status, r.Strategy, r.Hint)
				}
				var check, apply time.Duration
				for b.Loop() {
					t0 := time.Now()
					syntax.Check(ctx, path, []byte(src), benchLimits)
					t1 := time.Now()
					edit.ApplyEdit(src, e, edit.MatchOptions{})
					check, apply = check+t1.Sub(t0), apply+time.Since(t1)
				}
				n := float64(b.N)
				b.ReportMetric(float64(check.Microseconds())/1000/n, "check-ms")
				b.ReportMetric(float64(apply.Microseconds())/1000/n, "edit-ms")
				b.ReportMetric(float64(check)/float64(apply), "check/edit")
			})
		}
	}
}

// benchLimits let the 100k-line files be checked (the default bounds
// would leave some not checked).
var benchLimits = syntax.Limits{MaxBytes: 64 << 20, Timeout: time.Minute}

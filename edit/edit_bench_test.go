package edit

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// goSource generates a realistic Go file of about n lines (or minBytes
// bytes, whichever is more): functions of a few shapes with varied
// identifiers, comments, blank lines, structs. It is deterministic, so
// every run edits the same text.
func goSource(n, minBytes int) string {
	rnd := rand.New(rand.NewSource(42))
	words := []string{"user", "order", "item", "cache", "session", "token", "buffer", "request", "response", "config",
		"record", "entry", "batch", "stream", "client", "server", "queue", "worker", "result", "payload", "index", "limit"}
	w := func() string { return words[rnd.Intn(len(words))] }
	title := func(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
	var b strings.Builder
	b.WriteString("// Code for the benchmark; every function is different.\npackage bench\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n\t\"log\"\n)\n\n")
	lines := 11
	for i := 0; lines < n || b.Len() < minBytes; i++ {
		a, c, d := w(), w(), w()
		var f string
		switch i % 4 {
		case 0:
			f = fmt.Sprintf(`// process%[1]s%[4]d handles one %[1]s of the %[2]s batch.
func process%[1]s%[4]d(ctx context.Context, items []%[5]s, limit int) (int, error) {
	total := 0
	for i, it := range items {
		if it.%[6]s > limit {
			return total, fmt.Errorf("%[2]s %%d too large: %%d", i, it.%[6]s)
		}
		total += it.%[6]s * %[7]d
	}
	log.Printf("%[3]s: processed %%d items", len(items))
	return total, nil
}

`, title(a), c, d, i, title(c)+"Item", title(d)+"Size", rnd.Intn(90)+2)
		case 1:
			f = fmt.Sprintf(`type %[1]s%[3]dStore struct {
	%[2]ss   map[string]*%[1]s
	limit    int
	hits     int64
	fallback func(key string) (*%[1]s, error)
}

// Get%[1]s%[3]d returns the cached %[2]s for key, loading it on a miss.
func (s *%[1]s%[3]dStore) Get%[1]s%[3]d(key string) (*%[1]s, error) {
	if v, ok := s.%[2]ss[key]; ok {
		s.hits++
		return v, nil
	}
	if s.fallback == nil {
		return nil, errors.New("%[2]s %[3]d: no fallback")
	}
	v, err := s.fallback(key)
	if err != nil {
		return nil, fmt.Errorf("load %[2]s %%q: %%w", key, err)
	}
	s.%[2]ss[key] = v
	return v, nil
}

`, title(a), c, i)
		case 2:
			f = fmt.Sprintf(`func validate%[1]s%[4]d(in *%[1]s) error {
	switch {
	case in == nil:
		return errors.New("%[2]s: nil %[1]s")
	case in.%[3]s == "":
		return errors.New("%[2]s: missing %[3]s")
	case len(in.%[3]s) > %[5]d:
		return fmt.Errorf("%[2]s: %[3]s longer than %[5]d")
	}
	return nil
}

`, title(a), c, title(d), i, rnd.Intn(500)+10)
		default:
			f = fmt.Sprintf(`// %[1]sWorker%[3]d drains the %[2]s queue until ctx is done.
func %[1]sWorker%[3]d(ctx context.Context, in <-chan %[4]s, out chan<- %[4]s) {
	defer close(out)
	for {
		select {
		case <-ctx.Done():
			return
		case v, ok := <-in:
			if !ok {
				return
			}
			out <- transform%[3]d(v)
		}
	}
}

`, a, c, i, title(d))
		}
		b.WriteString(f)
		lines += strings.Count(f, "\n")
	}
	return b.String()
}

// fuzzyTarget picks a function block from the middle of src and returns it
// with its whitespace changed and one word changed: in a middle line
// (anchorsKept: BLOCK_ANCHOR finds it) or in the first line (only FUZZY can).
func fuzzyTarget(src string, anchorsKept bool) (old, block string) {
	lines := strings.SplitAfter(src, "\n")
	mid := len(lines) / 2
	start := mid
	for !strings.HasPrefix(lines[start], "func process") {
		start++
	}
	block = strings.Join(lines[start:start+10], "")
	changed := make([]string, 10)
	for i, l := range lines[start : start+10] {
		l = strings.ReplaceAll(l, "\t", "    ")     // spaces for tabs
		l = strings.Replace(l, " := ", "  :=  ", 1) // spacing inside the line
		l = strings.TrimSuffix(l, "\n") + "  \n"    // trailing spaces
		changed[i] = l
	}
	if anchorsKept {
		changed[3] = strings.Replace(changed[3], "if it.", "if item.", 1)
	} else {
		changed[0] = strings.Replace(changed[0], "limit int", "max int", 1)
	}
	return strings.Join(changed, ""), block
}

func BenchmarkFuzzyEdit10kLines(b *testing.B) { benchFuzzyEdit(b, 10000) }

func BenchmarkFuzzyEdit100kLines(b *testing.B) { benchFuzzyEdit(b, 100000) }

func benchFuzzyEdit(b *testing.B, lines int) {
	src := goSource(lines, 0)
	if n := strings.Count(src, "\n"); n < lines || n > lines+100 {
		b.Fatalf("generated %d lines", n)
	}
	for _, c := range []struct {
		want        Strategy
		anchorsKept bool
	}{{StrategyBlockAnchor, true}, {StrategyFuzzy, false}} {
		old, block := fuzzyTarget(src, c.anchorsKept)
		e := Edit{OldText: old, NewText: "// replaced\n"}
		b.Run(string(c.want), func(b *testing.B) {
			out, r := ApplyEdit(src, e, MatchOptions{})
			if r.Status != StatusApplied || r.Strategy != c.want {
				b.Fatalf("%s by %s (similarity %.3f), want APPLIED by %s\n%s", r.Status, r.Strategy, r.Similarity, c.want, r.Hint)
			}
			if strings.Replace(src, block, "// replaced\n", 1) != out {
				b.Fatalf("replaced the wrong span")
			}
			b.Logf("found by %s at line %d, similarity %.3f", r.Strategy, r.Line, r.Similarity)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				ApplyEdit(src, e, MatchOptions{})
			}
		})
	}
	b.Run("NOT_FOUND", func(b *testing.B) {
		e := Edit{OldText: "func nothingLikeThis(x int) {\n\tpanic(\"never written anywhere\")\n\tos.Exit(3)\n}\n", NewText: "x\n"}
		if _, r := ApplyEdit(src, e, MatchOptions{}); r.Status != StatusNotFound || r.Hint == "" {
			b.Fatalf("%s", r.Status)
		}
		b.ReportAllocs()
		for b.Loop() {
			ApplyEdit(src, e, MatchOptions{})
		}
	})
}

func BenchmarkExactEdit10MB(b *testing.B) {
	content := goSource(0, 10<<20)
	// A unique block near the end.
	tail := content[len(content)-2000:]
	i := strings.Index(tail, "\nfunc ") + 1
	old := tail[i : i+strings.Index(tail[i:], "\n}\n")+3]
	if strings.Count(content, old) != 1 {
		b.Fatalf("block not unique:\n%s", old)
	}
	e := Edit{OldText: old, NewText: "func replaced() {}\n"}
	if _, r := ApplyEdit(content, e, MatchOptions{}); r.Status != StatusApplied || r.Strategy != StrategyExact {
		b.Fatalf("%s by %s", r.Status, r.Strategy)
	}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		ApplyEdit(content, e, MatchOptions{})
	}
}

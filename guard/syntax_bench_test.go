package guard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
)

// syntaxBenchFiles are 10k-line files whose middle block a fuzzy edit
// changes, as syntax/bench_test.go makes them.
var syntaxBenchFiles = []struct {
	path        string
	head, tail  string
	block       func(k int) string
	old, middle func(k int) string
}{
	{path: "m.go", head: "package m\n\n", block: func(k int) string {
		return fmt.Sprintf("func f%d(a int) int {\n\tx := a * %d // %08x\n\ty := x + %d // %08x\n\treturn y\n}\n", k, k, uint32(k)*2654435761, k, uint32(k+1)*2654435761)
	}},
	{path: "m.ts", block: func(k int) string {
		return fmt.Sprintf("function f%d(a: number): number {\n  const x: number = a * %d; // %08x\n  const y: number = x + %d; // %08x\n  return y;\n}\n", k, k, uint32(k)*2654435761, k, uint32(k+1)*2654435761)
	}},
	{path: "m.json", head: "[\n", tail: "  {}\n]\n", block: func(k int) string {
		return fmt.Sprintf("  {\n    \"x\": \"%d %08x\",\n    \"y\": \"%d %08x\",\n    \"name\": \"item\"\n  },\n", k, uint32(k)*2654435761, k, uint32(k+1)*2654435761)
	}},
	{path: "m.yaml", block: func(k int) string {
		return fmt.Sprintf("item%d:\n  x: %d # %08x\n  y: %d # %08x\n  tags: [a, b]\n", k, k, uint32(k)*2654435761, k, uint32(k+1)*2654435761)
	}},
}

// BenchmarkEditSyntaxCost is a fuzzy edit (an old text with a typo) of a
// 10k-line file through ExecuteEdit, as a dry run so that every call makes
// the same change: without the check (off), with it and nothing cached
// (cold), with the file's content before the change cached as the last
// change leaves it (warm), and retried (both sides cached).
// docs/syntax-check.md has the ratios.
func BenchmarkEditSyntaxCost(b *testing.B) {
	store := session.NewMemory(session.MemoryOptions{})
	b.Cleanup(func() { _ = store.Close() })
	cfg := DefaultConfig()
	cfg.Workspace = b.TempDir()
	g, cleanup, err := New(cfg, Options{Sessions: store})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cleanup() })
	ctx := context.Background()
	for _, f := range syntaxBenchFiles {
		per := strings.Count(f.block(0), "\n")
		n := 10_000 / per
		var src strings.Builder
		src.WriteString(f.head)
		for k := range n {
			src.WriteString(f.block(k))
		}
		src.WriteString(f.tail)
		if err := os.WriteFile(filepath.Join(cfg.Workspace, f.path), []byte(src.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		body := strings.Join(strings.Split(f.block(n/2), "\n")[1:3], "\n")
		text, _ := repair.EncodeJSON(map[string]any{"path": f.path, "old_text": strings.Replace(body, "y", "z", 1),
			"new_text": strings.Replace(body, fmt.Sprint(n/2), "42", 1)})
		req := ExecuteRequest{ValidateRequest: ValidateRequest{Call: repair.Call{Name: "edit", Form: repair.FormText, Text: string(text)}, SessionID: "bench"}, DryRun: true}
		for _, mode := range []string{"off", "cold", "warm", "retry"} {
			b.Run(strings.TrimPrefix(f.path, "m.")+"/10k/"+mode, func(b *testing.B) {
				g.syntaxMode = SyntaxReport
				if mode == "off" {
					g.syntaxMode = SyntaxOff
				}
				for b.Loop() {
					switch mode {
					case "cold":
						g.syntaxCache = newSyntaxCache(syntaxCacheEntries, syntaxCacheBytes)
					case "warm":
						b.StopTimer()
						g.syntaxCache = newSyntaxCache(syntaxCacheEntries, syntaxCacheBytes)
						g.compareCached(f.path, nil, []byte(src.String()))
						b.StartTimer()
					}
					ex, err := g.ExecuteEdit(ctx, req)
					if err != nil || len(ex.Edits) != 1 || ex.Edits[0].Status != "APPLIED" || ex.Edits[0].Strategy != "FUZZY" || (mode != "off" && ex.Syntax[0].Outcome != SyntaxClean) {
						b.Fatalf("%v %+v", err, ex)
					}
				}
			})
		}
	}
}

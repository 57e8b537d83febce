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

// BenchmarkExecuteEdit is ExecuteEdit's whole work on one file, the atomic
// write included: an edit call that turns one line of a file of the size
// named and back again, so that every call changes the file.
func BenchmarkExecuteEdit(b *testing.B) {
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
	for _, size := range []int{4 << 10, 256 << 10} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			name := fmt.Sprintf("src/f%d.go", size)
			line := "\tx := compute(a, b, c) // a line of ordinary code\n"
			body := "package m\n\nfunc f() {\n\tmarker := 0\n" + strings.Repeat(line, size/len(line)) + "}\n"
			if err := os.MkdirAll(filepath.Join(cfg.Workspace, "src"), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cfg.Workspace, name), []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
			var calls [2]repair.Call
			for i, pair := range [2][2]string{{"marker := 0", "marker := 1"}, {"marker := 1", "marker := 0"}} {
				text, _ := repair.EncodeJSON(map[string]any{"path": name, "old_text": pair[0], "new_text": pair[1]})
				calls[i] = repair.Call{Name: "edit", Form: repair.FormText, Text: string(text)}
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				ex, err := g.ExecuteEdit(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{Call: calls[i%2], SessionID: "bench"}})
				if err != nil || !ex.Applied {
					b.Fatalf("%v %+v", err, ex)
				}
				i++
			}
		})
	}
}

package guard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
)

// BenchmarkExecuteEditMemory edits a file of 8 MB, of Python (its syntax
// checked before and after) and of text (no check): one line, and every
// line (replace_all). alloc_vs_file is the bytes ExecuteEdit allocated
// over the file's size; the file is written again before each call.
//
//	go test -run '^$' -bench ExecuteEditMemory -benchtime 3x ./guard/
func BenchmarkExecuteEditMemory(b *testing.B) {
	store := session.NewMemory(session.MemoryOptions{})
	b.Cleanup(func() { _ = store.Close() })
	cfg := DefaultConfig()
	cfg.Workspace = b.TempDir()
	cfg.MaxFileBytes = 32 << 20
	g, cleanup, err := New(cfg, Options{Sessions: store})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cleanup() })
	var sb strings.Builder
	for i := 0; sb.Len() < 8<<20; i++ {
		fmt.Fprintf(&sb, "def f%d(event):\n    return {'status': 200, \"body\": 'x'}\n", i)
	}
	content := sb.String()
	for _, ext := range []string{"py", "txt"} {
		for _, c := range []struct {
			name string
			args map[string]any
		}{
			{"one-line", map[string]any{"old_text": "def f1000(event):\n", "new_text": "def f1000(evt):\n"}},
			{"replace-all", map[string]any{"old_text": "200", "new_text": "201", "replace_all": true}},
		} {
			b.Run(ext+"/"+c.name, func(b *testing.B) {
				name := "big." + ext
				c.args["path"] = name
				text, _ := repair.EncodeJSON(c.args)
				call := repair.Call{Name: "edit", Form: repair.FormText, Text: string(text)}
				var m0, m1 runtime.MemStats
				var alloc uint64
				for b.Loop() {
					b.StopTimer()
					if err := os.WriteFile(filepath.Join(cfg.Workspace, name), []byte(content), 0o644); err != nil {
						b.Fatal(err)
					}
					runtime.ReadMemStats(&m0)
					b.StartTimer()
					ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{Call: call, SessionID: "bench"}})
					if err != nil || !ex.Applied {
						b.Fatalf("%v %+v", err, ex)
					}
					runtime.ReadMemStats(&m1)
					alloc += m1.TotalAlloc - m0.TotalAlloc
				}
				b.ReportMetric(float64(alloc)/float64(b.N)/float64(len(content)), "alloc_vs_file")
			})
		}
	}
}

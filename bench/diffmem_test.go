package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// diffFileBytes is the size of the file BenchmarkDiffMemory changes.
const diffFileBytes = 8 << 20

// diffChange is a call changing the file diffMemoryFile wrote, and what
// it must answer.
type diffChange struct {
	name string
	call func(c toolguardv1.ToolGuardServiceClient, path, content string) error
}

func diffChanges() []diffChange {
	edit := func(args map[string]any) func(c toolguardv1.ToolGuardServiceClient, path, content string) error {
		return func(c toolguardv1.ToolGuardServiceClient, path, content string) error {
			args["path"] = path
			text, _ := json.Marshal(args)
			resp, err := c.ExecuteEdit(context.Background(), &toolguardv1.ExecuteEditRequest{
				Context: &toolguardv1.RequestContext{SessionId: "diff-" + path},
				Call:    &toolguardv1.ToolCall{Name: "edit", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: string(text)}},
			})
			if err == nil && !resp.GetApplied() {
				err = fmt.Errorf("not applied: %v", resp.GetVerdict().GetViolations())
			}
			return err
		}
	}
	return []diffChange{
		{"edit-one-line", edit(map[string]any{"old_text": "def f1000(event):\n", "new_text": "def f1000(evt):\n"})},
		{"edit-replace-all", edit(map[string]any{"old_text": "200", "new_text": "201", "replace_all": true})},
		{"write-every-line", func(c toolguardv1.ToolGuardServiceClient, path, content string) error {
			resp, err := c.ExecuteWrite(context.Background(), writeRequest(path, strings.ReplaceAll(content, "200", "201")))
			if err == nil && resp.GetChange().GetKind() != toolguardv1.FileChangeKind_FILE_CHANGE_KIND_MODIFIED {
				err = fmt.Errorf("not modified: %v %v", resp.GetChange(), resp.GetVerdict().GetViolations())
			}
			return err
		}},
	}
}

func writeRequest(path, content string) *toolguardv1.ExecuteWriteRequest {
	return &toolguardv1.ExecuteWriteRequest{
		Context: &toolguardv1.RequestContext{SessionId: "diff-" + path},
		Call: &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{
			ArgumentsText: jsonArgs(map[string]string{"path": path, "content": content})}},
	}
}

// BenchmarkDiffMemory changes a file of 8 MB with a small edit (one
// line), an edit of every line (replace_all) and a write of every line
// changed, and reports per call the server's peak resident set above its
// settled one before the call, over the file's size (peak_rss_vs_file:
// median, _min, _max) and what it allocated (alloc_vs_file). With
// TOOLGUARD_BENCH_BEFORE naming this package's test binary built at an
// earlier commit, that server runs beside this one, calls alternating
// between them, the order reversed every round, figures prefixed before_
// and after_:
//
//	go test -c -o /tmp/before.test ./bench/   # at the earlier commit
//	TOOLGUARD_BENCH_BEFORE=/tmp/before.test go test -run '^$' -bench DiffMemory -benchtime 5x ./bench/
func BenchmarkDiffMemory(b *testing.B) {
	content := codeContent(diffFileBytes)
	for _, k := range diffChanges() {
		b.Run(k.name, func(b *testing.B) {
			raiseSizes(b)
			type side struct {
				name          string
				s             *benchServer
				peaks, allocs []float64
			}
			sides := []*side{{name: "after", s: startBenchServer(b, "info")}}
			if path := os.Getenv(beforeEnv); path != "" {
				sides = append([]*side{{name: "before", s: startServerFrom(b, path, "info")}}, sides...)
			}
			n := 0
			for b.Loop() {
				order := inTurn(sides, n)
				for _, sd := range order {
					b.StopTimer()
					c := toolguardv1.NewToolGuardServiceClient(sd.s.conn)
					path := fmt.Sprintf("src/diff-%d.py", n)
					if _, err := c.ExecuteWrite(context.Background(), writeRequest(path, content)); err != nil {
						b.Fatal(err)
					}
					m0 := sd.s.settle(b)
					b.StartTimer()
					if err := k.call(c, path, content); err != nil {
						b.Fatalf("%s %s: %v", sd.name, k.name, err)
					}
					m1 := sd.s.mem(b)
					sd.peaks = append(sd.peaks, float64(m1.hwm-m0.rss)/float64(len(content)))
					sd.allocs = append(sd.allocs, float64(m1.totalAlloc-m0.totalAlloc)/float64(len(content)))
				}
				n++
			}
			ident := func(x float64) float64 { return x }
			for _, sd := range sides {
				prefix := ""
				if len(sides) > 1 {
					prefix = sd.name + "_"
				}
				b.ReportMetric(median(sd.peaks, ident), prefix+"peak_rss_vs_file")
				b.ReportMetric(slices.Min(sd.peaks), prefix+"peak_rss_vs_file_min")
				b.ReportMetric(slices.Max(sd.peaks), prefix+"peak_rss_vs_file_max")
				b.ReportMetric(median(sd.allocs, ident), prefix+"alloc_vs_file")
			}
		})
	}
}

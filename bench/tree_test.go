package bench

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/workspace"
)

// BenchmarkTreeVsFind lists two trees, the Go standard library's source and
// this repository, used read-only as workspaces, three ways in each
// iteration: `find -printf` with the type, size and path of every entry
// (.git pruned, as the workspace denies it), the confined walker alone
// (workspace.Walk: each directory opened in the one above, every name
// lstat'ed and matched against the deny lists), and the whole
// list_directory tree (walk, bound of 5000 entries shown, counts of the
// rest, the text the model reads). It reports each toolguard side's time
// as a ratio to find's, wall and CPU (find's CPU is its child's rusage).
func BenchmarkTreeVsFind(b *testing.B) {
	findBin, err := exec.LookPath("find")
	if err != nil {
		b.Fatalf("find is needed for the comparison: %v", err)
	}
	dirs, guards := largeTrees(b)
	var spaces []*workspace.Workspace
	for _, d := range dirs {
		ws, err := workspace.Open(d, workspace.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = ws.Close() })
		spaces = append(spaces, ws)
	}
	ctx := context.Background()
	var findWall, findCPU, walkWall, walkCPU, listWall, listCPU time.Duration
	var findLines, walked, listed int
	b.ResetTimer()
	for range b.N {
		findLines, walked, listed = 0, 0, 0
		for _, d := range dirs {
			cmd := exec.Command(findBin, d, "-name", ".git", "-prune", "-o", "-printf", "%y %s %p\n")
			var out bytes.Buffer
			cmd.Stdout = &out
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			findWall += time.Since(start)
			findCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			findLines += bytes.Count(out.Bytes(), []byte{'\n'})
		}
		start, cpu := time.Now(), cpuTime()
		for _, ws := range spaces {
			st, err := ws.Walk(ctx, ".", workspace.WalkOptions{}, func(*workspace.Entry) error { return nil })
			if err != nil || st.Cut != workspace.CutNone {
				b.Fatalf("walk: %v %+v", err, st)
			}
			walked += st.Entries
		}
		walkWall, walkCPU = walkWall+time.Since(start), walkCPU+cpuTime()-cpu
		start, cpu = time.Now(), cpuTime()
		for _, g := range guards {
			lk, err := g.ListDirectory(ctx, guard.ListRequest{RequestContext: guard.RequestContext{NoSession: true}, Depth: 32, MaxEntries: guard.MaxListEntries})
			if err != nil || !lk.OK() {
				b.Fatalf("list: %v", err)
			}
			l := lk.Result.(*guard.Listing)
			_ = l.Text()
			listed += len(l.Entries) + l.Omitted
		}
		listWall, listCPU = listWall+time.Since(start), listCPU+cpuTime()-cpu
	}
	n := float64(b.N)
	b.ReportMetric(float64(findLines), "find-entries")
	b.ReportMetric(float64(walked), "walk-entries")
	b.ReportMetric(float64(listed), "list-entries")
	b.ReportMetric(float64(findWall.Microseconds())/n, "find-us")
	b.ReportMetric(float64(walkWall.Microseconds())/n, "walk-us")
	b.ReportMetric(float64(listWall.Microseconds())/n, "list-us")
	b.ReportMetric(float64(walkWall)/float64(findWall), "walk_vs_find")
	b.ReportMetric(float64(listWall)/float64(findWall), "list_vs_find")
	if findCPU > 0 {
		b.ReportMetric(float64(walkCPU)/float64(findCPU), "walk_vs_find-cpu")
		b.ReportMetric(float64(listCPU)/float64(findCPU), "list_vs_find-cpu")
	}
}

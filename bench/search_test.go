package bench

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/toolguard/toolguard/guard"
)

// BenchmarkSearchVsRipgrep searches two trees, the Go standard library's
// source and this repository, used read-only as workspaces, three ways in
// each iteration: ripgrep (`rg -n --no-ignore --hidden -g '!.git'`: every
// file but .git, as the workspace sees them, binary files skipped), `git
// grep --no-index -n -I` (the same files), and search_files through the
// guard (walk, deny lists, parallel reads, the first 2000 matching lines
// kept with every other one counted, the text the model reads). Three
// searches: a literal, a regular expression and a case-insensitive
// literal. It reports each peer's time as a ratio to toolguard's (above 1:
// toolguard is faster), wall and CPU (the peers' CPU is their rusage), and
// the matching lines each found.
func BenchmarkSearchVsRipgrep(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Fatalf("ripgrep (rg) is needed for the comparison: %v", err)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		b.Fatalf("git is needed for the comparison: %v", err)
	}
	dirs, guards := largeTrees(b)
	for _, q := range []struct {
		name, pattern     string
		literal, fold     bool
		rgFlags, gitFlags []string
	}{
		{"literal", "errors.New", true, false, []string{"-F"}, []string{"-F"}},
		{"regex", `func \w+Error\(`, false, false, nil, []string{"-E"}},
		{"ignore-case", "deadline exceeded", true, true, []string{"-F", "-i"}, []string{"-F", "-i"}},
	} {
		b.Run(q.name, func(b *testing.B) {
			var rgWall, rgCPU, gitWall, gitCPU, tgWall, tgCPU time.Duration
			var rgLines, gitLines, tgLines int
			peer := func(wall, cpu *time.Duration, lines *int, name string, args ...string) {
				cmd := exec.Command(name, args...)
				var out bytes.Buffer
				cmd.Stdout = &out
				start := time.Now()
				if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != 1 {
					b.Fatalf("%s: %v", name, err)
				}
				*wall += time.Since(start)
				*cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				*lines += bytes.Count(out.Bytes(), []byte{'\n'})
			}
			b.ResetTimer()
			for range b.N {
				rgLines, gitLines, tgLines = 0, 0, 0
				for _, d := range dirs {
					peer(&rgWall, &rgCPU, &rgLines, rg, append(append([]string{"--no-config", "-n", "--no-ignore", "--hidden", "-g", "!.git"}, q.rgFlags...), "-e", q.pattern, d)...)
					cmd := append(append([]string{"-C", d, "grep", "--no-index", "-n", "-I"}, q.gitFlags...), "-e", q.pattern)
					peer(&gitWall, &gitCPU, &gitLines, git, cmd...)
				}
				start, cpu := time.Now(), cpuTime()
				for _, g := range guards {
					lk, err := g.SearchFiles(context.Background(), guard.SearchRequest{RequestContext: guard.RequestContext{NoSession: true},
						Pattern: q.pattern, Literal: q.literal, IgnoreCase: q.fold, MaxResults: 2000})
					if err != nil || !lk.OK() {
						b.Fatalf("search: %v", err)
					}
					s := lk.Result.(*guard.Searched)
					if s.Partial {
						b.Fatalf("search stopped early: %s", s.Cut)
					}
					_ = s.Text()
					tgLines += s.TotalMatches
				}
				tgWall, tgCPU = tgWall+time.Since(start), tgCPU+cpuTime()-cpu
			}
			n := float64(b.N)
			b.ReportMetric(float64(rgLines), "rg-lines")
			b.ReportMetric(float64(gitLines), "gitgrep-lines")
			b.ReportMetric(float64(tgLines), "toolguard-lines")
			b.ReportMetric(float64(tgWall.Microseconds())/n, "toolguard-us")
			b.ReportMetric(float64(rgWall)/float64(tgWall), "rg_vs_toolguard")
			b.ReportMetric(float64(gitWall)/float64(tgWall), "gitgrep_vs_toolguard")
			if tgCPU > 0 {
				b.ReportMetric(float64(rgCPU)/float64(tgCPU), "rg_vs_toolguard-cpu")
				b.ReportMetric(float64(gitCPU)/float64(tgCPU), "gitgrep_vs_toolguard-cpu")
			}
		})
	}
}

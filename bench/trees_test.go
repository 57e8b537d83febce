package bench

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toolguard/toolguard/guard"
)

// largeTrees are the trees the look benchmarks walk, read-only: the Go
// standard library's source and this repository, each served by a guard
// whose workspace it is.
func largeTrees(b *testing.B) (dirs []string, guards []*guard.Guard) {
	b.Helper()
	repo, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	dirs = []string{filepath.Join(string(bytes.TrimSpace(goroot)), "src"), repo}
	for _, d := range dirs {
		cfg := guard.DefaultConfig()
		cfg.Workspace = d
		g, cleanup, err := guard.New(cfg, guard.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cleanup() })
		guards = append(guards, g)
	}
	return dirs, guards
}

//go:build unix

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestCheckWritable: a writable folder passes and keeps no probe file; a
// folder the process may not write is ErrNotWritable, saying who may and
// how to fix it; a read-only mount passes (reads serve).
func TestCheckWritable(t *testing.T) {
	e := newEnv(t)
	if err := CheckWritable(e.ws); err != nil {
		t.Fatal(err)
	}
	if tmp := tempFiles(t, e.ws); len(tmp) > 0 {
		t.Errorf("probe left: %v", tmp)
	}
	refuse := func(errno syscall.Errno) func(string, int, fs.FileMode) (*os.File, error) {
		return func(name string, _ int, _ fs.FileMode) (*os.File, error) {
			return nil, &fs.PathError{Op: "open", Path: name, Err: errno}
		}
	}
	for _, tc := range []struct {
		name string
		set  func()
		want error
	}{
		{"permission", func() {
			if os.Geteuid() == 0 { // root writes anyway: the refusal is made up
				probeOpen = refuse(syscall.EACCES)
			} else if err := os.Chmod(e.ws, 0o555); err != nil {
				t.Fatal(err)
			}
		}, ErrNotWritable},
		{"read-only mount", func() { probeOpen = refuse(syscall.EROFS) }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() { probeOpen = os.OpenFile; _ = os.Chmod(e.ws, 0o755) }()
			tc.set()
			err := CheckWritable(e.ws)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("CheckWritable = %v, want %v", err, tc.want)
			}
			if err != nil && (!strings.Contains(err.Error(), "fsGroup") || !strings.Contains(err.Error(), "uid "+strconv.Itoa(os.Getuid()))) {
				t.Errorf("message does not say who and why: %v", err)
			}
		})
	}
}

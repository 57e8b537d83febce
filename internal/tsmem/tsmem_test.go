//go:build cgo && linux

package tsmem

import (
	"context"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/syntax"
)

// TestPeak: a parse's tree counts, tens of times its file's size; nothing
// allocated counts nothing; tree-sitter allocates through libc again after.
func TestPeak(t *testing.T) {
	src := []byte(strings.Repeat("def f(a):\n    return a * 2\n\n", 1000))
	var r syntax.Result
	peak := Peak(func() { r = syntax.Check(context.Background(), "a.py", src, syntax.Limits{}) })
	if !r.Checked || peak < int64(10*len(src)) {
		t.Errorf("checked %v (%s), peak %d bytes for %d of Python: want at least ten times", r.Checked, r.Reason, peak, len(src))
	}
	if idle := Peak(func() {}); idle != 0 {
		t.Errorf("peak %d bytes with nothing parsed", idle)
	}
	if r := syntax.Check(context.Background(), "a.py", src, syntax.Limits{}); !r.Checked {
		t.Errorf("after a measurement: %s", r.Reason)
	}
}

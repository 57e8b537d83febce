//go:build cgo

package syntax

import (
	"bytes"
	"context"
	"testing"
)

// FuzzTreeSitterPython: any bytes are checked without a crash, and each
// error lies inside the source (its line and column name a byte of it, or
// its end), with a message, and no more than MaxErrors of them.
func FuzzTreeSitterPython(f *testing.F) {
	for _, tc := range treeSitterCases {
		if tc.lang == "python" {
			f.Add([]byte(tc.clean))
			f.Add([]byte(tc.broken))
		}
	}
	f.Add([]byte("def f(:\n\tif x\r\n  é = '\xff\n"))
	f.Add([]byte("class A:\n    def f(self):\n        return [x for x in (1, 2,]\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		r := Check(context.Background(), "f.py", src, Limits{MaxBytes: 1 << 20})
		if !r.Checked {
			t.Fatalf("not checked: %s", r.Reason)
		}
		if len(r.Errors) > MaxErrors {
			t.Fatalf("%d errors, more than %d", len(r.Errors), MaxErrors)
		}
		lines := bytes.SplitAfter(src, []byte("\n"))
		for _, e := range r.Errors {
			if e.Message == "" || e.Line < 1 || e.Line > len(lines) || e.Column < 1 || e.Column > len(lines[e.Line-1])+1 {
				t.Fatalf("error %+v outside the source's %d lines", e, len(lines))
			}
		}
	})
}

//go:build !cgo

package syntax

import (
	"context"
	"slices"
	"testing"
)

// TestTreeSitterWithoutCgo: a build without cgo names each tree-sitter
// language, from its extension and its shebang, and says it was not
// checked, and why; the pure-Go languages are checked all the same.
func TestTreeSitterWithoutCgo(t *testing.T) {
	for _, l := range treeSitterLanguages {
		r := Check(context.Background(), "f"+l.extensions[0], []byte("def f(:\n"), DefaultLimits)
		if r.Lang != l.name || r.Checked || r.Reason != "built without cgo: no syntax check for "+l.name {
			t.Errorf("%s: %+v, want named, not checked, built without cgo", l.name, r)
		}
		for _, interp := range l.shebangs {
			if got, _ := Detect("bin/tool", []byte("#!/usr/bin/env "+interp+"\n")); got != l.name {
				t.Errorf("shebang %s: detected %q, want %s", interp, got, l.name)
			}
		}
	}
	infos := Languages()
	for _, l := range treeSitterLanguages {
		i := slices.IndexFunc(infos, func(i LanguageInfo) bool { return i.Name == l.name })
		if i < 0 || infos[i].Checked || infos[i].Unavailable == "" {
			t.Errorf("%s: %+v, want listed as unavailable", l.name, infos)
		}
	}
	if r := Check(context.Background(), "a.json", []byte("{,}"), DefaultLimits); !r.Checked || len(r.Errors) != 1 {
		t.Errorf("JSON without cgo: %+v, want checked, one error", r)
	}
}

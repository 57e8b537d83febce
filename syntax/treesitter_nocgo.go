//go:build !cgo

package syntax

// Without cgo there is no tree-sitter: its languages are known, so a file
// is named, but not checked (a static build by `CGO_ENABLED=0 go build`,
// or `go install` on a machine without a C compiler).
func init() {
	for _, l := range treeSitterLanguages {
		registerUnavailable(l.name, l.extensions, l.shebangs, "built without cgo: no syntax check for "+l.name)
	}
}

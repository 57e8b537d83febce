//go:build amd64 || arm64 || riscv64 || ppc64le || s390x || loong64 || mips64 || mips64le || ppc64

package session

import (
	"testing"
	"unsafe"
)

// TestEntrySize guards the per-session footprint the memory budget relies on.
func TestEntrySize(t *testing.T) {
	if got := unsafe.Sizeof(entry{}); got != 56 {
		t.Errorf("entry is %d bytes, want 56", got)
	}
	if got := unsafe.Sizeof(slot{}); got != 8 {
		t.Errorf("slot is %d bytes, want 8", got)
	}
}

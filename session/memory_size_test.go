//go:build amd64 || arm64 || riscv64 || ppc64le || s390x || loong64 || mips64 || mips64le || ppc64

package session

import (
	"testing"
	"unsafe"
)

// TestEntrySize guards the per-session footprint the memory budget relies on.
func TestEntrySize(t *testing.T) {
	if got := unsafe.Sizeof(entry{}); got != 48 {
		t.Errorf("entry is %d bytes, want 48", got)
	}
	if got := unsafe.Sizeof(slot{}); got != 8 {
		t.Errorf("slot is %d bytes, want 8", got)
	}
	// An object of pointers over 512 bytes takes an 8-byte header.
	if got := unsafe.Sizeof([entryBlock]entry{}) + 8; got > 16<<10 || got+48 <= 16<<10 {
		t.Errorf("an entry block with its header is %d bytes, want the most entries within 16 KiB", got)
	}
}

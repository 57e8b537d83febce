//go:build amd64 || arm64 || riscv64 || ppc64le || s390x || loong64 || mips64 || mips64le || ppc64

package session

import (
	"reflect"
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
	// A block of pointer-free objects has no header and is not scanned.
	if hasPointers(reflect.TypeFor[entry]()) {
		t.Error("entry holds a pointer: the collector would scan every entry block")
	}
	if got := unsafe.Sizeof([entryBlock]entry{}); got > 16<<10 || got+48 <= 16<<10 {
		t.Errorf("an entry block is %d bytes, want the most entries within 16 KiB", got)
	}
}

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Array:
		return hasPointers(t.Elem())
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return false
	default:
		return true
	}
}

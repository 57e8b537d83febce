//go:build cgo

package syntax

/*
#include <stdlib.h>

// The tree-sitter library's, linked in by its Go bindings.
void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));

static void use_libc_allocator(void) { ts_set_allocator(malloc, calloc, realloc, free); }
*/
import "C"

// The Go bindings route each of tree-sitter's allocations through a Go
// function (a call from C into Go and back, per node): most of a parse's
// time. The C library's own allocator is what they call in the end, so
// tree-sitter calls it directly. The bindings' init, which sets theirs,
// runs before this package's.
func init() { C.use_libc_allocator() }

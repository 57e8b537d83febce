package jsonrepair

import "unsafe"

// boxes hands strings out as values. A string put in an interface is a
// pointer to a copy of its header, which the compiler allocates string by
// string: in a small call, a third of the parse's allocations. boxes cuts
// the headers from slabs instead, one allocation for many strings. A value
// keeps its slab alive, as a slice keeps its array; a slab is at most
// maxBoxes headers (1 KiB).
type boxes struct{ slab []string }

const maxBoxes = 64

// eface is the layout of an interface without methods (runtime.eface).
type eface struct {
	typ, data unsafe.Pointer
}

// stringType is the type word of a string held in an interface.
var stringType = func() unsafe.Pointer {
	v := any("")
	return (*eface)(unsafe.Pointer(&v)).typ
}()

// box returns s as a value, its header in the current slab.
func (b *boxes) box(s string) any {
	if s == "" {
		return "" // the compiler's own, allocated once
	}
	if len(b.slab) == cap(b.slab) {
		b.slab = make([]string, 0, min(2*cap(b.slab)+4, maxBoxes))
	}
	b.slab = append(b.slab, s)
	var v any
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = stringType, unsafe.Pointer(&b.slab[len(b.slab)-1])
	return v
}

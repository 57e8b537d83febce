package service

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/toolguard/toolguard/service/protoapi"
)

// A large request is mostly one string: a write's content in
// arguments_text, 16 MB of it. Decoded as any other, it is in memory three
// times (the received frames, their copy in one piece, the string copied
// out of that), and the piece goes back to a pool that keeps it. So a
// request of aliasMinBytes and more is copied out of its frames once, into
// memory of its own that nothing writes again, and its large strings stay
// there: the decoded message's strings are views of it.

// aliasMinBytes is the size from which a request, and a string in it, is
// decoded in place.
const aliasMinBytes = 64 << 10

// maxAliasDepth bounds the messages looked into for large strings: the
// strings that are large sit a level or two down (a call's arguments).
const maxAliasDepth = 4

// largeString is a string field left out of the encoding given to
// protobuf, set afterwards to a view of its bytes.
type largeString struct {
	path  []protoreflect.FieldDescriptor // the singular messages down to it
	field protoreflect.FieldDescriptor
	value []byte
}

// decodeLarge decodes b, which the decoded message may keep, into pm:
// as decodeBytes does, with pm's large strings views of b.
func (d requestDecoder) decodeLarge(b []byte, pm proto.Message) *protoapi.FieldError {
	return d.decodeInPlace(b, pm, aliasMinBytes)
}

// decodeInPlace is decodeLarge for strings of least bytes and more.
func (d requestDecoder) decodeInPlace(b []byte, pm proto.Message, least int) *protoapi.FieldError {
	var large []largeString
	reduced, ok := stripLarge(b, pm.ProtoReflect().Descriptor(), least, nil, &large)
	if !ok || len(large) == 0 || d.unmarshal.Unmarshal(reduced, pm) != nil {
		proto.Reset(pm)
		return d.decodeBytes(b, pm)
	}
	for _, s := range large {
		if !utf8.Valid(s.value) {
			// decodeBytes refuses it, saying where.
			proto.Reset(pm)
			return d.decodeBytes(b, pm)
		}
		m := pm.ProtoReflect()
		for _, fd := range s.path {
			m = m.Mutable(fd).Message()
		}
		m.Set(s.field, protoreflect.ValueOfString(unsafe.String(unsafe.SliceData(s.value), len(s.value))))
	}
	return nil
}

// stripLarge returns b, a message of type md, without its strings of least
// bytes and more, adding them to large; b itself when there are none. It
// takes only strings that protobuf would decode to exactly that value: a
// singular field met once, in singular messages met once, with no other
// field of its oneof beside it. false: b is not a valid encoding.
func stripLarge(b []byte, md protoreflect.MessageDescriptor, least int, path []protoreflect.FieldDescriptor, large *[]largeString) ([]byte, bool) {
	type field struct {
		num        protowire.Number
		start, end int // the field, tag included
		value      []byte
	}
	var fields []field
	count := map[protowire.Number]int{}
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return nil, false
		}
		f := field{num: num, start: i}
		if typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b[i+n:])
			if m < 0 {
				return nil, false
			}
			f.value, n = v, n+m
		} else if m := protowire.ConsumeFieldValue(num, typ, b[i+n:]); m < 0 {
			return nil, false
		} else {
			n += m
		}
		i += n
		f.end = i
		count[num]++
		fields = append(fields, f)
	}
	alone := func(fd protoreflect.FieldDescriptor) bool {
		if count[fd.Number()] != 1 {
			return false
		}
		if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() {
			for j := range o.Fields().Len() {
				if other := o.Fields().Get(j); other != fd && count[other.Number()] > 0 {
					return false
				}
			}
		}
		return true
	}
	var out []byte // nil until a string is left out
	for _, f := range fields {
		fd := md.Fields().ByNumber(f.num)
		keep := b[f.start:f.end]
		if fd != nil && len(f.value) >= least && fd.Cardinality() != protoreflect.Repeated && alone(fd) {
			switch {
			case fd.Kind() == protoreflect.StringKind:
				*large = append(*large, largeString{path: path, field: fd, value: f.value})
				keep = nil
			case fd.Kind() == protoreflect.MessageKind && len(path) < maxAliasDepth:
				inner, ok := stripLarge(f.value, fd.Message(), least, append(path[:len(path):len(path)], fd), large)
				if !ok {
					return nil, false
				}
				if len(inner) != len(f.value) {
					keep = protowire.AppendBytes(protowire.AppendTag(nil, f.num, protowire.BytesType), inner)
				}
			}
		}
		if out == nil && len(keep) != f.end-f.start {
			out = append([]byte(nil), b[:f.start]...) // the fields before, as they were
		}
		if out != nil {
			out = append(out, keep...)
		}
	}
	if out == nil {
		return b, true
	}
	return out, true
}

// A large request leaves garbage of twice its size or more (its copy, the
// content decoded from it), and the collector lets the heap grow to twice
// what was live at its last collection, which a large request's data was:
// call after call, the heap would stay at twice the largest request's
// working set. So once a request of collectMinBytes and more is answered,
// when it is large beside the live heap, its garbage is collected then, in
// the background: the next large request starts from the live heap.

// collectMinBytes is the least request size collected after.
const collectMinBytes = 4 << 20

// collecting says a collection collectAfter started is running: requests
// answered meanwhile leave theirs to it or the next.
var collecting atomic.Bool

// collectAfter starts a collection after a request of size bytes was
// answered, if shouldCollect says so.
func collectAfter(size int) {
	if size < collectMinBytes {
		return
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() != metrics.KindUint64 || !shouldCollect(size, live[0].Value.Uint64()) ||
		!collecting.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer collecting.Store(false)
		runtime.GC()
	}()
}

// shouldCollect says whether a request of size bytes is worth a collection
// once answered, the heap's live bytes being live: when it is at least
// collectMinBytes and a quarter of them. Past that the heap's own growth
// dwarfs it, and a collection, which marks the live heap, costs more.
func shouldCollect(size int, live uint64) bool {
	return size >= collectMinBytes && uint64(size) >= live/4
}

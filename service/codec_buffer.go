package service

import "google.golang.org/grpc/mem"

// wireBuffer is the memory an answer the codec writes itself is written
// into: from gRPC's pool when the answer is large enough for gRPC to pool
// (the buffer then goes back once the answer is sent), a plain slice
// otherwise.
type wireBuffer struct {
	pooled *[]byte
}

// newWireBuffer returns room for an answer of size bytes, empty.
func newWireBuffer(size int) (wireBuffer, []byte) {
	if mem.IsBelowBufferPoolingThreshold(size) {
		return wireBuffer{}, make([]byte, 0, size)
	}
	buf := mem.DefaultBufferPool().Get(size)
	return wireBuffer{pooled: buf}, (*buf)[:0]
}

// done hands b, the answer written into the buffer, to gRPC.
func (w wireBuffer) done(b []byte) mem.BufferSlice {
	if w.pooled == nil {
		return mem.BufferSlice{mem.SliceBuffer(b)}
	}
	*w.pooled = b
	return mem.BufferSlice{mem.NewBuffer(w.pooled, mem.DefaultBufferPool())}
}

// drop gives the buffer back unused: the answer takes the usual path.
func (w wireBuffer) drop() {
	if w.pooled != nil {
		mem.DefaultBufferPool().Put(w.pooled)
	}
}

// Package budget is a server-wide pool of bytes that the holders of a
// front end (open calls, request bodies, held events) draw on and give
// back, so that together they stay within one bound.
package budget

import "sync/atomic"

// Bytes is a pool of bytes; safe for concurrent use. Its Grow and Release
// are the stream parsers' Budget.
type Bytes struct {
	limit int64
	used  atomic.Int64
}

// New returns a pool of limit bytes.
func New(limit int64) *Bytes { return &Bytes{limit: limit} }

// Grow draws n more bytes, or draws nothing and reports false.
func (b *Bytes) Grow(n int) bool { return b.Grow64(int64(n)) }

// Grow64 is Grow for a count of int64.
func (b *Bytes) Grow64(n int64) bool {
	for {
		used := b.used.Load()
		if used+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// Release gives n bytes back.
func (b *Bytes) Release(n int) { b.used.Add(-int64(n)) }

// Release64 is Release for a count of int64.
func (b *Bytes) Release64(n int64) { b.used.Add(-n) }

// Used is the bytes drawn now.
func (b *Bytes) Used() int64 { return b.used.Load() }

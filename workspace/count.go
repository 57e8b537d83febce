package workspace

import "sync/atomic"

// IOCounts is the file work a workspace has done since Open. A call's path
// is held to its budget with it: an edit resolves, walks, reads and hashes
// each file once.
type IOCounts struct {
	Resolves int64 // paths cleaned and matched against the deny patterns
	Walks    int64 // paths walked, their directories opened, down to the file
	Reads    int64 // files opened, checked again with fstat and read
	Hashes   int64 // file contents hashed (SHA-256 of a file as it is)
}

// ioCounters are IOCounts as they are kept: atomics, a handful per call.
type ioCounters struct {
	resolves, walks, reads, hashes atomic.Int64
}

// IOCounts returns the file work done so far.
func (w *Workspace) IOCounts() IOCounts {
	c := &w.counts
	return IOCounts{Resolves: c.resolves.Load(), Walks: c.walks.Load(), Reads: c.reads.Load(), Hashes: c.hashes.Load()}
}

// Sub returns the work done between an earlier count and c.
func (c IOCounts) Sub(earlier IOCounts) IOCounts {
	return IOCounts{Resolves: c.Resolves - earlier.Resolves, Walks: c.Walks - earlier.Walks,
		Reads: c.Reads - earlier.Reads, Hashes: c.Hashes - earlier.Hashes}
}

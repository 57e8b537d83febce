package proxy

import "io"

// readAhead reads the upstream's body on a goroutine of its own while the
// events of the read before are handled, so that reading the socket
// overlaps that work. It starts once a read comes back full (the upstream
// is ahead of the proxy): a stream arriving event by event is read where
// it is handled, without a hand-over per event. It holds at most
// aheadBuffers reads of sseReadSize.
type readAhead struct {
	full chan readChunk
	free chan []byte
	done chan struct{}
	stop bool // done is closed
}

type readChunk struct {
	b   []byte
	err error
}

// aheadBuffers: one read handled, one arriving, one ready.
const aheadBuffers = 3

// startReadAhead reads src from here on, in buffers of its own and the
// reader's, recycled once handled.
func startReadAhead(src io.Reader) *readAhead {
	a := &readAhead{
		full: make(chan readChunk, aheadBuffers),
		free: make(chan []byte, aheadBuffers),
		done: make(chan struct{}),
	}
	for range aheadBuffers - 1 {
		a.free <- make([]byte, sseReadSize)
	}
	go a.run(src)
	return a
}

func (a *readAhead) run(src io.Reader) {
	for {
		var buf []byte
		select {
		case buf = <-a.free:
		case <-a.done:
			return
		}
		n, err := src.Read(buf)
		select {
		case a.full <- readChunk{buf[:n], err}:
		case <-a.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// next returns the next read: its bytes (valid until recycled) and error.
func (a *readAhead) next() ([]byte, error) {
	c := <-a.full
	return c.b, c.err
}

// recycle gives a read's buffer back once its bytes are handled.
func (a *readAhead) recycle(b []byte) {
	if cap(b) < sseReadSize {
		return
	}
	select {
	case a.free <- b[:sseReadSize]:
	default:
	}
}

// close ends the reading: the goroutine stops at its next step (a read in
// flight ends when the body is closed).
func (a *readAhead) close() {
	if !a.stop {
		a.stop = true
		close(a.done)
	}
}

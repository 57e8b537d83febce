// Package safebuf is a bytes.Buffer that several goroutines may write and
// read, for tests that collect a server's or a child process's output.
package safebuf

import (
	"bytes"
	"sync"
)

// Buffer is safe for concurrent use. The zero value is empty.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

package service

import (
	"io"
	"net"
	"syscall"

	"google.golang.org/grpc/mem"
)

// withReadOnReady gives a TCP connection's batchConn ReadOnReady.
func withReadOnReady(b *batchConn) net.Conn {
	tcp, ok := b.Conn.(*net.TCPConn)
	if !ok {
		return b
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		return b
	}
	return newBatchTCPConn(b, raw)
}

// batchTCPConn is a batchConn over TCP. gRPC reads through ReadOnReady
// when a connection has it (its readyreader.Reader): it takes a buffer
// from gRPC's pool only once the socket has bytes to read, where a plain
// connection pins a 32 KiB buffer per connection, idle or not.
type batchTCPConn struct {
	*batchConn
	raw syscall.RawConn
	// The read in progress, kept here so that reading allocates nothing.
	bufSize int
	pool    mem.BufferPool
	buf     *[]byte
	n       int
	readErr error
	doRead  func(fd uintptr) bool
}

func newBatchTCPConn(b *batchConn, raw syscall.RawConn) *batchTCPConn {
	c := &batchTCPConn{batchConn: b, raw: raw}
	c.doRead = func(fd uintptr) bool {
		c.buf = c.pool.Get(c.bufSize)
		c.n, c.readErr = syscall.Read(int(fd), *c.buf)
		if c.readErr != nil {
			c.pool.Put(c.buf)
			c.buf = nil
		}
		return c.readErr != syscall.EAGAIN && c.readErr != syscall.EWOULDBLOCK
	}
	return c
}

// ReadOnReady waits for the socket to be readable, then reads up to
// bufSize bytes into a buffer from pool, which the caller puts back.
func (c *batchTCPConn) ReadOnReady(bufSize int, pool mem.BufferPool) (*[]byte, int, error) {
	c.bufSize, c.pool = bufSize, pool
	err := c.raw.Read(c.doRead)
	buf, n, readErr := c.buf, c.n, c.readErr
	c.buf, c.pool, c.readErr = nil, nil, nil
	switch {
	case err != nil:
		if buf != nil {
			pool.Put(buf)
		}
		return nil, 0, err
	case readErr != nil:
		return nil, 0, readErr
	case n == 0:
		pool.Put(buf)
		return nil, 0, io.EOF
	}
	return buf, n, nil
}

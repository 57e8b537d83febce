package service

import (
	"io"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"google.golang.org/grpc/mem"

	"github.com/toolguard/toolguard/internal/lifecycle"
)

// underLimit returns the TCP connection under raw, an accepted connection
// bare or under the connection limit's wrapper (nil when it is neither).
// grpc-go sets TCP_USER_TIMEOUT only on a bare one, so that data the peer
// never acknowledges ends the connection as soon as an unanswered ping
// would; under the wrapper it is set here.
func underLimit(raw net.Conn) *net.TCPConn {
	tcp, ok := lifecycle.Unwrap(raw).(*net.TCPConn)
	if !ok {
		return nil
	}
	if net.Conn(tcp) != raw {
		if sc, err := tcp.SyscallConn(); err == nil {
			_ = sc.Control(func(fd uintptr) {
				_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(keepaliveTimeout/time.Millisecond))
			})
		}
	}
	return tcp
}

// withReadOnReady gives b ReadOnReady over tcp, the socket it reads.
func withReadOnReady(b *batchConn, tcp *net.TCPConn) net.Conn {
	if tcp == nil {
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

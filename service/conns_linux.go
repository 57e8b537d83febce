package service

import (
	"io"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"google.golang.org/grpc/mem"
)

// readyListener gives back what wrapping a connection (the connection
// limit, internal/lifecycle.ConnLimit) takes from grpc-go: on a bare
// *net.TCPConn grpc-go reads only once the socket is readable, into a
// buffer from its pool, so an idle connection pins no read buffer; on any
// other net.Conn it keeps a 32 KiB buffer per connection for ever (an idle
// connection measured 46 KiB instead of 14). grpc-go looks for a
// ReadOnReady method on the connection first; readyConn provides it, over
// the TCP connection under the wrapper, as grpc-go does for a bare one.
// For the same reason it sets TCP_USER_TIMEOUT to the keepalive timeout,
// as grpc-go does on a bare one, so that data the peer never acknowledges
// ends the connection as soon as an unanswered ping would.
type readyListener struct{ net.Listener }

func withReadyReads(lis net.Listener) net.Listener { return readyListener{lis} }

func (l readyListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	inner, ok := c.(interface{ NetConn() net.Conn })
	if !ok {
		return c, nil
	}
	tcp, ok := inner.NetConn().(*net.TCPConn)
	if !ok {
		return c, nil
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		return c, nil
	}
	_ = raw.Control(func(fd uintptr) {
		_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(keepaliveTimeout/time.Millisecond))
	})
	return &readyConn{Conn: c, raw: raw}, nil
}

type readyConn struct {
	net.Conn
	raw syscall.RawConn
}

// ReadOnReady waits until the socket is readable, then reads up to bufSize
// bytes into a buffer from pool (grpc-go's readyreader.Reader). It is
// called by one goroutine at a time, the transport's reader.
func (c *readyConn) ReadOnReady(bufSize int, pool mem.BufferPool) (*[]byte, int, error) {
	var (
		buf     *[]byte
		n       int
		readErr error
	)
	err := c.raw.Read(func(fd uintptr) bool {
		buf = pool.Get(bufSize)
		// syscall, not x/sys/unix, as the standard library's net.Conn does.
		n, readErr = syscall.Read(int(fd), *buf)
		if readErr != nil {
			pool.Put(buf)
			buf = nil
		}
		return readErr != syscall.EAGAIN && readErr != syscall.EWOULDBLOCK
	})
	switch {
	case err != nil:
		if buf != nil {
			pool.Put(buf)
		}
		return nil, 0, err
	case readErr != nil:
		return nil, 0, readErr
	case n == 0:
		// A read of nothing is the peer's orderly close.
		pool.Put(buf)
		return nil, 0, io.EOF
	}
	return buf, n, nil
}

package lifecycle

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
)

// ConnLimit bounds the connections a front end's listener has open at
// once, the same way for every front end (gRPC, the proxy, MCP over HTTP,
// the metrics endpoints). Past the limit a new connection is accepted and
// closed at once, with a TCP reset, rather than left waiting in the
// kernel's backlog (golang.org/x/net/netutil.LimitListener): a client left
// waiting has a connection that seems open and never answers, so its calls
// hang until their deadline (a gRPC client's for up to its 20 s connect
// timeout, an HTTP SDK's for minutes) and the server cannot count them;
// one refused at once sees UNAVAILABLE or a connection error straight
// away, which gRPC clients and the model SDKs retry after a backoff, by
// then perhaps on another replica (docs/limits.md). Safe for concurrent
// use.
type ConnLimit struct {
	max     int64
	open    atomic.Int64
	refused atomic.Uint64
}

// NewConnLimit bounds connections to n (at least 1).
func NewConnLimit(n int) *ConnLimit {
	return &ConnLimit{max: int64(max(n, 1))}
}

// Max is the limit.
func (l *ConnLimit) Max() int { return int(l.max) }

// Open is the number of connections open now.
func (l *ConnLimit) Open() int { return int(l.open.Load()) }

// Refused is the number of connections closed at once since the start.
func (l *ConnLimit) Refused() uint64 { return l.refused.Load() }

// Listener returns lis with the limit applied to the connections it
// accepts; a connection counts until it is closed.
func (l *ConnLimit) Listener(lis net.Listener) net.Listener {
	return &limitedListener{Listener: lis, limit: l}
}

type limitedListener struct {
	net.Listener
	limit *ConnLimit
}

func (ll *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := ll.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l := ll.limit
		if l.open.Add(1) <= l.max {
			return &limitedConn{Conn: c, release: sync.OnceFunc(func() { l.open.Add(-1) })}, nil
		}
		l.open.Add(-1)
		l.refused.Add(1)
		refuse(c)
	}
}

// refuse closes c with a reset: the client learns at once, and the server
// keeps no TIME_WAIT socket for a connection it never served.
func refuse(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

// limitedConn gives its slot back on its first Close. It hides the
// connection's type, which grpc-go looks at (service/writebatch_linux.go
// gives back what that takes); Unwrap reaches under it.
type limitedConn struct {
	net.Conn
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// Unwrap returns the connection under the limit's wrapper, or c when c is
// not one: a front end that reads the socket itself looks under it, and
// only under it (a TLS connection's NetConn holds ciphertext).
func Unwrap(c net.Conn) net.Conn {
	if lc, ok := c.(*limitedConn); ok {
		return lc.Conn
	}
	return c
}

// CloseWrite half-closes, as net/http does before closing a connection
// whose client may still be sending, so the client reads the answer
// rather than a reset.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

package service

import (
	"context"
	"net"
	"runtime"
	"sync"
	"time"

	"google.golang.org/grpc/credentials"
)

// Answers are gathered into fewer writes. grpc-go's writer flushes its
// buffer as soon as it runs out of frames to write; it first yields once,
// to let more answers in, only while the buffer holds under 1,000 bytes.
// So every answer of a kilobyte or more went out in a write(2) of its own,
// often two (the data, then the trailers), where a health check's shared
// one with eight others. A write on loopback or to a local proxy also runs
// the receiver's side of TCP: about 10 µs of CPU each, a third of what the
// server spends on a 1 KB call. A connection's writes are therefore handed
// to a goroutine of their own, which yields once before writing whatever
// has gathered by then, as grpc-go does below 1,000 bytes: a write's latency
// grows by one turn of the scheduler, and under load each write(2) carries
// several answers.

// writeBatchLimit bounds what a connection holds unwritten: a Write that
// would pass it waits for the bytes before it to be written. grpc-go writes
// at most its 32 KiB buffer at a time.
const writeBatchLimit = 64 << 10

// writeBatchCloseGrace bounds how long the bytes written before Close may
// take to leave, when the peer does not read them.
const writeBatchCloseGrace = time.Second

// batchedWrites wraps a server's transport credentials (nil: none) so that
// each connection, once through the handshake, gathers its writes. The
// handshake itself, and the TCP options gRPC sets on the accepted socket,
// see the socket as it is.
func batchedWrites(inner credentials.TransportCredentials) credentials.TransportCredentials {
	return writeBatchCreds{inner: inner}
}

type writeBatchCreds struct {
	inner credentials.TransportCredentials // nil: no handshake
}

func (c writeBatchCreds) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	tcp := underLimit(raw)
	if c.inner == nil {
		return newBatchConn(raw, tcp), nil, nil
	}
	conn, info, err := c.inner.ServerHandshake(raw)
	if err != nil {
		return nil, nil, err
	}
	// Under TLS the socket holds ciphertext: it is read through conn.
	return newBatchConn(conn, nil), info, nil
}

func (c writeBatchCreds) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	if c.inner == nil {
		return raw, nil, nil
	}
	return c.inner.ClientHandshake(ctx, authority, raw)
}

func (c writeBatchCreds) Info() credentials.ProtocolInfo {
	if c.inner == nil {
		return credentials.ProtocolInfo{SecurityProtocol: "insecure"}
	}
	return c.inner.Info()
}

func (c writeBatchCreds) Clone() credentials.TransportCredentials {
	if c.inner == nil {
		return c
	}
	return writeBatchCreds{inner: c.inner.Clone()}
}

//nolint:staticcheck // part of the interface; gRPC no longer calls it
func (c writeBatchCreds) OverrideServerName(name string) error {
	if c.inner == nil {
		return nil
	}
	return c.inner.OverrideServerName(name) //nolint:staticcheck // as above
}

// writeBuffers hold the bytes of connections between their writes: a
// buffer is taken when a connection has something to write and given back
// when it has written everything.
var writeBuffers = sync.Pool{New: func() any { b := make([]byte, 0, writeBatchLimit); return &b }}

func takeWriteBuffer() []byte { return (*writeBuffers.Get().(*[]byte))[:0] }

// giveWriteBuffer puts b back, unless it is nil or grew past the limit (a
// single larger Write).
func giveWriteBuffer(b []byte) {
	if b == nil || cap(b) != writeBatchLimit {
		return
	}
	writeBuffers.Put(&b)
}

// batchConn is a connection whose writes are gathered and written by a
// goroutine of their own (writeLoop), started when there is something to
// write and ended when there is not.
type batchConn struct {
	net.Conn
	mu      sync.Mutex
	changed sync.Cond // a write ended, or the loop did
	pending []byte    // written to the connection, not yet to the socket
	spare   []byte    // the buffer being written, reused for the next
	writing bool      // a writeLoop runs
	closed  bool
	err     error // the first write error: every later Write returns it
}

// newBatchConn wraps conn. When tcp, the socket conn reads, is known, gRPC
// keeps its reads without a buffer of their own while idle
// (batchTCPConn.ReadOnReady).
func newBatchConn(conn net.Conn, tcp *net.TCPConn) net.Conn {
	b := &batchConn{Conn: conn}
	b.changed.L = &b.mu
	return withReadOnReady(b, tcp)
}

// Write takes b and returns; the bytes reach the socket in order, and a
// failure to write them is returned by the next Write.
func (c *batchConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.err == nil && !c.closed && len(c.pending) > 0 && len(c.pending)+len(b) > writeBatchLimit {
		c.changed.Wait()
	}
	switch {
	case c.err != nil:
		return 0, c.err
	case c.closed:
		return 0, net.ErrClosed
	}
	if c.pending == nil {
		c.pending = takeWriteBuffer()
	}
	c.pending = append(c.pending, b...)
	if !c.writing {
		c.writing = true
		go c.writeLoop()
	}
	return len(b), nil
}

// writeLoop writes what has gathered until nothing is left; it closes the
// connection if Close came while it wrote.
func (c *batchConn) writeLoop() {
	// The answers being finished now join this write.
	runtime.Gosched()
	c.mu.Lock()
	for len(c.pending) > 0 && c.err == nil {
		buf := c.pending
		c.pending, c.spare = c.spare, nil
		c.mu.Unlock()
		_, err := c.Conn.Write(buf)
		c.mu.Lock()
		c.spare = buf[:0]
		if err != nil {
			c.err = err
		}
		c.changed.Broadcast()
	}
	// An idle connection holds no buffer.
	giveWriteBuffer(c.pending)
	giveWriteBuffer(c.spare)
	c.pending, c.spare, c.writing = nil, nil, false
	c.changed.Broadcast()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		_ = c.Conn.Close()
	}
}

// Close closes the connection once the bytes written before it are on the
// socket, or writeBatchCloseGrace has passed; it does not wait for them.
func (c *batchConn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return net.ErrClosed
	}
	c.closed = true
	c.changed.Broadcast()
	if c.writing {
		// writeLoop closes the connection when done.
		_ = c.SetWriteDeadline(time.Now().Add(writeBatchCloseGrace))
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	return c.Conn.Close()
}

package service

import (
	"io"
	"net"
	"testing"

	"golang.org/x/sys/unix"
	"google.golang.org/grpc/mem"

	"github.com/toolguard/toolguard/internal/lifecycle"
)

// readOnReady is grpc-go's readyreader.Reader, which it looks for on a
// connection before reading it through a buffer pinned for the
// connection's life.
type readOnReady interface {
	ReadOnReady(bufSize int, pool mem.BufferPool) (*[]byte, int, error)
}

// TestReadyReads reads a limited connection, once through the server's
// handshake, the way grpc-go reads a bare TCP one: the bytes sent, whatever
// the buffer size, then the end; and finds the user timeout grpc-go would
// have set.
func TestReadyReads(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lis := lifecycle.NewConnLimit(1).Listener(raw)
	defer lis.Close()
	client, err := net.Dial("tcp", raw.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	accepted, err := lis.Accept()
	if err != nil {
		t.Fatal(err)
	}
	conn, _, err := batchedWrites(nil).ServerHandshake(accepted)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rr, ok := conn.(readOnReady)
	if !ok {
		t.Fatalf("%T has no ReadOnReady: grpc-go would pin a read buffer for each connection", conn)
	}
	var userTimeout int
	if err := conn.(*batchTCPConn).raw.Control(func(fd uintptr) {
		userTimeout, _ = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT)
	}); err != nil || userTimeout != int(keepaliveTimeout.Milliseconds()) {
		t.Errorf("TCP_USER_TIMEOUT %d ms (%v), want the keepalive timeout, %d ms, as grpc-go sets on a bare connection", userTimeout, err, keepaliveTimeout.Milliseconds())
	}
	pool := mem.DefaultBufferPool()
	if _, err := client.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for len(got) < 5 {
		buf, n, err := rr.ReadOnReady(2, pool)
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		got = append(got, (*buf)[:n]...)
		pool.Put(buf)
	}
	if string(got) != "hello" {
		t.Fatalf("read %q, want hello", got)
	}
	_ = client.Close()
	if buf, n, err := rr.ReadOnReady(2, pool); err != io.EOF || buf != nil || n != 0 {
		t.Fatalf("after the peer closed: %v, %d, %v; want io.EOF and no buffer", buf, n, err)
	}
}

package service

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/mem"
)

// gRPC reads through ReadOnReady when the connection has it.
var _ interface {
	ReadOnReady(int, mem.BufferPool) (*[]byte, int, error)
} = (*batchTCPConn)(nil)

// loopbackPair returns both ends of a TCP connection on 127.0.0.1.
func loopbackPair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := lis.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	client, err = net.Dial("tcp", lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.FailNow()
	}
	t.Cleanup(func() { _ = client.Close() })
	return server, client
}

// waitWritten waits for c's writes in progress to end.
func waitWritten(c *batchConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.writing {
		c.changed.Wait()
	}
}

// Every byte written reaches the peer, in order, then Close's EOF: writes of
// every size, small ones gathered, large ones past the limit.
func TestBatchConnWritesInOrder(t *testing.T) {
	server, client := loopbackPair(t)
	conn := newBatchConn(server, server.(*net.TCPConn))
	if _, ok := conn.(*batchTCPConn); !ok {
		t.Fatalf("a TCP connection is wrapped as %T, want *batchTCPConn", conn)
	}
	var want bytes.Buffer
	sizes := []int{1, 9, 100, 1000, 1500, 16 << 10, 32 << 10, writeBatchLimit, writeBatchLimit + 1, 200 << 10}
	for i := range 400 {
		chunk := bytes.Repeat([]byte{byte(i)}, sizes[i%len(sizes)])
		want.Write(chunk)
	}
	got := make(chan []byte, 1)
	go func() {
		b, err := io.ReadAll(client)
		if err != nil {
			t.Error(err)
		}
		got <- b
	}()
	rest := want.Bytes()
	for i := range 400 {
		n := sizes[i%len(sizes)]
		if w, err := conn.Write(rest[:n]); err != nil || w != n {
			t.Fatalf("write %d: %d, %v", i, w, err)
		}
		rest = rest[n:]
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if b := <-got; !bytes.Equal(b, want.Bytes()) {
		t.Fatalf("the peer read %d bytes, not the %d written in order", len(b), want.Len())
	}
	if _, err := conn.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a write after Close: %v, want net.ErrClosed", err)
	}
}

// fakeConn is a connection whose writes the test holds and releases.
type fakeConn struct {
	net.Conn
	entered     chan []byte   // each write's bytes, as it starts
	release     chan error    // what the write returns
	deadlineSet chan struct{} // closed by SetWriteDeadline
	deadline    chan struct{} // closed by the test: the held write fails
	once        sync.Once
	closed      chan struct{}
}

func newFakeConn() *fakeConn {
	return &fakeConn{
		entered: make(chan []byte, 100), release: make(chan error),
		deadlineSet: make(chan struct{}), deadline: make(chan struct{}), closed: make(chan struct{}),
	}
}

func (f *fakeConn) Write(b []byte) (int, error) {
	f.entered <- append([]byte(nil), b...)
	select {
	case err := <-f.release:
		if err != nil {
			return 0, err
		}
		return len(b), nil
	case <-f.deadline:
		return 0, os.ErrDeadlineExceeded
	}
}

func (f *fakeConn) SetWriteDeadline(time.Time) error {
	f.once.Do(func() { close(f.deadlineSet) })
	return nil
}

func (f *fakeConn) Close() error {
	close(f.closed)
	return nil
}

// A connection holds at most writeBatchLimit bytes unwritten: a write that
// would pass it waits, and the socket gets them in writes of that size at
// most.
func TestBatchConnBoundsWhatItHolds(t *testing.T) {
	fake := newFakeConn()
	c := newBatchConn(fake, nil).(*batchConn)
	const chunk, chunks = 16 << 10, 64
	written := make(chan int)
	go func() {
		total := 0
		for total < chunk*chunks {
			b := <-fake.entered
			if len(b) > writeBatchLimit {
				t.Errorf("a write of %d bytes, over the limit of %d", len(b), writeBatchLimit)
			}
			total += len(b)
			fake.release <- nil
		}
		written <- total
	}()
	for range chunks {
		if _, err := c.Write(make([]byte, chunk)); err != nil {
			t.Fatal(err)
		}
		c.mu.Lock()
		held := len(c.pending)
		c.mu.Unlock()
		if held > writeBatchLimit {
			t.Fatalf("%d bytes held, over the limit of %d", held, writeBatchLimit)
		}
	}
	if total := <-written; total != chunk*chunks {
		t.Fatalf("%d bytes written, want %d", total, chunk*chunks)
	}
	waitWritten(c)
}

// A failed write is the next Write's error, and every one's after it.
func TestBatchConnWriteErrorReturned(t *testing.T) {
	fake := newFakeConn()
	c := newBatchConn(fake, nil).(*batchConn)
	broken := errors.New("connection reset")
	if _, err := c.Write([]byte("answer")); err != nil {
		t.Fatal(err)
	}
	<-fake.entered
	fake.release <- broken
	waitWritten(c)
	for range 2 {
		if _, err := c.Write([]byte("next")); !errors.Is(err, broken) {
			t.Fatalf("write after a failed one: %v, want %v", err, broken)
		}
	}
}

// Close does not wait for a peer that does not read: it returns at once,
// the held write is cut by a deadline, and the connection is closed then.
func TestBatchConnCloseDoesNotWait(t *testing.T) {
	fake := newFakeConn()
	c := newBatchConn(fake, nil).(*batchConn)
	if _, err := c.Write([]byte("goaway")); err != nil {
		t.Fatal(err)
	}
	<-fake.entered // the write is held, as on a full socket
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	<-fake.deadlineSet
	select {
	case <-fake.closed:
		t.Fatal("closed before the write in progress ended")
	default:
	}
	close(fake.deadline) // the deadline passes
	<-fake.closed
	if _, err := c.Write([]byte("x")); err == nil {
		t.Error("a write after Close succeeded")
	}
	if err := c.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a second Close: %v, want net.ErrClosed", err)
	}
}

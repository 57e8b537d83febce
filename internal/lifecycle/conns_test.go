package lifecycle

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
)

// TestConnLimit accepts up to the limit over real loopback connections:
// one more is closed at once (its client reads an end, not a hang), those
// within keep working, and closing one lets the next in.
func TestConnLimit(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	limit := NewConnLimit(2)
	lis := limit.Listener(raw)
	defer lis.Close()
	accepted := make(chan net.Conn)
	go func() {
		defer close(accepted)
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	dial := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", raw.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	// echo checks that the server end of a connection still carries bytes.
	echo := func(client, server net.Conn) {
		t.Helper()
		if _, err := client.Write([]byte("x")); err != nil {
			t.Fatalf("write: %v", err)
		}
		b := make([]byte, 1)
		if _, err := io.ReadFull(server, b); err != nil || b[0] != 'x' {
			t.Fatalf("read %q, %v; want x", b, err)
		}
	}

	c1, c2 := dial(), dial()
	s1, s2 := <-accepted, <-accepted
	if limit.Open() != 2 || limit.Refused() != 0 {
		t.Fatalf("open %d, refused %d; want 2 and 0", limit.Open(), limit.Refused())
	}

	// The third is accepted by the kernel, then closed by the listener: its
	// client learns it as it connects, or at its first read.
	if c3, err := net.Dial("tcp", raw.Addr().String()); err != nil {
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("a connection past the limit failed with %v, want a reset", err)
		}
	} else {
		defer c3.Close()
		if _, err := c3.Read(make([]byte, 1)); err == nil {
			t.Fatal("a connection past the limit was kept open")
		} else if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("a connection past the limit ended with %v, want a reset or EOF", err)
		}
	}
	if limit.Open() != 2 || limit.Refused() != 1 {
		t.Fatalf("open %d, refused %d; want 2 and 1", limit.Open(), limit.Refused())
	}
	echo(c1, s1)
	echo(c2, s2)

	// Closing one (twice: the second changes nothing) lets the next in.
	_ = s1.Close()
	_ = s1.Close()
	if limit.Open() != 1 {
		t.Fatalf("open %d after a close, want 1", limit.Open())
	}
	c4 := dial()
	s4 := <-accepted
	echo(c4, s4)
	if limit.Open() != 2 || limit.Refused() != 1 {
		t.Fatalf("open %d, refused %d; want 2 and 1", limit.Open(), limit.Refused())
	}
	_ = s2.Close()
	_ = s4.Close()
	if limit.Open() != 0 {
		t.Fatalf("open %d after every close, want 0", limit.Open())
	}
}

package service

import (
	"bytes"
	"io"
	"net"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2 is a bare HTTP/2 client, to hold a request half sent.
type h2 struct {
	t  *testing.T
	fr *http2.Framer
}

func dialH2(t *testing.T, addr string) *h2 {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if _, err := io.WriteString(conn, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	c := &h2{t: t, fr: http2.NewFramer(conn, conn)}
	if err := c.fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	return c
}

// sync returns once the server has read every frame sent before it: its
// answer to a ping comes after them. (The server takes more than two
// pings in a row, with nothing sent between, for a flood.)
func (c *h2) sync() {
	c.t.Helper()
	if err := c.fr.WritePing(false, [8]byte{7}); err != nil {
		c.t.Fatal(err)
	}
	c.until(func(f http2.Frame) bool {
		p, ok := f.(*http2.PingFrame)
		return ok && p.IsAck() && p.Data == [8]byte{7}
	})
}

// until reads the server's frames until done says so, acknowledging its
// settings.
func (c *h2) until(done func(http2.Frame) bool) {
	c.t.Helper()
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			c.t.Fatalf("reading the server's frames: %v", err)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				if err := c.fr.WriteSettingsAck(); err != nil {
					c.t.Fatal(err)
				}
			}
		case *http2.GoAwayFrame:
			c.t.Fatalf("the server went away: %v %q", f.ErrCode, f.DebugData())
		}
		if done(f) {
			return
		}
	}
}

// open starts a call of method on stream id.
func (c *h2) open(id uint32, method string) {
	c.t.Helper()
	var hdr bytes.Buffer
	enc := hpack.NewEncoder(&hdr)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":authority", "toolguard"},
		{":path", method}, {"content-type", "application/grpc"}, {"te", "trailers"}} {
		if err := enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}); err != nil {
			c.t.Fatal(err)
		}
	}
	if err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hdr.Bytes(), EndHeaders: true}); err != nil {
		c.t.Fatal(err)
	}
}

func (c *h2) data(id uint32, b []byte, end bool) {
	c.t.Helper()
	if err := c.fr.WriteData(id, end, b); err != nil {
		c.t.Fatal(err)
	}
}

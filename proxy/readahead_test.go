package proxy

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// fullReads is an upstream body that has everything at once: every read
// but the last comes back full, so the reader reads ahead.
type fullReads struct {
	data []byte
	odd  int // when > 0, every read is at most odd bytes after the first
	n    int
}

func (r *fullReads) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	if r.n++; r.odd > 0 && r.n > 1 {
		p = p[:min(len(p), r.odd)]
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func (r *fullReads) Close() error { return nil }

// TestReadAhead: a stream read ahead (the upstream outpacing the proxy)
// and handled where each read put it comes out as the same stream read in
// small pieces does, with its calls repaired the same way, whatever
// events the reads' ends cut; an event too large still passes through
// byte for byte.
func TestReadAhead(t *testing.T) {
	big := strings.Repeat(`line "q" \ {x} é`+"\n", 1<<16/18)
	for _, api := range []string{"openai", "anthropic"} {
		for _, args := range []string{
			`{"path": "a.txt", "content": ` + mustJSON(big) + `}`,
			`{'path': 'a.txt', 'content': ` + mustJSON(big) + `}`,
		} {
			var frags []string
			for rs := []rune(args); len(rs) > 0; rs = rs[min(len(rs), 13):] {
				frags = append(frags, string(rs[:min(len(rs), 13)]))
			}
			in := synthStream(api, []synthCall{{index: 0, name: "Write", frags: frags}}, "tool_calls")
			p := fuzzProxy(t, nil)
			want := fixStream(t, p, p.newRequest(context.Background(), apiOfName(api), requestBody(api, true, true), ""),
				fuzzPieces(in, []byte{200, 3, 77}))
			calls, _ := clientCalls(t, api, want)
			if calls[0] == nil || !strings.Contains(calls[0].Args, `"path":"a.txt"`) && calls[0].Args != args {
				t.Fatalf("%s: the call did not come through: %v", api, calls)
			}
			for _, odd := range []int{0, 1000, 4097, sseReadSize - 1} {
				rs := p.newRequest(context.Background(), apiOfName(api), requestBody(api, true, true), "")
				r := p.newSSEReader(rs, &fullReads{data: in, odd: odd}, true)
				got, err := io.ReadAll(r)
				ahead := r.ahead != nil
				_ = r.Close()
				if err != nil || !ahead {
					t.Fatalf("%s, reads of %d: %v, read ahead %v", api, odd, err, ahead)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s, reads of %d: %d bytes out, %d read in pieces", api, odd, len(got), len(want))
				}
			}
		}
		t.Run("oversized/"+api, func(t *testing.T) {
			p := fuzzProxy(t, func(c *Config) { c.MaxCallBytes = 4096 })
			rs := p.newRequest(context.Background(), apiOfName(api), requestBody(api, true, true), "")
			in, _ := oversizedStream(api, 1<<20)
			r := p.newSSEReader(rs, &fullReads{data: in}, true)
			defer r.Close()
			got, err := io.ReadAll(r)
			if err != nil || r.ahead == nil || !bytes.Equal(got, in) {
				t.Fatalf("%v, read ahead %v: %d bytes out of %d", err, r.ahead != nil, len(got), len(in))
			}
			if rs.actions[actionTooLarge] == 0 || len(rs.actions) != 1 {
				t.Errorf("actions %v: want the held calls too large, and nothing concluded after the event", rs.actions)
			}
		})
	}
}

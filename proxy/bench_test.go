package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
)

// BenchmarkFixer: the proxy's work on a streamed 1 MB call, without HTTP:
// events split, the call's fragments followed, held, validated, released.
func BenchmarkFixer(b *testing.B) {
	content := strings.Repeat("func f() { s := \"</content> é \\\\ {}\" } // line\n", 1<<20/48)
	args, _ := json.Marshal(map[string]string{"path": "src/big.go", "content": content})
	benchFixer(b, string(args))
}

// BenchmarkFixerRepaired: the same with the arguments a Python dict,
// repaired: every event of the call is rewritten on its way out.
func BenchmarkFixerRepaired(b *testing.B) {
	content := strings.Repeat("func f() { s := \"</content> é \\\\ {}\" } // line\n", 1<<20/48)
	quoted, _ := json.Marshal(content)
	benchFixer(b, "{'path': 'src/big.go', 'content': "+string(quoted)+"}")
}

func benchFixer(b *testing.B, args string) {
	// Cut at character boundaries: a JSON string holds whole ones.
	var frags []string
	rs := []rune(args)
	for i := 0; i < len(rs); i += 16 {
		frags = append(frags, string(rs[i:min(i+16, len(rs))]))
	}
	body := openAIStream([]synthCall{{index: 0, name: "Write", frags: frags}}, "tool_calls")
	cfg := DefaultConfig()
	cfg.Upstream = "http://127.0.0.1:1"
	p, err := New(cfg, Options{Log: zap.NewNop()})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	rsq := p.newRequest(context.Background(), apiOpenAI, requestBody("openai", true, true), "")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		r := p.newSSEReader(rsq, io.NopCloser(bytes.NewReader(body)), false)
		n, err := io.Copy(io.Discard, r)
		_ = r.Close()
		if err != nil || n < int64(len(body))*9/10 {
			b.Fatalf("%d bytes, %v", n, err)
		}
	}
}

// BenchmarkRescueText: the rescue's cost on a streamed 1 MB answer of
// prose in 16-byte content deltas (Markdown with tags and braces, no
// call), beside the same stream with the rescue off.
func BenchmarkRescueText(b *testing.B) {
	var deltas []string
	line := "Use <b>bold</b> and [links](x) in `f() { return a[i] }`, é.\n"
	text := strings.Repeat(line, 1<<20/len(line))
	for i := 0; i < len(text); i += 16 {
		deltas = append(deltas, text[i:min(i+16, len(text))])
	}
	body := openAITextStream(deltas, "stop")
	for _, rescue := range []bool{false, true} {
		name := "off"
		if rescue {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Upstream, cfg.Rescue = "http://127.0.0.1:1", rescue
			p, err := New(cfg, Options{Log: zap.NewNop()})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			rsq := p.newRequest(context.Background(), apiOpenAI, requestBody("openai", true, true), "")
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				r := p.newSSEReader(rsq, io.NopCloser(bytes.NewReader(body)), true)
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
				_ = r.Close()
			}
		})
	}
}

// BenchmarkRecord: the cost of --record on a streamed 1 MB call, beside
// the same stream unrecorded: the copy, the record's line (the stream
// escaped as a JSON string) and its write to a file.
func BenchmarkRecord(b *testing.B) {
	content := strings.Repeat("func f() { s := \"</content> é \\\\ {}\" } // line\n", 1<<20/48)
	args, _ := json.Marshal(map[string]string{"path": "src/big.go", "content": content})
	var frags []string
	rs := []rune(string(args))
	for i := 0; i < len(rs); i += 16 {
		frags = append(frags, string(rs[i:min(i+16, len(rs))]))
	}
	body := openAIStream([]synthCall{{index: 0, name: "Write", frags: frags}}, "tool_calls")
	reqBody := requestBody("openai", true, true)
	req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(reqBody))
	req.Header.Set("Authorization", "Bearer sk-bench-0123456789")
	for _, record := range []bool{false, true} {
		name := "off"
		if record {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Upstream = "http://127.0.0.1:1"
			if record {
				cfg.Record, cfg.RecordFiles = filepath.Join(b.TempDir(), "rec.jsonl"), 1
			}
			p, err := New(cfg, Options{Log: zap.NewNop()})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				rsq := p.newRequest(context.Background(), apiOpenAI, reqBody, "")
				if p.rec != nil {
					rsq.rec = p.rec.begin(req, reqBody)
				}
				r := p.newSSEReader(rsq, p.newRecordingBody(rsq, http.StatusOK, io.NopCloser(bytes.NewReader(body))), false)
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
				_ = r.Close()
			}
		})
	}
}

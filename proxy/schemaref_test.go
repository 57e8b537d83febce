//go:build unix

package proxy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDeclaredToolSchemaRefsRefused: a declared tool whose schema refers
// outside itself (a file, a FIFO) is not compiled: the proxy answers at
// once, logs the reason, and its call goes to the client as written, with
// no operating-system text and nothing of the file anywhere.
func TestDeclaredToolSchemaRefsRefused(t *testing.T) {
	const sentinel = "s3ntinel-7f3a"
	for _, api := range []string{"openai", "anthropic"} {
		for _, target := range []string{"missing", "secret", "fifo"} {
			t.Run(api+" "+target, func(t *testing.T) {
				in := openAIBody("Probe", `{"x":"y"}`, "tool_calls")
				if api == "anthropic" {
					in = anthropicBody("Probe", `{"x":"y"}`, "tool_use")
				}
				// No fallback: a call checked against a schema read from
				// the file would be refused, not sent as written.
				tp := newTestProxy(t, jsonUpstream(in, nil), func(c *Config) { c.Fallback = false })
				// After the proxy, so its cleanup runs first and lets a
				// handler stuck on the FIFO go before the server closes.
				dir := t.TempDir()
				secret, fifo := filepath.Join(dir, "secret.json"), filepath.Join(dir, "fifo")
				if err := os.WriteFile(secret, []byte(`{"type":"string","const":"`+sentinel+`"}`), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := syscall.Mkfifo(fifo, 0o600); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						_ = f.Close()
					}
				})
				ref := map[string]string{"missing": "file:///nonexistent/x.json", "secret": "file://" + secret, "fifo": "file://" + fifo}[target]
				schema := map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": ref}}, "required": []any{"x"}}
				tool := map[string]any{"type": "function", "function": map[string]any{"name": "Probe", "parameters": schema}}
				if api == "anthropic" {
					tool = map[string]any{"name": "Probe", "input_schema": schema}
				}
				req := mustJSON(map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "hi"}}, "tools": []any{tool}})

				// A generous bound: the answer must come, not come fast.
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, tp.srv.URL+apiPath(api), strings.NewReader(req))
				if err != nil {
					t.Fatal(err)
				}
				hreq.Header.Set("Content-Type", "application/json")
				resp, err := tp.srv.Client().Do(hreq)
				if err != nil {
					t.Fatalf("no answer: %v", err)
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != http.StatusOK || !bytes.Equal(body, in) {
					t.Errorf("status %d\n got %s\nwant %s", resp.StatusCode, body, in)
				}
				var logged bool
				for _, e := range tp.logs.FilterMessage("declared tool not repaired: its schema does not compile").All() {
					m := e.ContextMap()
					logged = logged || m["reason"] == "SCHEMA_REF_NOT_ALLOWED" && strings.Contains(m["error"].(string), ref)
				}
				if !logged {
					t.Errorf("no log line with reason SCHEMA_REF_NOT_ALLOWED naming %s:\n%s", ref, tp.logText())
				}
				for _, s := range []string{"no such file", "open /", "invalid character", sentinel} {
					if strings.Contains(string(body), s) || strings.Contains(tp.logText(), s) {
						t.Errorf("%q in the answer or the log:\n%s\n%s", s, body, tp.logText())
					}
				}
			})
		}
	}
}

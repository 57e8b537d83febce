package mcp

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"go.uber.org/zap"
)

// TestLineFilterBounded: a line many times the limit is answered and
// skipped while the filter holds no more than the limit of it, and the next
// line passes whole.
func TestLineFilterBounded(t *testing.T) {
	const limit = 1 << 10
	next := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	in := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 64*limit) + "\"}}\n" + next + "\n"
	var toSDK, replies bytes.Buffer
	f := &lineFilter{r: bufio.NewReaderSize(strings.NewReader(in), 64), limit: limit, sdk: &toSDK, reply: &replies, log: zap.NewNop()}
	if err := f.run(); err != nil {
		t.Fatal(err)
	}
	if got := toSDK.String(); got != next+"\n" {
		t.Errorf("passed %q, want only the next line", got)
	}
	if !strings.Contains(replies.String(), `"code":-32700`) || strings.Count(replies.String(), "\n") != 1 {
		t.Errorf("replies %q, want one parse error", replies.String())
	}
	if c := cap(f.buf); c > 2*limit {
		t.Errorf("the filter's buffer grew to %d bytes for a limit of %d", c, limit)
	}
}

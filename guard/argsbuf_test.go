package guard

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// TestReleasedEncodingReused: verdicts released one after another, of
// arguments smaller and larger than the last (and past what is kept),
// concurrently, each carry their own arguments' encoding, byte for byte
// repair.EncodeArgs's, until released; a released verdict hands nothing
// out, and releasing one twice, or one never encoded, does nothing.
func TestReleasedEncodingReused(t *testing.T) {
	g, _ := newGuard(t)
	ctx := context.Background()
	sizes := []int{10, 2000, 5, 300, maxReusedArgsJSON + 10, 40, 70000, 1}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i, n := range sizes {
				content := fmt.Sprintf("%d/%d %s\n\"é\"\t", w, i, strings.Repeat("x", n))
				v, err := g.Validate(ctx, ValidateRequest{Call: call(fmt.Sprintf(`{"path": "a.py", "content": %q}`, content)), SessionID: fmt.Sprint("s", w)})
				if err != nil {
					t.Error(err)
					return
				}
				want, err := repair.EncodeArgs(map[string]any{"path": "a.py", "content": content})
				if err != nil || !bytes.Equal(v.ArgumentsJSON, want) {
					t.Errorf("worker %d, call %d: arguments_json %.80q, want %.80q (%v)", w, i, v.ArgumentsJSON, want, err)
					return
				}
				v.Release()
				v.Release()
				if v.ArgumentsJSON != nil {
					t.Errorf("worker %d, call %d: a released verdict still hands out its arguments", w, i)
				}
			}
		})
	}
	wg.Wait()
	unparsed, err := g.Validate(ctx, ValidateRequest{Call: call("not json"), SessionID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	unparsed.Release()
	(&Verdict{}).Release()
}

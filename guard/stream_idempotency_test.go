package guard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolguard/toolguard/repair/stream"
)

// TestStreamIdempotencyKey: a stream executing on completion with an
// idempotency key, sent again (its answer lost), executes none of its calls
// again: each says so in an ALREADY_EXECUTED error event; another key runs
// them. In memory and in Redis.
func TestStreamIdempotencyKey(t *testing.T) {
	text := "<edit>\n<path>log.txt</path>\n<old_text>start\n</old_text>\n<new_text>start\nline\n</new_text>\n</edit>\n"
	for name, open := range storeGuards(t) {
		t.Run(name, func(t *testing.T) {
			g, dir := open(t)
			path := filepath.Join(dir, "log.txt")
			if err := os.WriteFile(path, []byte("start\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			send := func(key string) (executed, refused int) {
				evs, _ := streamed(t, g, StreamRequest{SessionID: "streams", Format: stream.XMLTags, ExecuteOnComplete: true,
					IdempotencyKey: key}, text, 5, nil, "stop")
				for _, e := range evs {
					switch {
					case e.Kind == stream.EventError && e.Code == CodeAlreadyExecuted:
						refused++
					case e.Kind == stream.EventError:
						t.Fatalf("error event %s: %s", e.Code, e.Text)
					case e.Execution != nil && e.Execution.Applied:
						executed++
					}
				}
				return executed, refused
			}
			for i, tt := range []struct {
				key               string
				executed, refused int
				file              string
			}{
				{"s1", 1, 0, "start\nline\n"},
				{"s1", 0, 1, "start\nline\n"},
				{"s2", 1, 0, "start\nline\nline\n"},
			} {
				if x, r := send(tt.key); x != tt.executed || r != tt.refused {
					t.Fatalf("stream %d (%s): executed %d, refused %d; want %d, %d", i, tt.key, x, r, tt.executed, tt.refused)
				}
				if got, _ := os.ReadFile(path); string(got) != tt.file {
					t.Fatalf("stream %d: file %q, want %q", i, got, tt.file)
				}
			}
		})
	}
}

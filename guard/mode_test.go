package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolguard/toolguard/repair/stream"
	"github.com/toolguard/toolguard/session"
)

// TestStreamObserveMode: in observe mode a stream with execute on complete
// writes nothing; each call's verdict is the one enforce mode gives, and
// the call is counted as validated, not executed.
func TestStreamObserveMode(t *testing.T) {
	text := "<write_to_file><path>out/a.txt</path><content>\nhello\n</content></write_to_file>\n" +
		"<write_to_file><path>b.txt</path></write_to_file>"
	verdicts := map[string][]string{}
	for _, mode := range []string{ModeEnforce, ModeObserve} {
		cfg := DefaultConfig()
		cfg.Workspace, cfg.Mode = t.TempDir(), mode
		store := session.NewMemory(session.MemoryOptions{})
		t.Cleanup(func() { _ = store.Close() })
		g, cleanup, err := New(cfg, Options{Sessions: store})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cleanup() })
		evs, _ := streamed(t, g, StreamRequest{SessionID: "s", Format: stream.XMLTags, ExecuteOnComplete: true}, text, 5, nil, "stop")
		for _, c := range completed(evs) {
			verdicts[mode] = append(verdicts[mode], fmt.Sprint(c.Verdict.OK(), c.Verdict.ViolationCodes()))
			if mode == ModeObserve && c.Index == 0 && string(c.Verdict.ArgumentsJSON) != `{"content":"hello","path":"out/a.txt"}` {
				t.Errorf("observe: call 0 arguments %s", c.Verdict.ArgumentsJSON)
			}
			if executed := c.Execution != nil; executed != (mode == ModeEnforce && c.Verdict.OK()) {
				t.Errorf("%s: call %d executed: %v", mode, c.Index, executed)
			}
		}
		_, err = os.Stat(filepath.Join(cfg.Workspace, "out", "a.txt"))
		if written := err == nil; written != (mode == ModeEnforce) || (!written && !errors.Is(err, fs.ErrNotExist)) {
			t.Errorf("%s: out/a.txt written: %v (%v)", mode, written, err)
		}
	}
	if len(verdicts[ModeObserve]) != 2 || len(verdicts[ModeEnforce]) != 2 {
		t.Fatalf("calls completed: %v", verdicts)
	}
	if !slices.Equal(verdicts[ModeObserve], verdicts[ModeEnforce]) || verdicts[ModeObserve][0] != "true []" {
		t.Errorf("verdicts: observe %q, enforce %q", verdicts[ModeObserve], verdicts[ModeEnforce])
	}
}

func TestConfigMode(t *testing.T) {
	for mode, ok := range map[string]bool{"": true, ModeEnforce: true, ModeObserve: true, "report": false} {
		cfg := DefaultConfig()
		cfg.Mode = mode
		if err := cfg.Validate(); (err == nil) != ok {
			t.Errorf("mode %q: %v", mode, err)
		}
	}
}

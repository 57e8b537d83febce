package guard

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
)

func newGuard(t *testing.T) (*Guard, *session.Memory) {
	t.Helper()
	store := session.NewMemory(session.MemoryOptions{})
	t.Cleanup(func() { _ = store.Close() })
	g, cleanup, err := New(DefaultConfig(), Options{Sessions: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cleanup() })
	return g, store
}

func call(text string) repair.Call {
	return repair.Call{Name: "write_to_file", Form: repair.FormText, Text: text}
}

func violationCodes(v *Verdict) []string {
	var out []string
	for _, x := range v.Violations {
		out = append(out, x.Code)
	}
	return out
}

// TestMistakeSequence walks one session through the counting rules.
func TestMistakeSequence(t *testing.T) {
	g, _ := newGuard(t)
	ctx := context.Background()
	bad := call(`{"path":"a"}`)
	good := func(content string) repair.Call { return call(`{"path":"a","content":"` + content + `"}`) }
	steps := []struct {
		name        string
		call        repair.Call
		limit       uint32
		ok          bool
		consecutive uint32
		reached     bool
		violations  []string
	}{
		{"first mistake", bad, 0, false, 1, false, []string{"MISSING_REQUIRED"}},
		{"second mistake", bad, 0, false, 2, false, []string{"MISSING_REQUIRED"}},
		{"third identical mistake reaches the limit and repeats", bad, 0, false, 3, true, []string{"MISSING_REQUIRED", "REPEATED_CALL"}},
		{"a usable call resets", good("x"), 0, true, 0, false, nil},
		{"a different usable call", good("y"), 0, true, 0, false, nil},
		{"the same usable call again", good("y"), 0, true, 0, false, nil},
		{"a third identical usable call is a repeat and a mistake", good("y"), 0, false, 1, false, []string{"REPEATED_CALL"}},
		{"a lowered limit applies to this call", bad, 1, false, 2, true, []string{"MISSING_REQUIRED"}},
		{"a raised limit does not", bad, 10, false, 3, true, []string{"MISSING_REQUIRED"}},
	}
	for _, s := range steps {
		v, err := g.Validate(ctx, ValidateRequest{SessionID: "s", MistakeLimit: s.limit, Call: s.call})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if v.OK() != s.ok || v.Mistakes.Consecutive != s.consecutive || v.Mistakes.LimitReached != s.reached {
			t.Errorf("%s: ok=%v mistakes=%+v", s.name, v.OK(), v.Mistakes)
		}
		if got := violationCodes(v); !slices.Equal(got, s.violations) {
			t.Errorf("%s: violations %v, want %v", s.name, got, s.violations)
		}
		if (v.Feedback == "") != s.ok {
			t.Errorf("%s: feedback %q", s.name, v.Feedback)
		}
	}
	sess, err := g.Session(ctx, "s")
	if err != nil || sess.Mistakes.Consecutive != 3 || !sess.State.Exists {
		t.Fatalf("session %+v, %v", sess, err)
	}
	if _, err := g.ResetSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if sess, _ := g.Session(ctx, "s"); sess.State.Exists || sess.Mistakes.Consecutive != 0 {
		t.Errorf("after reset: %+v", sess)
	}
}

func TestRequestTools(t *testing.T) {
	g, _ := newGuard(t)
	def := repair.ToolDef{Name: "ping", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"host": map[string]any{"type": "string"}}, "required": []any{"host"},
	}}
	for range 2 {
		v, err := g.Validate(context.Background(), ValidateRequest{SessionID: "t", Call: repair.Call{Name: "ping", Form: repair.FormText, Text: `{"host":"a"}`}, Tools: []repair.ToolDef{def}})
		if err != nil || !v.OK() || string(v.ArgumentsJSON) != `{"host":"a"}` {
			t.Fatalf("v=%+v err=%v", v, err)
		}
	}
	if n := len(g.tools.m); n != 1 {
		t.Errorf("cache holds %d compiled tools, want 1", n)
	}
	bad := repair.ToolDef{Name: "broken", Parameters: map[string]any{"type": "object", "properties": "nope"}}
	_, err := g.Validate(context.Background(), ValidateRequest{SessionID: "t", Call: repair.Call{Name: "broken", Form: repair.FormText}, Tools: []repair.ToolDef{def, bad}})
	var te *InvalidToolDefinitionError
	if !errors.As(err, &te) || te.Index != 1 || te.Name != "broken" {
		t.Fatalf("err = %v", err)
	}
}

// TestRequestToolNamedLikeBuiltIn: a caller's own apply_patch (Codex's
// takes "input") is validated by its schema, never read as ours.
func TestRequestToolNamedLikeBuiltIn(t *testing.T) {
	g, _ := newGuard(t)
	def := repair.ToolDef{Name: "apply_patch", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"input": map[string]any{"type": "string"}}, "required": []any{"input"},
	}}
	v, err := g.Validate(context.Background(), ValidateRequest{SessionID: "t", Tools: []repair.ToolDef{def},
		Call: repair.Call{Name: "apply_patch", Form: repair.FormText, Text: `{"input":"*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n"}`}})
	if err != nil || !v.OK() {
		t.Fatalf("err=%v verdict %+v", err, v)
	}
}

func TestToolCacheIsBounded(t *testing.T) {
	c := newToolCache(2)
	for i := range 5 {
		c.put([32]byte{byte(i)}, nil)
	}
	if len(c.m) != 2 {
		t.Fatalf("cache size %d", len(c.m))
	}
}

func TestStoreErrorsPropagate(t *testing.T) {
	g, store := newGuard(t)
	_ = store.Close()
	_, err := g.Validate(context.Background(), ValidateRequest{SessionID: "x", Call: call(`{}`)})
	if !errors.Is(err, session.ErrClosed) {
		t.Fatalf("err = %v", err)
	}
}

func TestFingerprintIgnoresSpelling(t *testing.T) {
	g, _ := newGuard(t)
	ctx := context.Background()
	// Three spellings of one call are one call repeated.
	for i, c := range []repair.Call{
		{Name: "Write", Form: repair.FormText, Text: `{"file_path":"a"}`},
		{Name: "write_to_file", Form: repair.FormText, Text: `{"path": "a"}`},
		{Name: "write_to_file", Form: repair.FormParams, Params: map[string]string{"path": "a"}},
	} {
		v, err := g.Validate(ctx, ValidateRequest{SessionID: "f", Call: c})
		if err != nil {
			t.Fatal(err)
		}
		if repeated := slices.Contains(violationCodes(v), "REPEATED_CALL"); repeated != (i == 2) {
			t.Errorf("call %d: violations %v", i, violationCodes(v))
		}
	}
}

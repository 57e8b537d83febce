package guard

import (
	"context"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
)

// TestLargeArgsFingerprint: arguments past the verdict's budget, whose
// encoding count does not hold, are fingerprinted as if it did, so a
// repeat of a large call is still told (and another large call is not),
// whether written in JSON or in Python.
func TestLargeArgsFingerprint(t *testing.T) {
	g, _ := newWorkspaceGuard(t, func(o *Options) {
		o.MaxVerdictBytes = MaxVerdictBytes
		o.Sessions = session.NewMemory(session.MemoryOptions{RepeatLimit: 2})
	})
	content := strings.Repeat("line \\\"é\\\"\\n", 100_000)
	for i, tt := range []struct {
		args     string
		repeated bool
	}{
		{`{"path": "a.txt", "content": "` + content + `"}`, false},
		{`{'content': '` + strings.ReplaceAll(content, `\"`, `"`) + `', 'path': 'a.txt',}`, true},
		{`{"path": "a.txt", "content": "` + content + `x"}`, false},
		{`{"path": "b.txt", "content": "` + content + `x"}`, false},
	} {
		v, err := g.Validate(context.Background(), ValidateRequest{SessionID: "s", Call: call(tt.args)})
		if err != nil {
			t.Fatal(err)
		}
		if v.Has(repair.CodeRepeatedCall) != tt.repeated || len(v.Elided) != 1 || v.Elided[0].Field != "content" {
			t.Errorf("call %d: repeated=%v (want %v), elided %+v", i, v.Has(repair.CodeRepeatedCall), tt.repeated, v.Elided)
		}
		want, err := repair.EncodeArgs(v.Args)
		if err != nil || string(v.ArgumentsJSON) != string(want) {
			t.Errorf("call %d: arguments_json %.100s, want the Struct's %.100s", i, v.ArgumentsJSON, want)
		}
	}

	// The fingerprint without the encoding is the one with it.
	res := g.reg.Validate(call(`{"path": "a.txt", "content": "`+content+`"}`), repair.Options{})
	encoded, err := repair.EncodeArgs(res.Args)
	if err != nil {
		t.Fatal(err)
	}
	if jsonAtLeast(res.Args, g.verdictBudget()) <= g.verdictBudget() {
		t.Fatalf("the arguments (%d bytes encoded) are within the budget", len(encoded))
	}
	withJSON, err1 := fingerprint(res, repair.Call{}, encoded, res.Args)
	streamed, err2 := fingerprint(res, repair.Call{}, nil, res.Args)
	if err1 != nil || err2 != nil || withJSON != streamed {
		t.Errorf("fingerprint %x (%v) without the encoding, %x (%v) with it", streamed, err2, withJSON, err1)
	}
}

// TestJSONAtLeast: the bound never passes the encoding's size.
func TestJSONAtLeast(t *testing.T) {
	for _, v := range []any{"", "\xff\xfe", "é\n\"", map[string]any{}, map[string]any{"a": []any{nil, true, "x"}, "": map[string]any{}},
		[]any{}, []any{map[string]any{"k": "v"}, 1.5}} {
		enc, err := repair.EncodeJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		if n := jsonAtLeast(v, 1<<20); n > len(enc) {
			t.Errorf("jsonAtLeast(%#v) = %d, past its encoding %s", v, n, enc)
		}
	}
}

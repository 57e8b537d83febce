package guard

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
)

// manyKeys is a JSON object of write_to_file's two parameters and n others.
func manyKeys(n int) string {
	var b strings.Builder
	b.WriteString(`{"path": "a.txt", "content": "c"`)
	for i := range n {
		fmt.Fprintf(&b, `, "k%d": 1`, i)
	}
	return b.String() + "}"
}

// openTool is a caller's tool that takes any parameter.
var openTool = repair.ToolDef{Name: "open_tool", Parameters: map[string]any{"type": "object", "additionalProperties": true}}

// TestFitValidate: an answer that executes nothing echoes the arguments
// whole and once: unknown parameters are left out (the violations name
// them), a large string is in arguments_json only, and past the budget
// values are elided and listed, never dropped in silence.
func TestFitValidate(t *testing.T) {
	big := func(n int) string { return `{"path": "a.txt", "content": "` + strings.Repeat("x", n) + `"}` }
	tests := []struct {
		name    string
		opts    Options
		call    repair.Call
		tools   []repair.ToolDef
		ok      bool
		elided  []string
		inJSON  []string // elided from the Struct only: arguments_json has them whole
		keys    int      // parameters echoed
		omitted int      // violations counted past the list
	}{
		{name: "small call, whole", opts: Options{MaxVerdictBytes: MaxVerdictBytes},
			call: call(`{"path": "a.txt", "content": "hello"}`), ok: true, keys: 2},
		{name: "a content under LargeValueBytes, in both", opts: Options{MaxVerdictBytes: MaxVerdictBytes},
			call: call(big(50 << 10)), ok: true, keys: 2},
		{name: "a 400 KB content, in arguments_json only", opts: Options{MaxVerdictBytes: MaxVerdictBytes},
			call: call(big(400_000)), ok: true, elided: []string{"content"}, inJSON: []string{"content"}, keys: 2},
		{name: "a content past the budget, a marker in both", opts: Options{MaxVerdictBytes: MaxVerdictBytes},
			call: call(big(600_000)), ok: true, elided: []string{"content"}, keys: 2},
		{name: "the send limit below MaxVerdictBytes", opts: Options{MaxVerdictBytes: MaxVerdictBytes, MaxResponseBytes: 128 << 10},
			call: call(big(100 << 10)), ok: true, elided: []string{"content"}, keys: 2},
		{name: "100,000 unknown parameters, left out", opts: Options{MaxVerdictBytes: MaxVerdictBytes},
			call: call(manyKeys(100_000)), keys: 2, omitted: 100_000 - repair.MaxViolations},
		{name: "unknown parameters, left out under the send limit alone", opts: Options{MaxResponseBytes: 128 << 10},
			call: call(manyKeys(5000)), keys: 2, omitted: 5000 - repair.MaxViolations},
		{name: "10,000 accepted parameters: arguments_json whole, the Struct as a whole elided", opts: Options{MaxVerdictBytes: MaxVerdictBytes},
			call: repair.Call{Name: "open_tool", Form: repair.FormText, Text: manyKeys(10_000)}, tools: []repair.ToolDef{openTool},
			ok: true, elided: []string{""}, inJSON: []string{""}},
		{name: "100,000 accepted parameters: the arguments as a whole", opts: Options{MaxVerdictBytes: MaxVerdictBytes},
			call: repair.Call{Name: "open_tool", Form: repair.FormText, Text: manyKeys(100_000)}, tools: []repair.ToolDef{openTool},
			ok: true, elided: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, _ := newWorkspaceGuard(t, func(o *Options) { *o = tt.opts })
			v, err := g.Validate(context.Background(), ValidateRequest{SessionID: "s", Call: tt.call, Tools: tt.tools})
			if err != nil {
				t.Fatal(err)
			}
			if v.OK() != tt.ok || !slices.Equal(fields(v.Elided), tt.elided) || v.ViolationsOmitted != tt.omitted {
				t.Fatalf("ok=%v elided %v omitted %d, want ok=%v elided %v omitted %d",
					v.OK(), fields(v.Elided), v.ViolationsOmitted, tt.ok, tt.elided, tt.omitted)
			}
			if tt.keys > 0 && len(v.Args) != tt.keys {
				t.Errorf("%d parameters echoed, want %d", len(v.Args), tt.keys)
			}
			budget := g.verdictBudget()
			if size := structSize(v.Args) + len(v.ArgumentsJSON) + fixedSize(v.Result, v.Feedback, &Execution{}); size > budget {
				t.Errorf("an answer of up to %d bytes, the budget %d", size, budget)
			}
			for _, e := range v.Elided {
				if e.Field == "" {
					if v.Args != nil || slices.Contains(tt.inJSON, "") != (hexSum(string(v.ArgumentsJSON)) == e.SHA256) {
						t.Errorf("whole arguments: Struct %d keys, JSON %d bytes, elision %+v", len(v.Args), len(v.ArgumentsJSON), e)
					}
					continue
				}
				if got := v.Args[e.Field]; got != e.Marker() {
					t.Errorf("%s = %.40v, want the marker", e.Field, got)
				}
				if inJSON := !strings.Contains(string(v.ArgumentsJSON), e.SHA256); inJSON != slices.Contains(tt.inJSON, e.Field) {
					t.Errorf("%s whole in arguments_json: %v, want %v", e.Field, inJSON, !inJSON)
				}
			}
			if strings.Contains(string(v.ArgumentsJSON), `"k1"`) && !tt.ok {
				t.Error("unknown parameters echoed")
			}
		})
	}
}

// TestFitKeepsArgumentsWithoutBound: a guard that bounds no verdict (the
// proxy's, which forwards the arguments) keeps the unknown ones.
func TestFitKeepsArgumentsWithoutBound(t *testing.T) {
	g, _ := newWorkspaceGuard(t)
	v, err := g.Validate(context.Background(), ValidateRequest{SessionID: "s", Call: call(`{"path": "a.txt", "content": "c", "append": true}`)})
	if err != nil {
		t.Fatal(err)
	}
	if v.OK() || v.Args["append"] != true || !strings.Contains(string(v.ArgumentsJSON), `"append":true`) {
		t.Errorf("ok=%v args %v json %s, want the unknown parameter kept", v.OK(), v.Args, v.ArgumentsJSON)
	}
}

// TestRepeatWithUnexpectedParams: a guard that bounds its verdicts leaves
// the unexpected parameters out of the arguments' text, yet tells calls
// apart by them: the same call twice is a repeat, another value is not.
func TestRepeatWithUnexpectedParams(t *testing.T) {
	g, _ := newWorkspaceGuard(t, func(o *Options) {
		o.MaxVerdictBytes = MaxVerdictBytes
		o.Sessions = session.NewMemory(session.MemoryOptions{RepeatLimit: 2})
	})
	for i, tt := range []struct {
		args     string
		repeated bool
	}{
		{`{"path": "a.txt", "content": "c", "append": true, "mode": "w"}`, false},
		{`{"mode": "w", "content": "c", "path": "a.txt", "append": true}`, true},
		{`{"path": "a.txt", "content": "c", "append": false, "mode": "w"}`, false},
		{`{"path": "a.txt", "content": "c", "append": false, "mode": "w", "x": 1}`, false},
		{`{"path": "a.txt", "content": "c", "append": false, "mode": "w", "x": 1}`, true},
	} {
		v, err := g.Validate(context.Background(), ValidateRequest{SessionID: "s", Call: call(tt.args)})
		if err != nil {
			t.Fatal(err)
		}
		if v.Has(repair.CodeRepeatedCall) != tt.repeated || string(v.ArgumentsJSON) != `{"content":"c","path":"a.txt"}` {
			t.Errorf("call %d: repeated=%v (want %v), arguments %s", i, v.Has(repair.CodeRepeatedCall), tt.repeated, v.ArgumentsJSON)
		}
	}
}

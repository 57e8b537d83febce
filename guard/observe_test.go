package guard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// recorder is an Observer that writes down each observation as a line.
type recorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

func (r *recorder) Verdict(v *Verdict, tool string) {
	var codes []string
	for _, x := range v.Violations {
		codes = append(codes, x.Code)
	}
	r.add("verdict tool=%s ok=%v violations=%s limit=%v", tool, v.OK(), strings.Join(codes, ","), v.Mistakes.LimitReached)
}

func (r *recorder) Execution(ex *Execution) {
	var edits []string
	for _, e := range ex.Edits {
		edits = append(edits, fmt.Sprintf("%s/%s", e.Status, e.Strategy))
	}
	r.add("execution edits=%s applied=%v bytes=%d", strings.Join(edits, ","), ex.Applied, ex.BytesWritten())
}

func (r *recorder) StreamCall(format stream.Format, outcome StreamCallOutcome) {
	r.add("stream format=%s outcome=%s", format, outcome)
}

// take returns the lines recorded since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.lines
	r.lines = nil
	return out
}

func newObservedGuard(t *testing.T) (*Guard, *recorder, string) {
	t.Helper()
	rec := &recorder{}
	g, dir := newWorkspaceGuard(t, func(o *Options) {
		o.Observe = func(*repair.Registry) (Observer, error) { return rec, nil }
	})
	return g, rec, dir
}

func TestObserverSeesEveryOutcome(t *testing.T) {
	g, rec, dir := newObservedGuard(t)
	ctx := context.Background()
	if err := os.WriteFile(filepath.Join(dir, "app.py"), []byte("print(\"hello\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	custom := []repair.ToolDef{{Name: "edit", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"note": map[string]any{"type": "string"}},
	}}}
	text := func(name, args string) repair.Call { return repair.Call{Name: name, Form: repair.FormText, Text: args} }
	validate := func(sess string, c repair.Call, tools []repair.ToolDef) {
		t.Helper()
		if _, err := g.Validate(ctx, ValidateRequest{SessionID: sess, Call: c, Tools: tools}); err != nil {
			t.Fatal(err)
		}
	}
	execute := func(edit bool, c repair.Call, dryRun bool) {
		t.Helper()
		req := ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "x", Call: c}, DryRun: dryRun}
		var err error
		if edit {
			_, err = g.ExecuteEdit(ctx, req)
		} else {
			_, err = g.ExecuteWrite(ctx, req)
		}
		if err != nil {
			t.Fatal(err)
		}
	}

	tests := []struct {
		name string
		run  func()
		want []string
	}{
		{"alias of a server tool is labelled by its canonical name",
			func() { validate("a", text("Write", `{"file_path":"a.py","text":"x"}`), nil) },
			[]string{"verdict tool=write_to_file ok=true violations= limit=false"}},
		{"unknown tool is other, never the raw name",
			func() { validate("b", text("launch_rockets_42", `{}`), nil) },
			[]string{"verdict tool=other ok=false violations=UNKNOWN_TOOL limit=false"}},
		{"a request's own tool is custom, even under a server tool's name",
			func() { validate("c", text("edit", `{"note":"hi"}`), custom) },
			[]string{"verdict tool=custom ok=true violations= limit=false"}},
		{"the third mistake reports the limit",
			func() {
				for range 3 {
					validate("d", text("Write", `{"file_path":"a.py"}`), nil)
				}
			},
			[]string{
				"verdict tool=write_to_file ok=false violations=MISSING_REQUIRED limit=false",
				"verdict tool=write_to_file ok=false violations=MISSING_REQUIRED limit=false",
				"verdict tool=write_to_file ok=false violations=MISSING_REQUIRED,REPEATED_CALL limit=true",
			}},
		{"a write counts its bytes",
			func() { execute(false, text("write_to_file", `{"path":"new.txt","content":"hello\n"}`), false) },
			[]string{"verdict tool=write_to_file ok=true violations= limit=false", "execution edits= applied=true bytes=6"}},
		{"a dry run writes nothing",
			func() { execute(false, text("write_to_file", `{"path":"dry.txt","content":"hello\n"}`), true) },
			[]string{"verdict tool=write_to_file ok=true violations= limit=false", "execution edits= applied=false bytes=0"}},
		{"an edit reports its rung and bytes",
			func() {
				execute(true, text("Edit", `{"file_path":"app.py","old_string":"print(“hello”)","new_string":"print(\"hi\")"}`), false)
			},
			[]string{"verdict tool=edit ok=true violations= limit=false", "execution edits=APPLIED/UNICODE applied=true bytes=12"}},
		{"a failed edit is an execution with its outcome",
			func() {
				execute(true, text("edit", `{"path":"app.py","old_text":"nowhere to be found","new_text":"x"}`), false)
			},
			[]string{"verdict tool=edit ok=false violations=EDIT_NOT_FOUND limit=false", "execution edits=NOT_FOUND/ applied=false bytes=0"}},
		{"an unusable call is not executed",
			func() { execute(true, text("edit", `{"path":"app.py"}`), false) },
			[]string{"verdict tool=edit ok=false violations=MISSING_REQUIRED,MISSING_REQUIRED limit=false"}},
	}
	for _, tt := range tests {
		tt.run()
		if got := rec.take(); !slices.Equal(got, tt.want) {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.name, got, tt.want)
		}
	}

	// A caller's mistake is an error, not an outcome: nothing is observed.
	if _, err := g.Validate(ctx, ValidateRequest{SessionID: "e", Call: text("x", `{}`), Tools: []repair.ToolDef{{Name: ""}}}); err == nil {
		t.Fatal("a nameless tool definition was accepted")
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("a rejected request was observed: %q", got)
	}
}

func TestObserverSeesStreamCalls(t *testing.T) {
	g, rec, _ := newObservedGuard(t)
	text := "Writing.<write_to_file><path>a.txt</path><content>hi</content></write_to_file>" +
		"<write_to_file><path>b.txt</path></write_to_file>" +
		"<write_to_file><path>c.txt</path><content>cut off"
	streamed(t, g, StreamRequest{SessionID: "s", Format: stream.XMLTags, ExecuteOnComplete: true}, text, 7, nil, "length")
	want := []string{
		"verdict tool=write_to_file ok=true violations= limit=false",
		"execution edits= applied=true bytes=2",
		"stream format=xml_tags outcome=usable",
		"verdict tool=write_to_file ok=false violations=MISSING_REQUIRED limit=false",
		"stream format=xml_tags outcome=unusable",
		"verdict tool=write_to_file ok=false violations=TRUNCATED,TRUNCATED limit=false", // the value and the block
		"stream format=xml_tags outcome=truncated",
	}
	if got := rec.take(); !slices.Equal(got, want) {
		t.Errorf("stream observations:\ngot  %q\nwant %q", got, want)
	}
}

func TestNopObserverIsTheDefault(t *testing.T) {
	g, _ := newGuard(t)
	if _, ok := g.observer.(NopObserver); !ok {
		t.Fatalf("observer of a guard configured without one = %T, want NopObserver", g.observer)
	}
	if got := g.ToolLabel(nil); got != ToolLabelOther {
		t.Errorf("ToolLabel(nil) = %q, want %q", got, ToolLabelOther)
	}
}

// TestValidateWithoutSession: a call validated with NoSession is observed
// but recorded in no session; Truncated adds TRUNCATED; ObserveStreamCall
// reports a call concluded outside a Stream.
func TestValidateWithoutSession(t *testing.T) {
	g, rec, _ := newObservedGuard(t)
	ctx := context.Background()
	bad := repair.Call{Name: "write_to_file", Form: repair.FormText, Text: `{"path":"a"}`}
	for range 3 {
		v, err := g.Validate(ctx, ValidateRequest{SessionID: "s", NoSession: true, Call: bad})
		if err != nil {
			t.Fatal(err)
		}
		if want := (MistakeState{Limit: 3, NotCounted: true}); v.Mistakes != want || v.Has(repair.CodeRepeatedCall) {
			t.Fatalf("mistakes = %+v (violations %v), want %+v and no repeat", v.Mistakes, v.Violations, want)
		}
	}
	if st, err := g.Session(ctx, "s"); err != nil || st.State.Exists {
		t.Fatalf("session s: %+v, %v; want it never recorded", st, err)
	}
	if got := rec.take(); len(got) != 3 || got[0] != "verdict tool=write_to_file ok=false violations=MISSING_REQUIRED limit=false" {
		t.Fatalf("observed %q, want three verdicts", got)
	}

	v, err := g.Validate(ctx, ValidateRequest{SessionID: "s", Truncated: true,
		Call: repair.Call{Name: "write_to_file", Form: repair.FormText, Text: `{"path":"a","content":"b"}`}})
	if err != nil {
		t.Fatal(err)
	}
	if got := violationCodes(v); !slices.Equal(got, []string{repair.CodeTruncated}) || v.Mistakes.Consecutive != 1 {
		t.Fatalf("truncated call: violations %v, mistakes %+v; want TRUNCATED, counted", got, v.Mistakes)
	}
	g.ObserveStreamCall(stream.OpenAI, v, false)
	want := []string{
		"verdict tool=write_to_file ok=false violations=TRUNCATED limit=false",
		"stream format=openai outcome=truncated",
	}
	if got := rec.take(); !slices.Equal(got, want) {
		t.Fatalf("observed %q, want %q", got, want)
	}

	def := repair.ToolDef{Name: "lookup", Parameters: map[string]any{"type": "object"}}
	first, err := g.CompileTool(def)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := g.CompileTool(def); again != first {
		t.Error("CompileTool compiled an identical definition again")
	}
	if _, err := g.CompileTool(repair.ToolDef{Name: "x", Parameters: map[string]any{"type": "string"}}); err == nil {
		t.Error("CompileTool accepted a schema that is no object")
	}
}

package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair/stream"
)

// TestStreamQuotedNotExecuted checks that a write the response only quotes
// (in a code fence, inline code, or a sentence that refuses it) is never
// executed, in AUTO, HERMES and QWEN_XML, while the same call standing at
// the end of the response is.
func TestStreamQuotedNotExecuted(t *testing.T) {
	calls := map[stream.Format]string{
		stream.Hermes:  `<tool_call>{"name": "write_to_file", "arguments": {"path": "pwned.txt", "content": "x"}}</tool_call>`,
		stream.QwenXML: "<tool_call>\n<function=write_to_file>\n<parameter=path>pwned.txt</parameter>\n<parameter=content>x</parameter>\n</function>\n</tool_call>",
	}
	quotes := map[string]func(string) string{
		"fenced": func(c string) string {
			return "The document contains this example:\n```\n" + c + "\n```\nI did not run it."
		},
		"inline code": func(c string) string { return "It says `" + c + "`, which I ignore." },
		"a sentence": func(c string) string {
			return "The README asks me to run " + c + " but that looks malicious, so I will NOT do it."
		},
	}
	for format, call := range calls {
		for _, f := range []stream.Format{format, stream.Auto} {
			for name, quote := range quotes {
				g, dir := newWorkspaceGuard(t)
				in := quote(call)
				evs, sum := streamed(t, g, StreamRequest{SessionID: "s", Format: f, ExecuteOnComplete: true}, in, 7, nil, "stop")
				var text strings.Builder
				for _, e := range evs {
					if e.Kind == stream.EventText {
						text.WriteString(e.Text)
					}
				}
				if _, err := os.Stat(filepath.Join(dir, "pwned.txt")); err == nil || len(completed(evs)) > 0 || sum.Calls != 0 {
					t.Errorf("%s, %s: a quoted call ran (%d completed)", f, name, len(completed(evs)))
				}
				if text.String() != in {
					t.Errorf("%s, %s: text %q, want the response as written", f, name, text.String())
				}
			}
			g, dir := newWorkspaceGuard(t)
			streamed(t, g, StreamRequest{SessionID: "s", Format: f, ExecuteOnComplete: true}, "Writing it.\n"+call, 7, nil, "stop")
			if b, err := os.ReadFile(filepath.Join(dir, "pwned.txt")); err != nil || string(b) != "x" {
				t.Errorf("%s: the call at the end was not executed: %q, %v", f, b, err)
			}
		}
	}
}

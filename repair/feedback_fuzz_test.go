package repair

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzFeedback: whatever a call brings, in any form and for any model
// family, its feedback stays within MaxFeedbackBytes, is UTF-8 when the
// call was, and shows the call's parameters in the call's own format.
func FuzzFeedback(f *testing.F) {
	reg := mustMemoryRegistry(f)
	for _, seed := range []struct {
		form        uint8
		tool, text  string
		model       string
		param, pval string
	}{
		{0, "write_to_file", `{"path":"","content":"x","mode":"w"}`, "", "", ""},
		{0, "Write", `{"file_path":["a"],"content":"` + strings.Repeat("é", 70) + `"}`, "claude-sonnet-4-5", "", ""},
		{1, "", "<edit><path>a.py</path><old_text>x</old_text></edit>", "claude-opus-4-1", "", ""},
		{2, "edit", "", "gpt-5", "replace_all", "maybe"},
		{2, "todo_write", "", "", "todos", `[{"id":1,"content":"","status":"x"}]`},
	} {
		f.Add(seed.form, seed.tool, seed.text, seed.model, seed.param, seed.pval)
	}
	f.Fuzz(func(t *testing.T, form uint8, tool, text, model, param, pval string) {
		call := Call{Name: tool, Form: FormText, Text: text}
		switch form % 3 {
		case 1:
			call.Form = FormXML
		case 2:
			call.Form, call.Text = FormParams, ""
			call.Params = map[string]string{param: pval, "path": text}
		}
		res := reg.Validate(call, Options{ModelID: model})
		fb := Feedback(res, Mistakes{Consecutive: 2, Limit: 3})
		if len(fb) > MaxFeedbackBytes {
			t.Fatalf("feedback is %d bytes, over %d", len(fb), MaxFeedbackBytes)
		}
		valid := utf8.ValidString(tool) && utf8.ValidString(text) && utf8.ValidString(param) && utf8.ValidString(pval)
		if valid && !utf8.ValidString(fb) {
			t.Fatalf("feedback is not UTF-8: %q", fb)
		}
		if res.OK() || res.Tool == nil || res.Args == nil {
			return
		}
		want := "Received: {"
		if call.Form != FormText {
			want = "Received:\n<" + clipText(res.Tool.Name(), maxQuoted) + ">\n"
		}
		if !strings.Contains(fb, want) {
			t.Fatalf("feedback of a %v call lacks %q:\n%s", call.Form, want, fb)
		}
	})
}

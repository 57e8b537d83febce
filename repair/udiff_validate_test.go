package repair

import (
	"strings"
	"testing"
)

// A unified diff given to apply_patch is parsed when the call is
// validated: a malformed or cut one is refused there, and its hunks are
// judged as edits (placeholders, HTML entities).
func TestValidateUnifiedDiff(t *testing.T) {
	reg := mustRegistry(t)
	tests := []struct {
		name    string
		call    Call
		code    string   // the violation, "" for a usable call
		msg     []string // in the violation's message
		repairs []string
	}{
		{"git diff", Call{Name: "apply_patch", Form: FormText,
			Text: `{"patch":"diff --git a/a.go b/a.go\nindex 1..2 100644\n--- a/a.go\n+++ b/a.go\n@@ -1,2 +1,2 @@\n package a\n-var x = 1\n+var x = 2\n"}`},
			"", nil, nil},
		{"Aider udiff, fenced, under an alias", Call{Name: "apply_unified_diff", Form: FormText,
			Text: "{\"diff\":\"```diff\\n--- a.py\\n+++ a.py\\n@@ ... @@\\n-x = 1\\n+x = 2\\n```\"}"},
			"", nil, []string{CodeToolAlias, CodeAliasRenamed, CodeCodeFenceStripped}},
		{"counts that do not match", Call{Name: "apply_patch", Form: FormText,
			Text: `{"patch":"--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n-a\n+b\n@@ -7 +7 @@\n-c\n+d\n"}`},
			CodeInvalidValue, []string{"patch", "counts 3 old and 3 new lines, but the hunk has 1 old"}, nil},
		{"cut mid-hunk", Call{Name: "apply_patch", Form: FormText,
			Text: `{"patch":"--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n a\n-b\n"}`},
			CodeTruncated, []string{"The diff is incomplete", "counts 3 old and 3 new lines, and only 2 and 1 arrived"}, nil},
		{"a placeholder added by a hunk", Call{Name: "apply_patch", Form: FormText,
			Text: `{"patch":"--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    # ... rest of the code ...\n"}`},
			CodePlaceholderContent, []string{"The update of a.py"}, nil},
		{"HTML entities in every hunk line", Call{Name: "apply_patch", Form: FormText,
			Text: `{"patch":"--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-if a &lt; b &amp;&amp; c {\n+if a &lt;= b &amp;&amp; c {\n"}`},
			"", nil, []string{CodeHTMLEntitiesDecoded}},
		{"replace_in_file given a unified diff", Call{Name: "replace_in_file", Form: FormText,
			Text: `{"path":"a.go","diff":"--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-a\n+b\n"}`},
			CodeInvalidValue, []string{"The diff is a unified diff", "send it as apply_patch's \"patch\""}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(tc.call, Options{})
			var got []string
			for _, r := range res.Repairs {
				got = append(got, r.Code)
			}
			for _, want := range tc.repairs {
				if !strings.Contains(strings.Join(got, " "), want) {
					t.Errorf("repairs %v lack %s", got, want)
				}
			}
			if tc.code == "" {
				if !res.OK() {
					t.Fatalf("not usable: %v", res.Violations)
				}
				return
			}
			if res.OK() || len(res.Violations) != 1 || res.Violations[0].Code != tc.code {
				t.Fatalf("violations %v, want one %s", res.Violations, tc.code)
			}
			for _, m := range tc.msg {
				if v := res.Violations[0]; !strings.Contains(v.Param+" "+v.Message, m) {
					t.Errorf("%s %q lacks %q", v.Param, v.Message, m)
				}
			}
		})
	}
}

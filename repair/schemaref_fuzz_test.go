//go:build unix

package repair

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// trapToken in a fuzz input stands for the directory of a refTrap, so seeds
// (and their mutations) can point at its files.
const trapToken = "@TRAP@"

// maxCompileErrorRunes bounds a compile error's text: the tool name's part,
// the prefixes, and a clipped library message or a SchemaRefError.
const maxCompileErrorRunes = 1200

// FuzzCompileSchema compiles random JSON documents as a tool's parameters
// (and as the schema of one of its parameters). Properties: no panic; no
// file is ever read or opened (the trap's content never shows in an error,
// a violation or feedback, and its FIFO never blocks); an error's text is
// bounded and holds no operating-system text.
func FuzzCompileSchema(f *testing.F) {
	tr := newRefTrap(f)
	reg := mustRegistry(f)
	f.Add(`{"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}}`)
	f.Add(`{"type":"object","properties":{"x":{"$ref":"file://@TRAP@/secret.json"}}}`)
	f.Fuzz(func(t *testing.T, doc string) {
		if strings.Contains(doc, sentinel) {
			return // the input itself would show in messages
		}
		doc = strings.ReplaceAll(doc, trapToken, tr.dir)
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		params, _ := v.(map[string]any)
		defs := []ToolDef{{Name: "fz", Parameters: map[string]any{"type": "object", "properties": map[string]any{"x": v}}}}
		if params != nil {
			defs = append(defs, ToolDef{Name: "fz", Parameters: params})
		}
		for _, def := range defs {
			tool, err := compileBounded(t, reg, def)
			if err != nil {
				checkCompileError(t, err.Error())
				continue
			}
			for _, args := range []string{`{"x":"probe"}`, `{}`, `{"x":{"y":[1]}}`} {
				res := reg.Validate(Call{Name: "fz", Form: FormText, Text: args}, Options{Tools: []*Tool{tool}})
				texts := []string{Feedback(res, Mistakes{})}
				for _, vi := range res.Violations {
					texts = append(texts, vi.Message)
				}
				for _, s := range texts {
					if strings.Contains(s, sentinel) {
						t.Fatalf("the trap's content in a verdict: %s", s)
					}
				}
			}
		}
	})
}

// compileBounded compiles def in a goroutine: an open(2) on the FIFO would
// never return, so a compile that has not answered after a generous wait is
// a failure.
func compileBounded(t *testing.T, reg *Registry, def ToolDef) (*Tool, error) {
	t.Helper()
	type result struct {
		tool *Tool
		err  error
	}
	done := make(chan result, 1)
	go func() {
		tool, err := reg.Compile(def)
		done <- result{tool, err}
	}()
	timer := time.NewTimer(2 * time.Minute)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.tool, r.err
	case <-timer.C:
		t.Fatal("Compile has not answered in 2 minutes: it is blocked")
		return nil, nil
	}
}

func checkCompileError(t *testing.T, msg string) {
	t.Helper()
	if n := utf8.RuneCountInString(msg); n > maxCompileErrorRunes {
		t.Fatalf("a compile error of %d runes: %.300s…", n, msg)
	}
	// "invalid character" alone is also the start of a regexp error.
	for _, s := range []string{sentinel, "no such file", "open /", "looking for beginning of value", "permission denied", "is a directory"} {
		if strings.Contains(msg, s) {
			t.Fatalf("%q in a compile error: %s", s, msg)
		}
	}
}

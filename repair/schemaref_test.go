//go:build unix

package repair

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sentinel is the content of the files the tests point schemas at: it must
// never come back in any text.
const sentinel = "s3ntinel-7f3a"

// osText are fragments of operating-system errors, which must never reach
// a caller.
var osText = []string{"no such file", "open /", "permission denied", "is a directory", "invalid character", "metaschemas/", sentinel}

// refTrap is a directory holding a JSON file, a non-JSON file and a FIFO
// (whose open blocks until a writer comes) for schemas to point at.
type refTrap struct {
	dir, secret, plain, fifo string
}

func newRefTrap(t testing.TB) refTrap {
	t.Helper()
	dir := t.TempDir()
	tr := refTrap{dir: dir, secret: filepath.Join(dir, "secret.json"), plain: filepath.Join(dir, "plain"), fifo: filepath.Join(dir, "fifo")}
	if err := os.WriteFile(tr.secret, []byte(`{"v":"`+sentinel+`","type":"string","const":"`+sentinel+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr.plain, []byte(sentinel+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(tr.fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A reader stuck in open(2) on the FIFO is let go by a writer, so a
	// failing test does not leave a thread blocked forever.
	t.Cleanup(func() {
		if f, err := os.OpenFile(tr.fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = f.Close()
		}
	})
	return tr
}

// compileWithin compiles def, failing the test when it has not answered
// after a generous wait: a compile that opens a FIFO never answers.
func compileWithin(t *testing.T, reg *Registry, def ToolDef) (*Tool, error) {
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
	select {
	case r := <-done:
		return r.tool, r.err
	case <-time.After(2 * time.Minute):
		t.Fatal("Compile has not answered in 2 minutes: it is blocked")
		return nil, nil
	}
}

func objectWith(prop map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"x": prop}}
}

func TestSchemaRefsOutsideTheSchemaAreRefused(t *testing.T) {
	tr := newRefTrap(t)
	file := func(p string) string { return "file://" + p }
	long := "file:///" + strings.Repeat("a", 5000)
	tests := []struct {
		name   string
		params map[string]any
		ref    string // as the error must name it
	}{
		{"file, existing JSON", objectWith(map[string]any{"$ref": file(tr.secret) + "#/v"}), file(tr.secret) + "#/v"},
		{"file, existing JSON, whole", objectWith(map[string]any{"$ref": file(tr.secret)}), file(tr.secret)},
		{"file, not JSON", objectWith(map[string]any{"$ref": file(tr.plain)}), file(tr.plain)},
		{"file, missing", objectWith(map[string]any{"$ref": "file:///nonexistent/x.json"}), "file:///nonexistent/x.json"},
		{"file, directory", objectWith(map[string]any{"$ref": file(tr.dir) + "/"}), file(tr.dir) + "/"},
		{"file, FIFO", objectWith(map[string]any{"$ref": file(tr.fifo)}), file(tr.fifo)},
		{"http", objectWith(map[string]any{"$ref": "http://127.0.0.1:1/s.json"}), "http://127.0.0.1:1/s.json"},
		{"https", objectWith(map[string]any{"$ref": "https://example.com/s.json#/$defs/a"}), "https://example.com/s.json#/$defs/a"},
		{"relative", objectWith(map[string]any{"$ref": "other.json"}), "other.json"},
		{"relative climbing", objectWith(map[string]any{"$ref": "../../../../etc/passwd"}), "../../../../etc/passwd"},
		{"absolute path", objectWith(map[string]any{"$ref": tr.secret}), tr.secret},
		{"$id file base at the root", map[string]any{"$id": file(tr.dir) + "/", "type": "object",
			"properties": map[string]any{"x": map[string]any{"$ref": "secret.json"}}}, "secret.json"},
		{"$id file base nested", objectWith(map[string]any{"$id": file(tr.dir) + "/sub/", "$ref": "../fifo"}), "../fifo"},
		{"$id https base", map[string]any{"$id": "https://example.com/a/", "type": "object",
			"properties": map[string]any{"x": map[string]any{"$ref": "b.json"}}}, "b.json"},
		{"$schema file", map[string]any{"$schema": file(tr.secret), "type": "object"}, file(tr.secret)},
		{"$schema FIFO", map[string]any{"$schema": file(tr.fifo), "type": "object"}, file(tr.fifo)},
		{"$schema non-standard URL", map[string]any{"$schema": "https://example.com/meta", "type": "object"}, "https://example.com/meta"},
		{"$schema unknown draft on the standard host", map[string]any{"$schema": "https://json-schema.org/draft/2099-01/schema", "type": "object"},
			"https://json-schema.org/draft/2099-01/schema"},
		{"$schema a folder of the standard host", map[string]any{"$schema": "https://json-schema.org/draft", "type": "object"},
			"https://json-schema.org/draft"},
		{"$ref a folder of the standard host", objectWith(map[string]any{"$ref": "http://json-schema.org/draft/2020-12/meta"}),
			"http://json-schema.org/draft/2020-12/meta"},
		{"$dynamicRef", objectWith(map[string]any{"$dynamicRef": file(tr.secret) + "#meta"}), file(tr.secret) + "#meta"},
		{"in $defs, through a chain", map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/a"}},
			"$defs": map[string]any{"a": map[string]any{"$ref": "#/$defs/b"}, "b": map[string]any{"$ref": file(tr.fifo)}}}, file(tr.fifo)},
		{"draft-07 definitions", map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
			"properties":  map[string]any{"x": map[string]any{"$ref": "#/definitions/a"}},
			"definitions": map[string]any{"a": map[string]any{"$ref": file(tr.secret)}}}, file(tr.secret)},
		{"in items", objectWith(map[string]any{"type": "array", "items": map[string]any{"$ref": file(tr.secret)}}), file(tr.secret)},
		{"in allOf", objectWith(map[string]any{"allOf": []any{map[string]any{"$ref": "https://example.com/x"}}}), "https://example.com/x"},
		{"long", objectWith(map[string]any{"$ref": long}), clipText(long, maxRefRunes)},
	}
	reg := mustRegistry(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compileWithin(t, reg, ToolDef{Name: "t", Parameters: tt.params})
			var re *SchemaRefError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want a SchemaRefError", err)
			}
			if re.Ref != tt.ref {
				t.Errorf("Ref = %q, want %q", re.Ref, tt.ref)
			}
			msg := err.Error()
			for _, s := range osText {
				if strings.Contains(msg, s) {
					t.Errorf("the message holds %q: %s", s, msg)
				}
			}
			if len(msg) > 1000 {
				t.Errorf("a message of %d bytes", len(msg))
			}
		})
	}
}

// TestSchemaRefsInsideTheSchemaWork: references within the schema resolve,
// and the schema they point at applies.
func TestSchemaRefsInsideTheSchemaWork(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]any
	}{
		{"$defs chain", map[string]any{"type": "object", "required": []any{"x"},
			"properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/a"}},
			"$defs":      map[string]any{"a": map[string]any{"$ref": "#/$defs/b"}, "b": map[string]any{"type": "integer", "maximum": 3}}}},
		{"draft-07 definitions", map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": []any{"x"},
			"properties":  map[string]any{"x": map[string]any{"$ref": "#/definitions/a"}},
			"definitions": map[string]any{"a": map[string]any{"$ref": "#/definitions/b"}, "b": map[string]any{"type": "integer", "maximum": 3}}}},
		{"anchor", map[string]any{"type": "object", "required": []any{"x"},
			"properties": map[string]any{"x": map[string]any{"$ref": "#small"}},
			"$defs":      map[string]any{"a": map[string]any{"$anchor": "small", "type": "integer", "maximum": 3}}}},
		{"embedded $id", map[string]any{"$id": "https://example.com/root.json", "type": "object", "required": []any{"x"},
			"properties": map[string]any{"x": map[string]any{"$ref": "small.json"}},
			"$defs":      map[string]any{"a": map[string]any{"$id": "small.json", "type": "integer", "maximum": 3}}}},
		{"standard $schema", map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": []any{"x"},
			"properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/a"}},
			"$defs":      map[string]any{"a": map[string]any{"type": "integer", "maximum": 3}}}},
	}
	reg := mustRegistry(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, err := compileWithin(t, reg, ToolDef{Name: "t", Parameters: tt.params})
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{Tools: []*Tool{tool}}
			if res := reg.Validate(Call{Name: "t", Form: FormText, Text: `{"x":2}`}, opts); !res.OK() {
				t.Errorf("x=2: violations %v", res.Violations)
			}
			for _, bad := range []string{`{"x":7}`, `{"x":"two"}`} {
				if res := reg.Validate(Call{Name: "t", Form: FormText, Text: bad}, opts); res.OK() {
					t.Errorf("%s is usable: the referenced schema was not applied", bad)
				}
			}
		})
	}
}

// TestToolNamesWithURLCharacters: a tool's name is no part of its schema's
// location, so any name compiles.
func TestToolNamesWithURLCharacters(t *testing.T) {
	reg := mustRegistry(t)
	for _, name := range []string{"a#b", "50%", "a b", "a?b", "../x", "file:///etc/passwd"} {
		if _, err := compileWithin(t, reg, ToolDef{Name: name, Parameters: objectWith(map[string]any{"type": "string"})}); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
}

// TestToolsFileRefsRefused: a tools file's schemas compile the same way.
func TestToolsFileRefsRefused(t *testing.T) {
	tr := newRefTrap(t)
	f, err := ParseToolsFile([]byte("tools:\n  - name: x\n    parameters:\n      type: object\n      properties:\n        a: {$ref: 'file://" + tr.fifo + "'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := NewRegistry(f)
		done <- err
	}()
	select {
	case err := <-done:
		var re *SchemaRefError
		if !errors.As(err, &re) || re.Ref != "file://"+tr.fifo {
			t.Fatalf("err = %v, want a SchemaRefError naming the FIFO", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("NewRegistry has not answered in 2 minutes: it is blocked")
	}
}

// TestRecursiveSchemasCompile: schemas whose references lead back to an
// ancestor, or fan out level after level, compile at once, with a bounded
// example, and validate.
func TestRecursiveSchemasCompile(t *testing.T) {
	fan := func(n int, ref string) map[string]any {
		props := map[string]any{}
		for i := range n {
			props[fmt.Sprint("p", i)] = map[string]any{"$ref": ref}
		}
		return map[string]any{"type": "object", "properties": props}
	}
	levels := map[string]any{"l5": map[string]any{"type": "string"}}
	for i := 4; i >= 0; i-- {
		levels[fmt.Sprint("l", i)] = fan(40, fmt.Sprintf("#/$defs/l%d", i+1))
	}
	fanOut := fan(40, "#/$defs/l0")
	fanOut["$defs"] = levels
	mutual := fan(8, "#/$defs/a")
	mutual["$defs"] = map[string]any{"a": fan(8, "#/$defs/b"), "b": fan(8, "#/$defs/a")}
	tests := []struct {
		name   string
		params map[string]any
		call   string
	}{
		{"self", fan(8, "#"), `{"p0":{"p1":{"p7":{}}}}`},
		{"mutual", mutual, `{"p0":{"p1":{"p7":{}}}}`},
		{"fan-out", fanOut, `{"p0":{"p1":{"p2":{"p3":{"p4":{"p5":"x"}}}}}}`},
	}
	reg := mustRegistry(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, err := compileWithin(t, reg, ToolDef{Name: "t", Parameters: tt.params})
			if err != nil {
				t.Fatal(err)
			}
			if raw, _ := json.Marshal(tool.Example()); len(raw) > 64<<10 {
				t.Errorf("an example of %d bytes", len(raw))
			}
			opts := Options{Tools: []*Tool{tool}}
			if res := reg.Validate(Call{Name: "t", Form: FormText, Text: tt.call}, opts); !res.OK() {
				t.Errorf("%s: violations %v", tt.call, res.Violations)
			}
			if res := reg.Validate(Call{Name: "t", Form: FormText, Text: `{"p0":{"zz":1}}`}, opts); res.OK() {
				t.Errorf("an undeclared nested parameter is usable")
			}
		})
	}
}

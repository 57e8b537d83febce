package repair

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// schemaID is the id every tool schema is compiled under: no file URL, so
// a relative reference cannot reach the file system, and no tool name,
// whose characters (#, %) would change the URL's meaning.
const schemaID = "toolguard:///parameters.json"

// maxRefRunes bounds a reference quoted in an error.
const maxRefRunes = 200

// maxSchemaErrorRunes bounds a compilation error, which quotes the schema.
const maxSchemaErrorRunes = 800

// SchemaRefError reports a schema that refers outside itself. Schemas are
// compiled from memory only: loading would let a caller read the server's
// files, or block it on a FIFO.
type SchemaRefError struct {
	// Ref is the reference as written (cut when long), or its URL when no
	// keyword names it.
	Ref string
	// Keyword is the JSON pointer of the keyword holding it, or "".
	Keyword string
}

func (e *SchemaRefError) Error() string {
	at := ""
	if e.Keyword != "" {
		at = " at " + e.Keyword
	}
	rule := "a schema may refer only to itself (#/...)"
	if strings.HasSuffix(e.Keyword, "/$schema") {
		rule = "$schema may name only a standard draft"
	}
	return fmt.Sprintf("reference %q%s is not allowed: %s; nothing is loaded from files or the network", e.Ref, at, rule)
}

// errLoadRefused is what the compiler hears; callers get a SchemaRefError.
var errLoadRefused = errors.New("schema loading is refused")

// refusingLoader loads nothing and notes what it was asked for (the
// standard metaschemas are built into the library).
type refusingLoader struct{ asked []string }

func (l *refusingLoader) Load(u string) (any, error) {
	l.asked = append(l.asked, u)
	return nil, errLoadRefused
}

// refError names the keyword of doc that made the compiler ask for a URL.
func refError(doc any, asked string) *SchemaRefError {
	return findRefError(doc, asked, func(u string) bool { return u == asked })
}

// metaPathError refuses a reference to a folder of the library's built-in
// metaschemas, whose error would name its own embedded paths.
func metaPathError(doc any, pe *fs.PathError) *SchemaRefError {
	want := strings.Trim(strings.TrimPrefix(pe.Path, "metaschemas/"), "/")
	return findRefError(doc, "https://json-schema.org/"+want, func(u string) bool {
		for _, host := range []string{"http://json-schema.org/", "https://json-schema.org/"} {
			if rest, ok := strings.CutPrefix(u, host); ok && strings.Trim(rest, "/") == want {
				return true
			}
		}
		return false
	})
}

// findRefError names the first reference of doc whose URL matches, or fallback.
func findRefError(doc any, fallback string, match func(resolved string) bool) *SchemaRefError {
	base, _ := url.Parse(schemaID)
	if ref, ptr, ok := findRef(doc, base, "", match); ok {
		return &SchemaRefError{Ref: clipText(ref, maxRefRunes), Keyword: clipText(ptr, maxRefRunes)}
	}
	return &SchemaRefError{Ref: clipText(fallback, maxRefRunes)}
}

// findRef walks doc depth first, keys in order: the same schema always
// names the same keyword.
func findRef(v any, base *url.URL, ptr string, match func(string) bool) (ref, at string, ok bool) {
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			if ref, at, ok := findRef(e, base, fmt.Sprintf("%s/%d", ptr, i), match); ok {
				return ref, at, true
			}
		}
	case map[string]any:
		if id, ok := x["$id"].(string); ok {
			if u, err := url.Parse(withoutFragment(id)); err == nil {
				base = base.ResolveReference(u)
			}
		}
		// The library reads $schema as written, without resolving it.
		if s, ok := x["$schema"].(string); ok && match(withoutFragment(s)) {
			return s, ptr + "/$schema", true
		}
		for _, k := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
			if s, ok := x[k].(string); ok && match(resolve(base, s)) {
				return s, ptr + "/" + k, true
			}
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if ref, at, ok := findRef(x[k], base, ptr+"/"+escapePointer(k), match); ok {
				return ref, at, true
			}
		}
	}
	return "", "", false
}

// resolve reads ref against base without its fragment, as the compiler does.
func resolve(base *url.URL, ref string) string {
	u, err := url.Parse(withoutFragment(ref))
	if err != nil {
		return ""
	}
	return base.ResolveReference(u).String()
}

func withoutFragment(s string) string {
	s, _, _ = strings.Cut(s, "#")
	return s
}

// escapePointer escapes a key as a JSON pointer token (RFC 6901).
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// clippedError cuts an error's text to maxSchemaErrorRunes.
type clippedError struct{ err error }

func (e clippedError) Error() string { return clipText(e.err.Error(), maxSchemaErrorRunes) }
func (e clippedError) Unwrap() error { return e.err }

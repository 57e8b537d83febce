package repair

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// unquote takes the quotes off a string value that is wholly one JSON
// string literal ("\"a.txt\"", "\"edit\""), when the evidence holds: the
// schema wants the unquoted value (a member of its enum the quoted one is
// not), or the parameter is a path, which never keeps quotes.
func (p *pipeline) unquote(v any, s *jsonschema.Schema, path string) (any, bool) {
	str, ok := v.(string)
	if !ok || len(str) < 2 || str[0] != '"' || str[len(str)-1] != '"' {
		return v, false
	}
	var inner string
	if json.Unmarshal([]byte(str), &inner) != nil {
		return v, false
	}
	s = deref(s)
	switch {
	case s != nil && s.Enum != nil:
		if !slices.Contains(s.Enum.Values, any(inner)) || slices.Contains(s.Enum.Values, any(str)) {
			return v, false
		}
	case !p.reg.isPathName(path[strings.LastIndexByte(path, '/')+1:]):
		return v, false
	}
	p.res.repair(CodeDoubleEncoded, path, "the value "+quote(str)+" was a JSON string literal: took its quotes off")
	return inner, true
}

// isPathName reports whether a parameter name is the path's, or one of its
// spellings (the path group of the tools files).
func (r *Registry) isPathName(name string) bool {
	if name == "path" {
		return true
	}
	for _, g := range r.groups {
		if g.Param == "path" && slices.Contains(g.Aliases, name) {
			return true
		}
	}
	return false
}

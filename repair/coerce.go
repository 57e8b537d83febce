package repair

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// normalizeObject renames aliases to canonical names, then coerces each
// value and recurses.
func (p *pipeline) normalizeObject(m map[string]any, s *jsonschema.Schema, path string, top bool) {
	props := propsOf(s)
	if props == nil {
		return
	}
	// Renames run in key order, so map order does not pick which spelling wins.
	var renames []alias
	for k := range m {
		if _, ok := props[k]; ok {
			continue
		}
		if c := p.tool.canonicalParam(k, s); c != "" {
			renames = append(renames, alias{k, c})
		}
	}
	slices.SortFunc(renames, func(a, b alias) int { return strings.Compare(a.spelling, b.spelling) })
	for _, a := range renames {
		p.renameAlias(m, a, path, top)
	}
	for k, v := range m {
		if ps, ok := props[k]; ok {
			m[k] = p.normalizeValue(v, ps, joinPath(path, k), top && p.literal[k])
		}
	}
}

type alias struct{ spelling, canonical string }

func (p *pipeline) renameAlias(m map[string]any, a alias, path string, top bool) {
	k, c := a.spelling, a.canonical
	v := m[k]
	delete(m, k)
	lit := top && p.literal[k]
	if top {
		delete(p.literal, k)
	}
	old, exists := m[c]
	switch {
	case !exists:
		m[c] = v
		p.res.repair(CodeAliasRenamed, joinPath(path, c), fmt.Sprintf("%s renamed to %q", quote(k), c))
	case reflect.DeepEqual(old, v) || v == "":
		p.res.repair(CodeDuplicateDropped, joinPath(path, c), fmt.Sprintf("dropped %s, which repeats %q", quote(k), c))
		return
	case old == "":
		m[c] = v
		p.res.repair(CodeAliasRenamed, joinPath(path, c), fmt.Sprintf("%s renamed to %q, replacing an empty %q", quote(k), c, c))
	default:
		p.res.Violate(CodeConflictingParams, joinPath(path, c), fmt.Sprintf("Both %q and %s were given, with different values; send only %q.", c, quote(k), c))
		return
	}
	if top && lit {
		p.literal[c] = true
	}
}

// normalizeValue coerces v where the intent is plain, then normalises inside it.
func (p *pipeline) normalizeValue(v any, s *jsonschema.Schema, path string, literal bool) any {
	if nv, how, ok := p.readXMLValue(v, s, path); ok {
		p.res.repair(CodeTypeCoerced, path, how)
		v = nv
	}
	t := typesOf(s)
	if nv, how, ok := coerce(v, t, itemsOf(s)); ok {
		if !literal {
			p.res.repair(CodeTypeCoerced, path, how)
		}
		v = nv
	}
	switch x := v.(type) {
	case map[string]any:
		p.normalizeObject(x, s, path, false)
	case []any:
		items := itemsOf(s)
		if items != nil {
			for i, e := range x {
				x[i] = p.normalizeValue(e, items, joinPath(path, fmt.Sprint(i)), false)
			}
		}
	}
	return v
}

// coerce converts v to a type the schema admits when v is plainly that value
// in another dress ("true", "3", a stringified array, 3 for a string).
func coerce(v any, t jsonTypes, items *jsonschema.Schema) (any, string, bool) {
	if t == 0 {
		return nil, "", false
	}
	switch x := v.(type) {
	case string:
		if !t.has(typeString) {
			return coerceString(strings.TrimSpace(x), t)
		}
	case json.Number:
		if !t.has(typeNumber) && !(t.has(typeInteger) && isIntegral(x)) && t.has(typeString) {
			return string(x), "number to string", true
		}
	case bool:
		if !t.has(typeBoolean) && t.has(typeString) {
			return fmt.Sprint(x), "boolean to string", true
		}
	case map[string]any:
		if !t.has(typeObject) && t.has(typeArray) && typesOf(items).has(typeObject) {
			return []any{x}, "single object wrapped in an array", true
		}
	}
	return nil, "", false
}

// coerceString converts a trimmed string to a non-string type t admits.
func coerceString(s string, t jsonTypes) (any, string, bool) {
	switch {
	case t.has(typeBoolean) && strings.EqualFold(s, "true"):
		return true, `string "true" to boolean`, true
	case t.has(typeBoolean) && strings.EqualFold(s, "false"):
		return false, `string "false" to boolean`, true
	case t.has(typeNull) && (s == "null" || s == "None"):
		return nil, "string to null", true
	case (t.has(typeInteger) || t.has(typeNumber)) && isJSONNumber(s):
		if n := json.Number(s); t.has(typeNumber) || isIntegral(n) {
			return n, fmt.Sprintf("string %s to number", quote(s)), true
		}
	case (t.has(typeArray) || t.has(typeObject)) && looksLikeJSONContainer(s):
		return coerceContainer(s, t)
	}
	return nil, "", false
}

// coerceContainer parses a stringified array or object the schema admits.
func coerceContainer(s string, t jsonTypes) (any, string, bool) {
	r, err := RepairJSON(s, JSONOptions{})
	if err != nil || r.Truncated {
		return nil, "", false
	}
	how := ""
	if len(r.Repairs) > 0 {
		how = " (repaired: " + r.Repairs[0].Detail + ")"
	}
	switch r.Value.(type) {
	case []any:
		if t.has(typeArray) {
			return r.Value, "stringified array to array" + how, true
		}
	case map[string]any:
		if t.has(typeObject) {
			return r.Value, "stringified object to object" + how, true
		}
	}
	return nil, "", false
}

func isJSONNumber(s string) bool {
	if s == "" {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}

func isIntegral(n json.Number) bool {
	_, err := n.Int64()
	return err == nil
}

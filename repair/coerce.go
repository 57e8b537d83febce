package repair

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolguard/toolguard/repair/jsonrepair"
)

// normalizeObject renames aliases to canonical names, then coerces each
// value and recurses.
func (p *pipeline) normalizeObject(m map[string]any, s *jsonschema.Schema, path string) {
	props := propsOf(s)
	if props == nil {
		return
	}
	// Renames run in key order, so map order does not pick which spelling
	// wins. The commentary is found in the same pass: a key no rename
	// takes, which renames leave as it was.
	var room [4]alias
	var commentaryRoom [4]string
	renames, commentary := room[:0], commentaryRoom[:0]
	for k := range m {
		if _, ok := props[k]; ok {
			continue
		}
		if c := p.tool.canonicalParam(k, s); c != "" {
			renames = append(renames, alias{k, c})
		} else if _, ok := p.reg.commentaryRank[k]; ok {
			commentary = append(commentary, k)
		}
	}
	slices.SortFunc(renames, func(a, b alias) int { return strings.Compare(a.spelling, b.spelling) })
	for _, a := range renames {
		p.renameAlias(m, a, path)
	}
	p.dropCommentary(m, commentary, path)
	p.renameNearMiss(m, s, props, path)
	// In key order, so that the same call lists its repairs in the same
	// order every time.
	var declaredRoom [8]string
	declared := declaredRoom[:0]
	for k := range m {
		if _, ok := props[k]; ok {
			declared = append(declared, k)
		}
	}
	slices.Sort(declared)
	for _, k := range declared {
		m[k] = p.normalizeValue(m[k], props[k], joinPath(path, k))
	}
}

type alias struct{ spelling, canonical string }

func (p *pipeline) renameAlias(m map[string]any, a alias, path string) {
	k, c := a.spelling, a.canonical
	v := m[k]
	delete(m, k)
	old, exists := m[c]
	switch {
	case !exists:
		m[c] = v
		p.res.repair(CodeAliasRenamed, joinPath(path, c), quotedDetail("", k, " renamed to ", c))
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
}

// normalizeValue coerces v where the intent is plain, then normalises inside
// it. Values that arrived as strings (XML, params) are reported like JSON
// ones: both forms say the same about the same call.
func (p *pipeline) normalizeValue(v any, s *jsonschema.Schema, path string) any {
	if nv, how, ok := p.readXMLValue(v, s, path); ok {
		p.res.repair(CodeTypeCoerced, path, how)
		v = nv
	}
	if alts, keyword := alternativesOf(s); alts != nil {
		return p.normalizeAlternative(v, alts, keyword, path)
	}
	if nv, how, ok := coerce(v, typesOf(s), itemsOf(s)); ok {
		p.res.repair(CodeTypeCoerced, path, how)
		v = nv
	}
	if nv, ok := p.unquote(v, s, path); ok {
		v = nv
	}
	return p.normalizeInside(v, s, path)
}

// normalizeInside normalises the members or elements of v against s.
func (p *pipeline) normalizeInside(v any, s *jsonschema.Schema, path string) any {
	switch x := v.(type) {
	case map[string]any:
		p.normalizeObject(x, s, path)
	case []any:
		items := itemsOf(s)
		if items != nil {
			for i, e := range x {
				x[i] = p.normalizeValue(e, items, joinPath(path, fmt.Sprint(i)))
			}
		}
	}
	return v
}

// maxAlternativeChecks bounds the objects and arrays one call validates
// against alternatives to see whether one takes them as they are: each
// check is a pass over the value, which a recursive schema would repeat at
// every level. Past it, their shape decides.
const maxAlternativeChecks = 8

// normalizeAlternative settles v on one alternative of anyOf/oneOf (the
// way Pydantic writes Optional[int]). A value some alternative accepts is
// left alone ("5" stays a string where a string is allowed; an object is
// never encoded as a string). Otherwise an object or array (given as is or
// stringified) is normalised against the alternative of its type closest
// to its shape, a scalar becomes the first alternative that accepts it
// once coerced, and failing those v becomes the first alternative it can,
// for the check to say what is still wrong.
func (p *pipeline) normalizeAlternative(v any, alts []*jsonschema.Schema, keyword, path string) any {
	if isContainer(v) {
		if nv, i := p.settleContainer(v, alts, keyword, path); i >= 0 {
			return nv
		}
	}
	for _, a := range alts {
		if a.Validate(v) == nil {
			return v
		}
	}
	if s, isStr := v.(string); isStr && looksLikeJSONContainer(s) {
		var all jsonTypes
		for _, a := range alts {
			all |= typesOf(a)
		}
		if parsed, how, ok := coerceContainer(strings.TrimSpace(s), all); ok {
			nv, i := p.settleContainer(parsed, alts, keyword, path)
			p.res.repair(CodeTypeCoerced, path, how+alternativeLabel(keyword, i, alts[i]))
			return nv
		}
	}
	pick := -1
	for i, a := range alts {
		nv, _, coerced := coerce(v, typesOf(a), itemsOf(a))
		switch {
		case !coerced && !canBecome(v, a):
			continue
		case coerced && a.Validate(nv) == nil:
			return p.settleOn(v, alts, i, keyword, path)
		case pick < 0:
			pick = i
		}
	}
	if pick < 0 {
		return v
	}
	return p.settleOn(v, alts, pick, keyword, path)
}

// settleContainer settles an object or array on the alternative of its
// type: the only one, else one that accepts it as it is, else the one
// closest to its shape. It returns the value and the alternative's index,
// -1 when none has its type.
func (p *pipeline) settleContainer(v any, alts []*jsonschema.Schema, keyword, path string) (any, int) {
	own := ownTypeAlternatives(alts, v)
	if len(own) == 0 {
		return v, -1
	}
	if len(own) > 1 && p.checks > 0 {
		p.checks--
		for _, i := range own {
			if alts[i].Validate(v) == nil {
				return v, i
			}
		}
	}
	i := p.closestShape(v, alts, own)
	return p.settleOn(v, alts, i, keyword, path), i
}

// settleOn normalises v against alternative i.
func (p *pipeline) settleOn(v any, alts []*jsonschema.Schema, i int, keyword, path string) any {
	n := len(p.res.Repairs)
	v = p.normalizeValue(v, alts[i], path)
	p.nameAlternative(n, path, keyword, i, alts[i])
	return v
}

// closestShape returns, of the alternatives own, the one an object's
// members fit best (fewest members it does not declare, constants it
// contradicts, required members absent): the discriminator of a tagged
// union decides. The first wins a tie, and arrays.
func (p *pipeline) closestShape(v any, alts []*jsonschema.Schema, own []int) int {
	m, isObj := v.(map[string]any)
	if !isObj {
		return own[0]
	}
	best, fewest := own[0], -1
	for _, i := range own {
		props := propsOf(alts[i])
		misses := 0
		for k, e := range m {
			ps, ok := props[k]
			if !ok && p.tool.canonicalParam(k, alts[i]) == "" {
				misses++
			}
			if c := deref(ps); c != nil && c.Const != nil && !reflect.DeepEqual(*c.Const, e) {
				misses++
			}
		}
		for _, r := range requiredOf(alts[i]) {
			if _, ok := m[r]; !ok {
				misses++
			}
		}
		if fewest < 0 || misses < fewest {
			best, fewest = i, misses
		}
	}
	return best
}

// ownTypeAlternatives returns the indexes of the alternatives of v's own
// type.
func ownTypeAlternatives(alts []*jsonschema.Schema, v any) []int {
	var out []int
	for i, a := range alts {
		if t := typesOf(a); t != 0 && admits(t, v) {
			out = append(out, i)
		}
	}
	return out
}

func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// canBecome reports whether v has, or can be coerced to, a type a admits.
func canBecome(v any, a *jsonschema.Schema) bool {
	if alts, _ := alternativesOf(a); alts != nil {
		return true
	}
	t := typesOf(a)
	if t != 0 && admits(t, v) {
		return true
	}
	_, _, ok := coerce(v, t, itemsOf(a))
	return ok
}

// nameAlternative adds the alternative chosen to the coercion of path
// recorded since repair n.
func (p *pipeline) nameAlternative(n int, path, keyword string, i int, a *jsonschema.Schema) {
	for k := n; k < len(p.res.Repairs); k++ {
		if r := &p.res.Repairs[k]; r.Code == CodeTypeCoerced && r.Param == path {
			r.Detail += alternativeLabel(keyword, i, a)
		}
	}
}

func alternativeLabel(keyword string, i int, a *jsonschema.Schema) string {
	return fmt.Sprintf(" (%s alternative %d: %s)", keyword, i+1, describeType(typesOf(a)))
}

// admits reports whether a value of v's JSON type is one t allows.
func admits(t jsonTypes, v any) bool {
	switch x := v.(type) {
	case nil:
		return t.has(typeNull)
	case bool:
		return t.has(typeBoolean)
	case json.Number:
		return t.has(typeNumber) || t.has(typeInteger) && isIntegral(x)
	case string:
		return t.has(typeString)
	case []any:
		return t.has(typeArray)
	case map[string]any:
		return t.has(typeObject)
	}
	return false
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
	r, err := jsonrepair.Repair(s, jsonrepair.Options{})
	if err != nil || r.Truncated {
		return nil, "", false
	}
	how := ""
	if len(r.Fixes) > 0 {
		how = " (repaired: " + r.Fixes[0].Detail + ")"
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

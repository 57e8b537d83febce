package repair

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// deref follows $ref chains, and allOf wrapping a lone schema (older
// Pydantic), so callers see the schema that holds keywords.
func deref(s *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; s != nil && i < 32; i++ {
		switch {
		case s.Ref != nil:
			s = s.Ref
		case len(s.AllOf) == 1 && s.Types == nil && s.Properties == nil && s.Items == nil && s.Items2020 == nil &&
			s.AnyOf == nil && s.OneOf == nil:
			s = s.AllOf[0]
		default:
			return s
		}
	}
	return s
}

// alternativesOf returns the schemas of an anyOf (or oneOf) that stands
// for the type, and which keyword it was; nil when the schema has its own
// type or no alternatives.
func alternativesOf(s *jsonschema.Schema) ([]*jsonschema.Schema, string) {
	s = deref(s)
	switch {
	case s == nil || s.Types != nil:
		return nil, ""
	case len(s.AnyOf) > 0:
		return s.AnyOf, "anyOf"
	case len(s.OneOf) > 0:
		return s.OneOf, "oneOf"
	}
	return nil, ""
}

func propsOf(s *jsonschema.Schema) map[string]*jsonschema.Schema {
	s = deref(s)
	if s == nil {
		return nil
	}
	return s.Properties
}

// itemsOf returns the schema every array item must match, or nil.
func itemsOf(s *jsonschema.Schema) *jsonschema.Schema {
	s = deref(s)
	if s == nil {
		return nil
	}
	if s.Items2020 != nil {
		return s.Items2020
	}
	if it, ok := s.Items.(*jsonschema.Schema); ok {
		return it
	}
	return nil
}

// jsonTypes is the set of JSON types a schema admits; zero means any.
type jsonTypes uint8

const (
	typeNull jsonTypes = 1 << iota
	typeBoolean
	typeInteger
	typeNumber
	typeString
	typeArray
	typeObject
)

func (t jsonTypes) has(u jsonTypes) bool { return t&u != 0 }

// schemaTypeBits pairs the schema library's bit for each JSON type, taken
// from its own Types.Add, with ours.
var schemaTypeBits = func() []typeBit {
	// In the order of the constants above.
	names := []string{"null", "boolean", "integer", "number", "string", "array", "object"}
	out := make([]typeBit, len(names))
	for i, name := range names {
		out[i].lib.Add(name)
		out[i].t = typeNull << i
	}
	return out
}()

type typeBit struct {
	lib jsonschema.Types
	t   jsonTypes
}

// typesOf returns the types a schema admits, from "type" or its "enum" values.
func typesOf(s *jsonschema.Schema) jsonTypes {
	s = deref(s)
	if s == nil {
		return 0
	}
	var t jsonTypes
	if s.Types != nil {
		// Bit by bit: the library's list of names is a new slice each time.
		for _, b := range schemaTypeBits {
			if *s.Types&b.lib != 0 {
				t |= b.t
			}
		}
	}
	return t
}

// declaredParams returns the parameter names a schema declares at the top
// level and at any depth.
func declaredParams(s *jsonschema.Schema) (top, all map[string]bool) {
	top, all = map[string]bool{}, map[string]bool{}
	for p := range propsOf(s) {
		top[p] = true
	}
	// A schema is walked again only when reached shallower: references
	// fanning out level after level would make the walk exponential.
	seen := map[*jsonschema.Schema]int{}
	var walk func(s *jsonschema.Schema, depth int)
	walk = func(s *jsonschema.Schema, depth int) {
		s = deref(s)
		if s == nil || depth > 16 {
			return
		}
		if d, ok := seen[s]; ok && d <= depth {
			return
		}
		seen[s] = depth
		for p, ps := range propsOf(s) {
			all[p] = true
			walk(ps, depth+1)
		}
		walk(itemsOf(s), depth+1)
		alts, _ := alternativesOf(s)
		for _, a := range alts {
			walk(a, depth+1)
		}
	}
	walk(s, 0)
	return top, all
}

func requiredOf(s *jsonschema.Schema) []string {
	s = deref(s)
	if s == nil {
		return nil
	}
	return s.Required
}

// paramOrder lists an object's properties as shown to models: required ones
// in order (the one ordered list a decoded schema has), then by name.
func paramOrder(s *jsonschema.Schema) []string {
	props := propsOf(s)
	var out []string
	seen := map[string]bool{}
	for _, r := range requiredOf(s) {
		if _, ok := props[r]; ok && !seen[r] {
			out = append(out, r)
			seen[r] = true
		}
	}
	rest := slices.Sorted(maps.Keys(props))
	for _, p := range rest {
		if !seen[p] {
			out = append(out, p)
		}
	}
	return out
}

// synthesizeExample builds plausible arguments for a tool without an example.
func synthesizeExample(s *jsonschema.Schema) map[string]any {
	budget := maxExampleValues
	v, _ := exampleValue("", s, 0, &budget).(map[string]any)
	return v
}

// maxExampleValues bounds a synthesised example, which references fanning
// out would make exponential.
const maxExampleValues = 500

func exampleValue(name string, s *jsonschema.Schema, depth int, budget *int) any {
	s = deref(s)
	*budget--
	if s == nil || depth > 4 || *budget < 0 {
		return name + " here"
	}
	if s.Default != nil {
		return *s.Default
	}
	if s.Enum != nil && len(s.Enum.Values) > 0 {
		return s.Enum.Values[0]
	}
	if s.Const != nil {
		return *s.Const
	}
	if alts, _ := alternativesOf(s); alts != nil {
		// The first alternative that is not null: an example shows a value.
		for _, a := range alts {
			if typesOf(a) != typeNull {
				return exampleValue(name, a, depth+1, budget)
			}
		}
	}
	t := typesOf(s)
	switch {
	case t.has(typeObject) || (t == 0 && s.Properties != nil):
		obj := map[string]any{}
		for _, p := range paramOrder(s) {
			obj[p] = exampleValue(p, s.Properties[p], depth+1, budget)
		}
		return obj
	case t.has(typeArray):
		return []any{exampleValue(name, itemsOf(s), depth+1, budget)}
	case t.has(typeString) || t == 0:
		if name == "" {
			return "value"
		}
		return name + " here"
	case t.has(typeBoolean):
		return true
	case t.has(typeInteger) || t.has(typeNumber):
		return 1
	default:
		return nil
	}
}

// strictCopy returns a deep copy of a schema in which every object that
// declares properties and is silent about others forbids them: dropping an
// unknown `append: true` could change a call's meaning. Composing schemas
// are left alone, whose other branches may declare more.
func strictCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x)+1)
		for k, e := range x {
			switch k {
			case "enum", "const", "default", "examples", "example":
				out[k] = e // values, not schemas
			default:
				out[k] = strictCopy(e)
			}
		}
		if _, hasProps := x["properties"]; hasProps && !hasAny(x, "additionalProperties", "patternProperties",
			"unevaluatedProperties", "allOf", "anyOf", "oneOf", "$ref", "if") {
			out["additionalProperties"] = false
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = strictCopy(e)
		}
		return out
	default:
		return v
	}
}

func hasAny(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// describeType names types for messages ("an array or null").
func describeType(t jsonTypes) string {
	var names []string
	for _, e := range []struct {
		t jsonTypes
		n string
	}{{typeString, "a string"}, {typeInteger, "an integer"}, {typeNumber, "a number"}, {typeBoolean, "a boolean"},
		{typeArray, "an array"}, {typeObject, "an object"}, {typeNull, "null"}} {
		if t.has(e.t) {
			names = append(names, e.n)
		}
	}
	switch len(names) {
	case 0:
		return "any value"
	case 1:
		return names[0]
	default:
		return fmt.Sprintf("%s or %s", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	}
}

// maxKeyLevels bounds the object depths keyLevels follows.
const maxKeyLevels = 16

// keyLevels lists the keys the schema declares by the depth of the object
// they stand in, the parameters' object first, for JSON repair
// (jsonrepair.Options.Levels). A depth at which some value the schema
// allows may be an object it lists no keys for (an untyped value,
// {type: object}, an array without an item schema) expects any key, and so
// does every depth below it: there the text's structure decides alone.
func keyLevels(s *jsonschema.Schema) []map[string]bool {
	var levels []map[string]bool
	open := maxKeyLevels // the first depth that expects any key
	seen := map[*jsonschema.Schema]int{}
	var walk func(s *jsonschema.Schema, d int)
	walk = func(s *jsonschema.Schema, d int) {
		s = deref(s)
		if d >= open {
			return
		}
		if s == nil {
			open = d
			return
		}
		// A schema is walked again only when reached shallower.
		if sd, ok := seen[s]; ok && sd <= d {
			return
		}
		seen[s] = d
		if alts, _ := alternativesOf(s); len(alts) > 0 {
			for _, a := range alts {
				walk(a, d)
			}
			return
		}
		types := allowedTypes(s)
		if types == nil && s.Properties == nil && itemsOf(s) == nil {
			open = d // untyped: any value, objects of any keys included
			return
		}
		if types == nil || types["object"] {
			props := propsOf(s)
			if len(props) == 0 {
				open = d
				return
			}
			for len(levels) <= d {
				levels = append(levels, map[string]bool{})
			}
			for k, ps := range props {
				levels[d][k] = true
				walk(ps, d+1)
			}
		}
		if types == nil || types["array"] {
			if it := itemsOf(s); it != nil {
				walk(it, d)
			} else if types["array"] {
				open = d
			}
		}
	}
	walk(s, 0)
	if open < len(levels) {
		levels = levels[:open]
	}
	return levels
}

// allowedTypes are the JSON types a schema names, or nil when it names none.
func allowedTypes(s *jsonschema.Schema) map[string]bool {
	if s.Types == nil || s.Types.IsEmpty() {
		return nil
	}
	out := map[string]bool{}
	for _, t := range s.Types.ToStrings() {
		out[t] = true
	}
	return out
}

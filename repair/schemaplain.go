package repair

import "encoding/json"

// The schema check of a write call validates whole file contents, and the
// schema library copies every string it checks; a parameter whose schema
// only says "a string" cannot fail on what the string holds. The check
// validates such values as "" instead: the same findings, without the copy.

// plainStringKeys are the keywords a parameter's schema may have and still
// be only "a string": its type and annotations, which assert nothing.
var plainStringKeys = map[string]bool{
	"type": true, "description": true, "title": true, "$comment": true,
	"examples": true, "default": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// plainRootKeys are the keywords of a parameters schema that look at its
// properties' values only through their own schemas.
var plainRootKeys = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"description": true, "title": true, "$comment": true, "$schema": true,
}

// plainStringParams returns the top-level parameters whose schema is only
// {"type": "string"} (with annotations), when the root schema constrains
// values by nothing else; nil when there are none or the root does more.
func plainStringParams(params map[string]any) map[string]bool {
	for k, v := range params {
		if !plainRootKeys[k] {
			return nil
		}
		if _, isBool := v.(bool); k == "additionalProperties" && !isBool {
			return nil
		}
	}
	if t, ok := params["type"]; ok && t != "object" {
		return nil
	}
	props, _ := params["properties"].(map[string]any)
	var out map[string]bool
	for name, s := range props {
		if isPlainString(s) {
			if out == nil {
				out = map[string]bool{}
			}
			out[name] = true
		}
	}
	return out
}

func isPlainString(schema any) bool {
	s, ok := schema.(map[string]any)
	if !ok || s["type"] != "string" {
		return false
	}
	for k := range s {
		if !plainStringKeys[k] {
			return false
		}
	}
	return true
}

// plainStringSize is the length from which a plain string is validated as
// "": below it, copying the arguments costs more than the string.
const plainStringSize = 4096

// closedRootParams returns the parameters a root schema declares when all
// it says of any other is that it is not allowed (additionalProperties:
// false, plain root keywords); nil otherwise. The check then names the
// others itself instead of having the schema library list and copy them,
// a million for a million unknown keys.
func closedRootParams(params map[string]any) map[string]bool {
	for k := range params {
		if !plainRootKeys[k] {
			return nil
		}
	}
	if params["additionalProperties"] != false {
		return nil
	}
	if t, ok := params["type"]; ok && t != "object" {
		return nil
	}
	props, _ := params["properties"].(map[string]any)
	out := make(map[string]bool, len(props))
	for name := range props {
		out[name] = true
	}
	return out
}

// schemaInput returns the arguments as the schema check sees them: long
// values of plain string parameters as "", and under a closed root
// (closedRootParams) without the parameters it does not declare, which it
// returns.
func (t *Tool) schemaInput(args map[string]any) (map[string]any, []string) {
	var out map[string]any
	var undeclared []string
	if t.closedRoot != nil {
		declared := 0
		for _, k := range t.closedRootList {
			if _, ok := args[k]; ok {
				declared++
			}
		}
		if n := len(args) - declared; n > 0 {
			out, undeclared = make(map[string]any, declared), make([]string, 0, n)
			for k, v := range args {
				if t.closedRoot[k] {
					out[k] = v
				} else {
					undeclared = append(undeclared, k)
				}
			}
		}
	}
	for _, name := range t.plainStringList {
		s, ok := args[name].(string)
		if !ok || len(s) < plainStringSize {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(args))
			for k, v := range args {
				out[k] = v
			}
		}
		out[name] = ""
	}
	if out == nil {
		return args, nil
	}
	return out, undeclared
}

// plainRoot is a parameters schema the check can apply without the schema
// library: an object whose properties, declared or not, are constrained
// only by their JSON type (simpleTypes), and that says nothing else than
// which are required. Most built-in tools have one (write_to_file,
// read_file...), and so do tools that take any parameter of some types;
// the library's validation of even a valid call allocates some forty
// times, and walks a call of many parameters member by member.
type plainRoot struct {
	props map[string]jsonTypes
	// others are the types an undeclared property may have; none when the
	// schema forbids them (additionalProperties: false).
	others   jsonTypes
	required []string
}

// anyType is every JSON type: a schema that says nothing of a value.
const anyType = typeNull | typeBoolean | typeInteger | typeNumber | typeString | typeArray | typeObject

// plainRootOf returns params' plainRoot, as compiled (strictCopy), or nil
// when it says more.
func plainRootOf(params map[string]any) *plainRoot {
	r := &plainRoot{props: map[string]jsonTypes{}, others: anyType}
	if _, hasProps := params["properties"]; hasProps {
		r.others = 0 // properties and silence about others forbid them (strictCopy)
	}
	for k, v := range params {
		switch {
		case !plainRootKeys[k]:
			return nil
		case k == "additionalProperties":
			if b, ok := v.(bool); ok {
				r.others = 0
				if b {
					r.others = anyType
				}
				break
			}
			t, ok := simpleTypes(v)
			if !ok {
				return nil
			}
			r.others = t
		}
	}
	if t, ok := params["type"]; ok && t != "object" {
		return nil
	}
	if p, ok := params["properties"]; ok {
		props, ok := p.(map[string]any)
		if !ok {
			return nil
		}
		for name, s := range props {
			t, ok := simpleTypes(s)
			if !ok {
				return nil
			}
			r.props[name] = t
		}
	}
	if req, ok := params["required"]; ok {
		names, ok := req.([]any)
		if !ok {
			return nil
		}
		for _, n := range names {
			name, ok := n.(string)
			if !ok {
				return nil
			}
			r.required = append(r.required, name)
		}
	}
	return r
}

// simpleTypes returns the JSON types a schema admits when it says nothing
// else of a value than its type (with annotations, plainStringKeys); no
// type is any. False when it says more, or what the library would read
// otherwise (an unknown or empty type list).
func simpleTypes(schema any) (jsonTypes, bool) {
	s, ok := schema.(map[string]any)
	if !ok {
		return 0, false
	}
	for k := range s {
		if !plainStringKeys[k] {
			return 0, false
		}
	}
	t, ok := s["type"]
	if !ok {
		return anyType, true
	}
	names, isList := t.([]any)
	if !isList {
		names = []any{t}
	}
	var out jsonTypes
	for _, n := range names {
		name, _ := n.(string)
		bit, ok := typeNamed[name]
		if !ok || out.has(bit) {
			return 0, false
		}
		out |= bit
	}
	return out, out != 0
}

// typeNamed is the type bit of each JSON type's name in a schema.
var typeNamed = map[string]jsonTypes{
	"null": typeNull, "boolean": typeBoolean, "integer": typeInteger, "number": typeNumber,
	"string": typeString, "array": typeArray, "object": typeObject,
}

// accepts says whether the schema accepts args for certain. It never says
// so of arguments the schema library would refuse; when it does not, the
// library checks them and says why. One pass over the arguments, with no
// work but a type test per value (admits, which leaves an integer it cannot
// read as int64 to the library).
func (r *plainRoot) accepts(args map[string]any) bool {
	ok, _ := r.acceptsRead(args, false)
	return ok
}

// acceptsRead is accepts, and reports whether each number of args is
// known to fit a float64, the range check's question: read as an int64
// (its type admits no other number), or one of integers, which says every
// number of args is a short integer (repair.Call.ParsedIntegers) and none
// need be read.
func (r *plainRoot) acceptsRead(args map[string]any, integers bool) (ok, numbersRead bool) {
	if r == nil {
		return false, false
	}
	for _, name := range r.required {
		if _, ok := args[name]; !ok {
			return false, false
		}
	}
	numbersRead = true
	for k, v := range args {
		t, declared := r.props[k]
		if !declared {
			t = r.others
		}
		if _, isNumber := v.(json.Number); isNumber {
			switch {
			case integers:
				if !t.has(typeNumber) && !t.has(typeInteger) {
					return false, false
				}
				continue
			case t.has(typeNumber):
				numbersRead = false
			}
		}
		if !admits(t, v) {
			return false, false
		}
	}
	return true, numbersRead
}

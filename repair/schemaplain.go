package repair

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

// schemaInput returns the arguments as the schema check sees them: long
// values of plain string parameters as "".
func (t *Tool) schemaInput(args map[string]any) map[string]any {
	var out map[string]any
	for name := range t.plainStrings {
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
		return args
	}
	return out
}

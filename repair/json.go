package repair

import "github.com/toolguard/toolguard/repair/jsonrepair"

// MaxJSONDepth bounds the nesting RepairJSON parses, so input cannot exhaust the stack.
const MaxJSONDepth = jsonrepair.MaxDepth

// ErrTooDeep is wrapped by RepairJSON's error for text nesting past
// MaxJSONDepth: no value rather than one cut short.
var ErrTooDeep = jsonrepair.ErrTooDeep

// ErrKeyQuote reports a key whose closing quote is missing before its
// colon, where the tool declares no such key: the text is not cut off, and
// guessing where the key ends could misread the call.
var ErrKeyQuote = jsonrepair.ErrKeyQuote

// ErrAmbiguousQuote reports a string whose end the text leaves open: a
// quote inside it could end it as well as the one that does, so either
// reading could be the model's and neither is chosen.
var ErrAmbiguousQuote = jsonrepair.ErrAmbiguousQuote

// RepairedJSON is the outcome of RepairJSON.
type RepairedJSON struct {
	// Value is map[string]any, []any, string, json.Number, bool or nil.
	Value any
	// Repairs (JSON_REPAIRED, PYTHON_LITERAL) is empty for valid JSON.
	Repairs []Repair
	// Truncated reports text that ended inside a value: Value shows what
	// arrived but is not the model's intent.
	Truncated bool
}

// JSONOptions make RepairJSON schema-aware.
type JSONOptions struct {
	// Keys are the object keys expected at any depth (nil: any). A quote
	// followed by a comma then ends a string only before one of them.
	Keys map[string]bool
	// ForCall: the text is a tool call's arguments or the envelope around
	// them, its schema not at hand; readings only a schema could settle are
	// refused (jsonrepair.Options.ForCall).
	ForCall bool
}

// RepairJSON parses text as JSON, repairing what models get wrong (quotes,
// Python literals, commas, colons, comments, escapes, fences and prose
// around, truncation), with jsonrepair.Repair; its fixes become repairs
// JSON_REPAIRED and PYTHON_LITERAL. Valid JSON takes the strict fast path.
// Nesting past MaxJSONDepth is an error wrapping ErrTooDeep.
func RepairJSON(text string, opts JSONOptions) (RepairedJSON, error) {
	r, err := jsonrepair.Repair(text, jsonrepair.Options{Keys: opts.Keys, ForCall: opts.ForCall})
	if err != nil {
		return RepairedJSON{}, err
	}
	out := RepairedJSON{Value: r.Value, Truncated: r.Truncated}
	if len(r.Fixes) > 0 {
		out.Repairs = make([]Repair, len(r.Fixes))
		for i, f := range r.Fixes {
			out.Repairs[i] = Repair{Code: fixCode[f.Kind], Detail: f.Detail}
		}
	}
	return out, nil
}

// fixCode names each kind of jsonrepair fix as a repair code.
var fixCode = [...]string{jsonrepair.Syntax: CodeJSONRepaired, jsonrepair.Python: CodePythonLiteral}

package repair

// RepairedJSON is the outcome of RepairJSON.
type RepairedJSON struct {
	// Value is the JSON value: map[string]any, []any, string, json.Number,
	// bool or nil.
	Value any
	// Repairs lists what was changed, each with code JSON_REPAIRED or
	// PYTHON_LITERAL; empty when the text was valid JSON.
	Repairs []Repair
	// Truncated reports that the text ended inside a value (a string, a
	// number, a key without its value): Value shows what arrived, closed,
	// but it must not be used as the model's intent.
	Truncated bool
}

// JSONOptions make RepairJSON schema-aware.
type JSONOptions struct {
	// Keys are the object keys the text is expected to hold (a tool's
	// parameter names and their aliases, at any depth). When set, a quote
	// inside a string ends it only if what follows fits the structure: a
	// comma and one of these keys, or a closing bracket. Nil means any key.
	Keys map[string]bool
}

// RepairJSON parses text as JSON, repairing what language models get wrong:
// single quotes and Python literals, missing or extra commas, missing colons
// and quotes, comments, smart quotes, bad escapes, raw control characters,
// code fences and prose around the value, truncation. Valid JSON takes the
// strict fast path and comes back with no repairs. An error means nothing
// could be recovered.
func RepairJSON(text string, opts JSONOptions) (RepairedJSON, error) {
	v, err := decodeJSON(text)
	if err == nil {
		return RepairedJSON{Value: v}, nil
	}
	return repairJSON(text, opts)
}

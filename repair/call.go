// Package repair owns everything toolguard knows about tool calls, without
// I/O: the tool registry (schemas, aliases, model-family variants), parsing
// of the three argument forms, repair of what models get wrong, schema
// validation with coercion, and the feedback text handed back to the model.
//
// The entry point is Registry.Validate. It is pure: the same call and options
// always give the same Result, so front ends (gRPC service, CLI, proxy) can
// count mistakes and execute on top of it.
package repair

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Form is the form a call's arguments arrived in.
type Form int

const (
	// FormText is a raw arguments text: JSON or something close to it.
	FormText Form = iota + 1
	// FormParams is a map of string parameters already split out of an XML
	// tool block.
	FormParams
	// FormXML is a whole XML tool block.
	FormXML
)

// String returns the form's name as used on the command line.
func (f Form) String() string {
	switch f {
	case FormText:
		return "json"
	case FormParams:
		return "params"
	case FormXML:
		return "xml"
	default:
		return "unknown"
	}
}

// Call is one tool call exactly as the model emitted it.
type Call struct {
	// Name is the tool name as written; may be empty for FormXML, whose
	// outer tag names the tool.
	Name string
	Form Form
	// Text holds the arguments text (FormText) or the whole block (FormXML).
	Text string
	// Params holds the split parameters (FormParams).
	Params map[string]string
}

// Repair is one change made to a call.
type Repair struct {
	Code string `json:"code"`
	// Param is the parameter concerned as a slash-separated path
	// ("todos/0/id"); empty for the whole call.
	Param  string `json:"param,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Violation is one problem that makes a call unusable.
type Violation struct {
	Code    string `json:"code"`
	Param   string `json:"param,omitempty"`
	Message string `json:"message"`
}

// MaxViolations and MaxRepairs bound the lists of a Result: a call with a
// million unknown parameters is one mistake, and listing every one would
// cost the server memory and the model context out of proportion to what
// it can act on. The rest are counted (ViolationsOmitted, RepairsOmitted).
const (
	MaxViolations = 50
	MaxRepairs    = 50
)

// Result is the outcome of repairing and validating one call.
type Result struct {
	// Tool is the resolved tool, nil when unknown.
	Tool *Tool
	// ToolName is the canonical name, or the name as given when unknown.
	ToolName string
	Form     Form
	// Family is the model family the call's model belongs to (FamilyOf).
	Family string
	// Args are the normalised arguments; nil when they could not be parsed.
	// Numbers are json.Number so integers keep their exact value.
	Args map[string]any
	// Repairs are the changes made, in order: the first MaxRepairs, then
	// the first of each code not listed yet.
	Repairs []Repair
	// RepairsOmitted counts the repairs left out of Repairs.
	RepairsOmitted int
	// Violations are the problems found, the first MaxViolations of them.
	Violations []Violation
	// ViolationsOmitted counts the problems found beyond Violations.
	ViolationsOmitted int
	// omittedCodes are the codes of the omitted violations, each once, so
	// Has still sees them.
	omittedCodes []string
}

// OK reports whether the call is usable.
func (r *Result) OK() bool { return len(r.Violations) == 0 && r.ViolationsOmitted == 0 }

// Has reports whether the result holds a violation with the given code,
// listed or omitted.
func (r *Result) Has(code string) bool {
	for _, v := range r.Violations {
		if v.Code == code {
			return true
		}
	}
	return slices.Contains(r.omittedCodes, code)
}

// OmittedCodes returns the codes of the omitted violations, each once. The
// result is shared with r and must not be modified.
func (r *Result) OmittedCodes() []string { return r.omittedCodes }

// ViolationCodes returns the codes of every violation, listed or omitted,
// each once, in order of first use.
func (r *Result) ViolationCodes() []string {
	var out []string
	for _, v := range r.Violations {
		if !slices.Contains(out, v.Code) {
			out = append(out, v.Code)
		}
	}
	for _, c := range r.omittedCodes {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// repair records a change. Past MaxRepairs only the first repair of each
// code is listed, so every kind of change made stays visible.
func (r *Result) repair(code, param, detail string) {
	if len(r.Repairs) >= MaxRepairs && slices.ContainsFunc(r.Repairs, func(x Repair) bool { return x.Code == code }) {
		r.RepairsOmitted++
		return
	}
	r.Repairs = append(r.Repairs, Repair{Code: code, Param: param, Detail: detail})
}

// Violate adds a violation, or counts it once MaxViolations are listed.
// Front ends use it for problems found outside the pure pipeline (a
// repeated call, a path outside the workspace).
func (r *Result) Violate(code, param, message string) {
	if len(r.Violations) >= MaxViolations {
		r.omit(code)
		return
	}
	r.Violations = append(r.Violations, Violation{Code: code, Param: param, Message: message})
}

func (r *Result) omit(code string) {
	r.ViolationsOmitted++
	if !slices.Contains(r.omittedCodes, code) {
		r.omittedCodes = append(r.omittedCodes, code)
	}
}

// EncodeArgs renders arguments as compact JSON (see EncodeJSON). Nil
// arguments encode as nil.
func EncodeArgs(args map[string]any) ([]byte, error) {
	if args == nil {
		return nil, nil
	}
	return EncodeJSON(args)
}

// EncodeJSON renders a JSON value as compact JSON with sorted keys and
// without HTML escaping, so file content such as "<div>" stays byte-for-byte
// itself.
func EncodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

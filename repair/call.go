// Package repair knows tool calls, without I/O: the tool registry, parsing
// of the argument forms, repair of what models get wrong, schema validation
// and the feedback handed back to the model. Registry.Validate is the entry
// point; the same call and options always give the same Result.
package repair

import (
	"slices"
)

// Form is the form a call's arguments arrived in.
type Form int

const (
	// FormText is an arguments text: JSON or close to it.
	FormText Form = iota + 1
	// FormParams is string parameters already split out of an XML block.
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
	// Name may be empty for FormXML, whose outer tag names the tool.
	Name   string
	Form   Form
	Text   string // FormText, FormXML
	Params map[string]string
	// Unparseable, from a stream parser, says why the arguments could not
	// be read (a pythonic call whose value is no literal): the call is
	// UNPARSEABLE with this message, Text keeping what the model wrote.
	Unparseable string
	// Repairs were made while the call was split out of the model's text
	// (by a stream parser); the result lists them first.
	Repairs []Repair
	// Parsed, set by a stream parser that read Text as it arrived and
	// found it strict JSON, is the object Text holds, exactly as the
	// strict parse of RepairJSON gives it: Validate uses it (and may
	// change it) instead of parsing the whole text again.
	Parsed map[string]any
	// ParsedIntegers, set with Parsed, says that every number in it is an
	// integer of at most 18 digits: each reads as an int64, and the check
	// of a call of many parameters need not read them again.
	ParsedIntegers bool
}

// Repair is one change made to a call.
type Repair struct {
	Code string `json:"code"`
	// Param is a slash-separated path ("todos/0/id"); empty for the whole call.
	Param  string `json:"param,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Violation is one problem that makes a call unusable.
type Violation struct {
	Code    string `json:"code"`
	Param   string `json:"param,omitempty"`
	Message string `json:"message"`
}

// MaxViolations and MaxRepairs bound the lists of a Result, the rest only
// counted: a call with a million unknown parameters is one mistake.
const (
	MaxViolations = 50
	MaxRepairs    = 50
)

// Result is the outcome of repairing and validating one call.
type Result struct {
	Tool *Tool // nil when unknown
	// ToolName is the canonical name, or the name as given when unknown.
	ToolName string
	Form     Form
	Family   string // FamilyOf the model
	// Args are the normalised arguments, nil when unparseable; numbers are
	// json.Number, exact.
	Args map[string]any
	// Repairs are the first MaxRepairs changes, then the first of each code.
	Repairs           []Repair
	RepairsOmitted    int
	Violations        []Violation
	ViolationsOmitted int
	omittedCodes      []string // each once, so Has still sees them
	// unexpected are the top-level keys of Args the check found undeclared
	// (UNEXPECTED_PARAM), listed or not.
	unexpected []string
	// unexpectedBlocks counts the schema errors unexpected came from: from
	// one, its names are distinct.
	unexpectedBlocks int
	// closedRoot: unexpected are all the parameters the tool's closed root
	// schema does not declare (schemaplain.go).
	closedRoot bool
}

// EchoArgs returns Args without the top-level parameters the check found
// unexpected: what an answer echoes of an unusable call. Each is an
// UNEXPECTED_PARAM violation (the first MaxViolations listed, the rest
// counted), so copying a million unknown keys back says nothing more. The
// values are shared with Args; Args itself when there are none.
func (r *Result) EchoArgs() map[string]any {
	if len(r.unexpected) == 0 || r.Args == nil {
		return r.Args
	}
	if r.closedRoot {
		out := make(map[string]any, len(r.Tool.closedRoot))
		for k := range r.Tool.closedRoot {
			if v, ok := r.Args[k]; ok {
				out[k] = v
			}
		}
		return out
	}
	if r.unexpectedBlocks == 1 && r.Tool != nil {
		// The declared parameters, when they and the unexpected ones make
		// up Args: no set of a million names.
		out := make(map[string]any, len(r.Tool.order))
		for _, p := range r.Tool.order {
			if v, ok := r.Args[p]; ok {
				out[p] = v
			}
		}
		inOut := func(k string) bool { _, ok := out[k]; return ok }
		if len(out)+len(r.unexpected) == len(r.Args) && !slices.ContainsFunc(r.unexpected, inOut) {
			return out
		}
	}
	drop := make(map[string]struct{}, len(r.unexpected))
	for _, k := range r.unexpected {
		drop[k] = struct{}{}
	}
	out := make(map[string]any, max(len(r.Args)-len(drop), 0))
	for k, v := range r.Args {
		if _, ok := drop[k]; !ok {
			out[k] = v
		}
	}
	return out
}

// OK reports whether the call is usable.
func (r *Result) OK() bool { return len(r.Violations) == 0 && r.ViolationsOmitted == 0 }

// Has reports whether the result holds a violation with the code, listed or omitted.
func (r *Result) Has(code string) bool {
	for _, v := range r.Violations {
		if v.Code == code {
			return true
		}
	}
	return slices.Contains(r.omittedCodes, code)
}

// OmittedCodes returns the codes of the omitted violations, each once,
// shared with r.
func (r *Result) OmittedCodes() []string { return r.omittedCodes }

// ViolationCodes returns the codes of every violation, each once, in order.
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

// repair records a change. Past MaxRepairs only the first of each code is
// listed, so every kind of change stays visible.
func (r *Result) repair(code, param, detail string) {
	if len(r.Repairs) >= MaxRepairs && slices.ContainsFunc(r.Repairs, func(x Repair) bool { return x.Code == code }) {
		r.RepairsOmitted++
		return
	}
	if r.Repairs == nil {
		// A repaired call has a few (syntax, the tool's name, parameters):
		// one allocation instead of growing the list for each.
		r.Repairs = make([]Repair, 0, 8)
	}
	r.Repairs = append(r.Repairs, Repair{Code: code, Param: param, Detail: detail})
}

// AddRepair records a change made outside the pipeline (at execution),
// capped as the pipeline's own.
func (r *Result) AddRepair(code, param, detail string) { r.repair(code, param, detail) }

// Violate adds a violation, or counts it past MaxViolations. Front ends use
// it for what they find outside the pipeline (a repeated call).
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

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

// Repair codes: each names one kind of change made to a call.
const (
	CodeToolAlias             = "TOOL_ALIAS"
	CodeAliasRenamed          = "ALIAS_RENAMED"
	CodeRawArgumentsUnwrapped = "RAW_ARGUMENTS_UNWRAPPED"
	CodeDoubleEncoded         = "DOUBLE_ENCODED"
	CodeJSONRepaired          = "JSON_REPAIRED"
	CodePythonLiteral         = "PYTHON_LITERAL"
	CodeCodeFenceStripped     = "CODE_FENCE_STRIPPED"
	CodeEscapesDecoded        = "ESCAPES_DECODED"
	CodeHTMLEntitiesDecoded   = "HTML_ENTITIES_DECODED"
	CodeLineNumbersStripped   = "LINE_NUMBERS_STRIPPED"
	CodeTypeCoerced           = "TYPE_COERCED"
	CodeDuplicateDropped      = "DUPLICATE_DROPPED"
)

// Violation codes: each names one kind of problem that makes a call unusable.
const (
	CodeMissingRequired    = "MISSING_REQUIRED"
	CodeUnexpectedParam    = "UNEXPECTED_PARAM"
	CodeWrongType          = "WRONG_TYPE"
	CodeInvalidValue       = "INVALID_VALUE"
	CodeConflictingParams  = "CONFLICTING_PARAMS"
	CodeUnparseable        = "UNPARSEABLE"
	CodeUnknownTool        = "UNKNOWN_TOOL"
	CodeUnsupportedCommand = "UNSUPPORTED_COMMAND"
	CodeTruncated          = "TRUNCATED"
	CodePlaceholderContent = "PLACEHOLDER_CONTENT"
	CodeRepeatedCall       = "REPEATED_CALL"
	CodeOutsideWorkspace   = "OUTSIDE_WORKSPACE"
	CodeDeniedPath         = "DENIED_PATH"
)

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
	Args       map[string]any
	Repairs    []Repair
	Violations []Violation
}

// OK reports whether the call is usable.
func (r *Result) OK() bool { return len(r.Violations) == 0 }

// Has reports whether the result holds a violation with the given code.
func (r *Result) Has(code string) bool {
	for _, v := range r.Violations {
		if v.Code == code {
			return true
		}
	}
	return false
}

func (r *Result) repair(code, param, detail string) {
	r.Repairs = append(r.Repairs, Repair{Code: code, Param: param, Detail: detail})
}

// Violate adds a violation. Front ends use it for problems found outside the
// pure pipeline (a repeated call, a path outside the workspace).
func (r *Result) Violate(code, param, message string) {
	r.Violations = append(r.Violations, Violation{Code: code, Param: param, Message: message})
}

func joinPath(base, name string) string {
	if base == "" {
		return name
	}
	return base + "/" + name
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

package repair

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Options tune one validation.
type Options struct {
	// ModelID is the model that produced the call; it selects model-specific
	// content fixes.
	ModelID string
	// Tools are definitions sent with the request. They are searched before
	// the registry's own tools.
	Tools []*Tool
}

// wrapperKeys are keys models wrap a whole argument object in. A wrapper is
// unwrapped only when it is the object's sole key, the tool declares no
// parameter of that name, and its value is (or parses to) an object.
var wrapperKeys = []string{"arguments", "args", "parameters", "params", "input", "kwargs", "tool_input", "function_arguments"}

// rawArgumentsKey is the wrapper some gateways put unparseable arguments
// under (Claude Code's InputValidationError "unexpected parameter
// raw_arguments"); it is unwrapped whatever else the object holds.
const rawArgumentsKey = "raw_arguments"

// pipeline is the state of one Validate call.
type pipeline struct {
	reg  *Registry
	opts Options
	tool *Tool
	res  *Result
	// literal marks top-level keys whose values are string-form literals
	// (XML or split params): converting those to the schema's type is
	// parsing, not a repair, so it is not recorded.
	literal map[string]bool
}

// Validate repairs and validates one call. It never fails: every problem is a
// violation in the result.
//
// The stages run in a fixed order, each recording what it changed:
// resolve the tool name; parse the arguments form; unwrap wrappers and
// double encoding; pick a multiplexed tool; normalise parameter aliases and
// coerce values to the schema's types; content fixes; schema validation.
func (r *Registry) Validate(call Call, opts Options) *Result {
	p := &pipeline{reg: r, opts: opts, res: &Result{Form: call.Form, ToolName: call.Name, Family: FamilyOf(opts.ModelID)}}
	p.run(call)
	return p.res
}

func (p *pipeline) run(call Call) {
	name := call.Name
	var xmlBody string
	var xmlClosed = true
	if call.Form == FormXML {
		tag, body, closed := splitToolBlock(call.Text, func(tag string) bool {
			t, _ := p.reg.Resolve(tag, p.opts.Tools)
			return t != nil || p.reg.multiplexer(tag) != nil || tag == call.Name
		})
		xmlBody, xmlClosed = body, closed
		if name == "" {
			name = tag
		}
	}
	if name == "" {
		p.res.Violate(CodeUnknownTool, "", "The tool call has no tool name.")
		return
	}
	p.res.ToolName = name
	tool, aliased := p.reg.Resolve(name, p.opts.Tools)
	p.tool = tool
	mux := (*multiplexer)(nil)
	if tool == nil {
		mux = p.reg.multiplexer(name)
	}

	args, ok := p.parse(call, xmlBody)
	if !ok {
		if tool != nil {
			p.res.ToolName = tool.Name()
		}
		return
	}
	args = p.unwrap(args)

	if mux != nil {
		tool = p.pickCommand(mux, name, args)
		if tool == nil {
			p.res.Args = args
			return
		}
		p.tool = tool
		if call.Form == FormXML {
			// Content parameters are known only now; split the block again
			// so a content value runs to its last closing tag.
			if again, ok := p.parse(call, xmlBody); ok {
				args = p.unwrap(again)
				delete(args, mux.def.CommandParam)
			}
		}
	} else if tool == nil {
		p.res.Args = args
		p.res.Violate(CodeUnknownTool, "", fmt.Sprintf("Unknown tool %s. Known tools: %s.", quote(name), listNames(p.knownToolNames())))
		return
	} else if aliased {
		p.res.repair(CodeToolAlias, "", fmt.Sprintf("tool %s is %q", quote(name), tool.Name()))
	}
	p.res.ToolName = tool.Name()
	p.res.Tool = tool

	if call.Form == FormXML && !xmlClosed {
		p.res.Violate(CodeTruncated, "", fmt.Sprintf("The <%s> block was cut off before its closing tag </%s>.", clipText(name, maxQuoted), clipText(name, maxQuoted)))
	}

	p.normalizeObject(args, tool.schema, "", true)
	p.applyContentFixes(args)
	p.res.Args = args
	p.check(args)
}

func (p *pipeline) knownToolNames() []string {
	names := slices.Collect(maps.Keys(p.reg.tools))
	for _, t := range p.opts.Tools {
		names = append(names, t.Name())
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// parse turns the call's arguments into a JSON object.
func (p *pipeline) parse(call Call, xmlBody string) (map[string]any, bool) {
	switch call.Form {
	case FormParams:
		args := make(map[string]any, len(call.Params))
		p.literal = make(map[string]bool, len(call.Params))
		for k, v := range call.Params {
			args[k] = v
			p.literal[k] = true
		}
		return args, true
	case FormXML:
		params, truncated := parseXMLParams(xmlBody, p.isContentParam)
		args := make(map[string]any, len(params))
		p.literal = make(map[string]bool, len(params))
		for k, v := range params {
			args[k] = v
			p.literal[k] = true
		}
		if truncated != "" {
			p.res.Violate(CodeTruncated, truncated, fmt.Sprintf("The value of <%s> was cut off before its closing tag </%s>.", clipText(truncated, maxQuoted), clipText(truncated, maxQuoted)))
		}
		return args, true
	default:
		p.literal = nil
		v, ok := p.parseText(call.Text, "")
		if !ok {
			return nil, false
		}
		obj, isObj := v.(map[string]any)
		if !isObj {
			p.res.Violate(CodeUnparseable, "", fmt.Sprintf("The arguments must be a JSON object of parameters, not %s.", jsonKind(v)))
			return nil, false
		}
		return obj, true
	}
}

// parseText parses an arguments text into a JSON value, decoding a JSON
// string that holds JSON (double encoding). Empty text is an empty object.
func (p *pipeline) parseText(text, param string) (any, bool) {
	if strings.TrimSpace(text) == "" {
		return map[string]any{}, true
	}
	v, ok := p.repairJSON(text, param)
	if !ok {
		return nil, false
	}
	for range 3 {
		s, isStr := v.(string)
		if !isStr || !looksLikeJSONContainer(s) {
			break
		}
		p.res.repair(CodeDoubleEncoded, param, "arguments were a JSON string holding JSON; decoded it")
		if v, ok = p.repairJSON(s, param); !ok {
			return nil, false
		}
	}
	return v, true
}

// repairJSON parses JSON text, repairing it if it must, and records what it
// changed. Text that ended mid-value is kept for display but marked
// TRUNCATED, so the call is never executed.
func (p *pipeline) repairJSON(text, param string) (any, bool) {
	r, err := RepairJSON(text, JSONOptions{Keys: p.toolKeys()})
	switch {
	case errors.Is(err, ErrTooDeep):
		p.res.Violate(CodeUnparseable, param, fmt.Sprintf("The arguments nest objects and arrays more than %d levels deep, so they were not read. Send one flat JSON object of parameters.", MaxJSONDepth))
		return nil, false
	case err != nil:
		p.res.Violate(CodeUnparseable, param, fmt.Sprintf("The arguments are not valid JSON and could not be repaired (%v). Send one JSON object of parameters.", err))
		return nil, false
	}
	for _, rp := range r.Repairs {
		p.res.repair(rp.Code, param, rp.Detail)
	}
	if r.Truncated {
		p.res.Violate(CodeTruncated, param, "The arguments were cut off before they were complete (the output hit a length limit), so the call was not used.")
	}
	return r.Value, true
}

func looksLikeJSONContainer(s string) bool {
	s = strings.TrimSpace(s)
	return len(s) >= 2 && (s[0] == '{' && s[len(s)-1] == '}' || s[0] == '[' && s[len(s)-1] == ']')
}

// objectIn returns v as an object when it is one or is JSON text of one
// (repaired if need be, the repairs recorded).
func (p *pipeline) objectIn(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case string:
		t := strings.TrimSpace(x)
		if !strings.HasPrefix(t, "{") {
			return nil
		}
		r, err := RepairJSON(t, JSONOptions{Keys: p.toolKeys()})
		if err != nil {
			return nil
		}
		obj, _ := r.Value.(map[string]any)
		if obj == nil {
			return nil
		}
		for _, rp := range r.Repairs {
			p.res.repair(rp.Code, "", rp.Detail)
		}
		if r.Truncated {
			p.res.Violate(CodeTruncated, "", "The arguments were cut off before they were complete (the output hit a length limit), so the call was not used.")
		}
		return obj
	}
	return nil
}

func (p *pipeline) toolKeys() map[string]bool {
	if p.tool == nil {
		return nil
	}
	return p.tool.keys
}

// declares reports whether the current tool accepts key at the top level.
func (p *pipeline) declares(key string) bool {
	return p.tool != nil && p.tool.canonicalParam(key, p.tool.schema) != ""
}

// isContentParam reports whether an XML parameter (any spelling) carries
// file content for the current tool.
func (p *pipeline) isContentParam(name string) bool {
	if p.tool == nil {
		return false
	}
	return p.tool.content[p.tool.canonicalParam(name, p.tool.schema)]
}

// unwrap removes the wrappers models put around the real arguments.
func (p *pipeline) unwrap(args map[string]any) map[string]any {
	for range 4 {
		changed := false
		if raw, ok := args[rawArgumentsKey]; ok && !p.declares(rawArgumentsKey) {
			if inner := p.objectIn(raw); inner != nil {
				delete(args, rawArgumentsKey)
				delete(p.literal, rawArgumentsKey)
				for k, v := range inner {
					if old, dup := args[k]; dup && !reflect.DeepEqual(old, v) {
						p.res.repair(CodeDuplicateDropped, k, fmt.Sprintf("%s given both inside and beside raw_arguments; kept the one inside", quote(k)))
					}
					args[k] = v
					delete(p.literal, k)
				}
				p.res.repair(CodeRawArgumentsUnwrapped, "", "unwrapped the arguments from raw_arguments")
				changed = true
			}
		}
		if len(args) == 1 {
			for k, v := range args {
				if !slices.Contains(wrapperKeys, k) || p.declares(k) {
					continue
				}
				if inner := p.objectIn(v); inner != nil {
					args = inner
					p.literal = nil
					p.res.repair(CodeRawArgumentsUnwrapped, "", fmt.Sprintf("unwrapped the arguments from %q", k))
					changed = true
				}
			}
		}
		if !changed {
			return args
		}
	}
	return args
}

// pickCommand resolves a multiplexed name (str_replace_based_edit_tool) to
// the tool its command parameter selects, removing the command.
func (p *pipeline) pickCommand(m *multiplexer, name string, args map[string]any) *Tool {
	cp := m.def.CommandParam
	cmd, _ := args[cp].(string)
	t := m.tools[cmd]
	if t == nil {
		known := slices.Sorted(maps.Keys(m.tools))
		if cmd == "" {
			p.res.Violate(CodeMissingRequired, cp, fmt.Sprintf("Missing required parameter %q for %s: one of %s.", cp, clipText(name, maxQuoted), listNames(known)))
		} else {
			p.res.Violate(CodeUnsupportedCommand, cp, fmt.Sprintf("Command %s of %s is not supported here; supported: %s.", quote(cmd), clipText(name, maxQuoted), listNames(known)))
		}
		return nil
	}
	delete(args, cp)
	delete(p.literal, cp)
	p.res.repair(CodeToolAlias, "", fmt.Sprintf("tool %s with %s %q is %q", quote(name), cp, cmd, t.Name()))
	return t
}

// normalizeObject renames parameter aliases to canonical names in an object
// whose schema is s, then coerces each value and recurses.
func (p *pipeline) normalizeObject(m map[string]any, s *jsonschema.Schema, path string, top bool) {
	props := propsOf(s)
	if props == nil {
		return
	}
	// Renames run in key order so which of two spellings wins does not
	// depend on map order; only the keys that are spellings of a parameter
	// are sorted, not every key a call brings.
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

// alias is a key of an object that spells one of its parameters.
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

// normalizeValue coerces v to the schema's type where the intent is
// unambiguous, then normalises inside it.
func (p *pipeline) normalizeValue(v any, s *jsonschema.Schema, path string, literal bool) any {
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
		if t.has(typeString) {
			return nil, "", false
		}
		s := strings.TrimSpace(x)
		switch {
		case t.has(typeBoolean) && strings.EqualFold(s, "true"):
			return true, `string "true" to boolean`, true
		case t.has(typeBoolean) && strings.EqualFold(s, "false"):
			return false, `string "false" to boolean`, true
		case t.has(typeNull) && (s == "null" || s == "None"):
			return nil, "string to null", true
		case (t.has(typeInteger) || t.has(typeNumber)) && isJSONNumber(s):
			n := json.Number(s)
			if t.has(typeNumber) || isIntegral(n) {
				return n, fmt.Sprintf("string %s to number", quote(s)), true
			}
		case (t.has(typeArray) || t.has(typeObject)) && looksLikeJSONContainer(s):
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
		}
	case json.Number:
		if t.has(typeNumber) || t.has(typeInteger) && isIntegral(x) || !t.has(typeString) {
			return nil, "", false
		}
		return string(x), "number to string", true
	case bool:
		if t.has(typeBoolean) || !t.has(typeString) {
			return nil, "", false
		}
		return fmt.Sprint(x), "boolean to string", true
	case map[string]any:
		if t.has(typeObject) || !t.has(typeArray) || !typesOf(items).has(typeObject) {
			return nil, "", false
		}
		return []any{x}, "single object wrapped in an array", true
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

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

var printer = message.NewPrinter(language.English)

// check validates the normalised arguments against the tool's schema and
// records the problems as violations, in a stable order: the first
// MaxViolations listed, the rest counted.
func (p *pipeline) check(args map[string]any) {
	var found []finding
	p.checkEmpty(args, p.tool.schema, "", &found)
	if err := p.tool.schema.Validate(args); err != nil {
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			p.collect(ve, &found)
		} else {
			found = append(found, finding{code: CodeInvalidValue, msg: err.Error()})
		}
	}
	outOfRange(args, "", &found)
	first := firstFindings(found, max(MaxViolations-len(p.res.Violations), 0), p.res.omit)
	for _, f := range first {
		p.res.Violate(f.code, f.param, p.message(f))
	}
}

// outOfRange finds numbers no float64 holds (1e999): valid JSON, but every
// consumer of the arguments (a protobuf Struct, JavaScript, Python's json)
// would turn them into infinity or fail on them. Each is reported, and
// kept in the arguments as its text, which every consumer can carry.
func outOfRange(v any, path string, out *[]finding) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := strconv.ParseFloat(string(x), 64); err != nil || math.IsInf(f, 0) {
			*out = append(*out, finding{code: CodeInvalidValue, param: path,
				msg: fmt.Sprintf("The number %s is out of range: numbers must fit a 64-bit float (at most about 1.8e308).", clipText(string(x), 40))})
			return string(x)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = outOfRange(e, joinPath(path, k), out)
		}
	case []any:
		for i, e := range x {
			x[i] = outOfRange(e, joinPath(path, strconv.Itoa(i)), out)
		}
	}
	return v
}

// firstFindings returns the first k findings in (param, code) order, each
// pair once (the validator may report one problem through several
// branches; the first report wins), and calls omit with the code of every
// other distinct finding. Past k findings it keeps a bounded buffer and a
// set instead of sorting them all.
func firstFindings(found []finding, k int, omit func(code string)) []finding {
	byKey := func(a, b finding) int {
		return cmp.Or(strings.Compare(a.param, b.param), strings.Compare(a.code, b.code))
	}
	if len(found) <= k {
		slices.SortStableFunc(found, byKey)
		return slices.CompactFunc(found, func(a, b finding) bool { return byKey(a, b) == 0 })
	}
	type key struct{ param, code string }
	seen := make(map[key]struct{}, len(found))
	first := make([]finding, 0, k+1)
	for _, f := range found {
		if _, dup := seen[key{f.param, f.code}]; dup {
			continue
		}
		seen[key{f.param, f.code}] = struct{}{}
		if len(first) == k && (k == 0 || byKey(f, first[k-1]) > 0) {
			omit(f.code)
			continue
		}
		i, _ := slices.BinarySearchFunc(first, f, byKey)
		first = slices.Insert(first, i, f)
		if len(first) > k {
			omit(first[k].code)
			first = first[:k]
		}
	}
	return first
}

// finding is a problem the schema check found. Its message is written only
// if it is listed: a call with a million unknown parameters must not cost a
// million messages.
type finding struct {
	code, param string
	// loc is the object or value concerned and name the parameter in it,
	// for the messages that need them.
	loc, name string
	err       *jsonschema.ValidationError
	// msg is a message known when found.
	msg string
}

// message writes a finding's message.
func (p *pipeline) message(f finding) string {
	switch {
	case f.msg != "":
		return f.msg
	case f.code == CodeUnexpectedParam:
		return p.unexpectedMessage(f.loc, f.name)
	case f.code == CodeMissingRequired && f.err == nil:
		return fmt.Sprintf("Parameter %s is empty; it is required and must have a value.", quote(f.name))
	case f.code == CodeMissingRequired && f.loc != "":
		return fmt.Sprintf("Missing required parameter %s in %s.", quote(f.name), quote(f.loc))
	case f.code == CodeMissingRequired:
		return fmt.Sprintf("Missing required parameter %s.", quote(f.name))
	}
	switch k := f.err.ErrorKind.(type) {
	case *kind.Type:
		return fmt.Sprintf("Parameter %s must be %s, not %s.", quote(displayParam(f.loc)), wantTypes(k.Want), article(k.Got))
	default:
		// The validator's words may quote the value: a part of them is
		// enough to act on.
		return fmt.Sprintf("Parameter %s is invalid: %s.", quote(displayParam(f.loc)), clipText(f.err.ErrorKind.LocalizedString(printer), 4*maxQuoted))
	}
}

// checkEmpty reports required string parameters given as "" where the
// parameter does not allow empty: models send an empty value when they lost
// track of it, which is a missing parameter in all but name.
func (p *pipeline) checkEmpty(m map[string]any, s *jsonschema.Schema, path string, out *[]finding) {
	props := propsOf(s)
	for _, r := range requiredOf(s) {
		if v, ok := m[r]; ok && v == "" && !p.tool.allowEmpty[r] {
			*out = append(*out, finding{code: CodeMissingRequired, param: joinPath(path, r), loc: path, name: r})
		}
	}
	for k, v := range m {
		ps := props[k]
		if ps == nil {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			p.checkEmpty(x, ps, joinPath(path, k), out)
		case []any:
			if items := itemsOf(ps); items != nil {
				for i, e := range x {
					if obj, ok := e.(map[string]any); ok {
						p.checkEmpty(obj, items, joinPath(joinPath(path, k), strconv.Itoa(i)), out)
					}
				}
			}
		}
	}
}

// collect maps the validator's error tree onto findings.
func (p *pipeline) collect(e *jsonschema.ValidationError, out *[]finding) {
	loc := strings.Join(e.InstanceLocation, "/")
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference:
		for _, c := range e.Causes {
			p.collect(c, out)
		}
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, finding{code: CodeMissingRequired, param: joinPath(loc, m), loc: loc, name: m, err: e})
		}
	case *kind.AdditionalProperties:
		*out = slices.Grow(*out, len(k.Properties))
		for _, name := range k.Properties {
			*out = append(*out, finding{code: CodeUnexpectedParam, param: joinPath(loc, name), loc: loc, name: name, err: e})
		}
	case *kind.Type:
		*out = append(*out, finding{code: CodeWrongType, param: loc, loc: loc, err: e})
	default:
		*out = append(*out, finding{code: CodeInvalidValue, param: loc, loc: loc, err: e})
	}
}

func (p *pipeline) unexpectedMessage(loc, name string) string {
	if name == rawArgumentsKey && loc == "" {
		return "Unexpected parameter \"raw_arguments\": its text is not a JSON object of arguments. Send the parameters themselves as a JSON object."
	}
	accepted := p.tool.order
	if loc != "" {
		accepted = nil
		if s := schemaAt(p.tool.schema, strings.Split(loc, "/")); s != nil {
			accepted = paramOrder(s)
		}
	}
	where := p.tool.Name()
	if loc != "" {
		where = quote(loc)
	}
	return fmt.Sprintf("Unexpected parameter %s: %s accepts only %s.", quote(name), where, listNames(accepted))
}

// schemaAt returns the schema of the value at path (object keys and array
// indices), or nil.
func schemaAt(s *jsonschema.Schema, path []string) *jsonschema.Schema {
	for _, seg := range path {
		if ps := propsOf(s); ps != nil && ps[seg] != nil {
			s = ps[seg]
			continue
		}
		if it := itemsOf(s); it != nil {
			s = it
			continue
		}
		return nil
	}
	return s
}

func displayParam(loc string) string {
	if loc == "" {
		return "arguments"
	}
	return loc
}

func wantTypes(want []string) string {
	var t jsonTypes
	for _, w := range want {
		switch w {
		case "string":
			t |= typeString
		case "integer":
			t |= typeInteger
		case "number":
			t |= typeNumber
		case "boolean":
			t |= typeBoolean
		case "array":
			t |= typeArray
		case "object":
			t |= typeObject
		case "null":
			t |= typeNull
		}
	}
	return describeType(t)
}

func article(typeName string) string {
	switch typeName {
	case "null":
		return "null"
	case "array", "object", "integer":
		return "an " + typeName
	default:
		return "a " + typeName
	}
}

package repair

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/toolguard/toolguard/repair/jsonrepair"
)

// Options tune one validation.
type Options struct {
	// ModelID names the model; its family (Result.Family) picks how the
	// feedback shows the tool. No repair depends on it.
	ModelID string
	// Tools, sent with the request, are searched before the registry's.
	Tools []*Tool
}

// wrapperKeys are keys models wrap the arguments in, unwrapped when sole,
// undeclared and holding an object.
var wrapperKeys = []string{"arguments", "args", "parameters", "params", "input", "kwargs", "tool_input", "function_arguments"}

// rawArgumentsKey is where some gateways put unparseable arguments; it is
// unwrapped whatever else the object holds.
const rawArgumentsKey = "raw_arguments"

type pipeline struct {
	reg  *Registry
	opts Options
	tool *Tool
	res  *Result
	// checks is what is left of maxAlternativeChecks.
	checks int
	// plainStrings: the arguments are a stream parser's strict parse of a
	// text that holds no '&', no "===" and no backslash; plainFlat: of a
	// text with no object or array inside the arguments; plainIntegers:
	// whose numbers are all short integers (Call.ParsedIntegers); with
	// this many repairs recorded when they were taken (plainParsed).
	plainStrings, plainFlat, plainIntegers bool
	plainRepairs                           int
}

// Validate repairs and validates one call; every problem is a violation in
// the result. Stages: resolve the tool, parse, unwrap, pick a multiplexed
// tool, normalise and coerce, fix content, check the schema.
func (r *Registry) Validate(call Call, opts Options) *Result {
	v := &validation{
		pipeline: pipeline{reg: r, opts: opts, checks: maxAlternativeChecks},
		res:      Result{Form: call.Form, ToolName: call.Name, Family: FamilyOf(opts.ModelID)},
	}
	v.pipeline.res = &v.res
	v.pipeline.run(call)
	return &v.res
}

// validation is one call's pipeline and its result, allocated together.
// (The repairs are not: room for them would be a few hundred bytes more
// for every valid call, which has none.)
type validation struct {
	pipeline pipeline
	res      Result
}

func (p *pipeline) run(call Call) {
	for _, r := range call.Repairs {
		p.res.repair(r.Code, r.Param, r.Detail)
	}
	name, xmlBody, xmlClosed := call.Name, "", true
	if call.Form == FormXML {
		var tag, opening string
		tag, opening, xmlBody, xmlClosed = splitToolBlock(call.Text, func(tag string) bool {
			t, _ := p.reg.Resolve(tag, p.opts.Tools)
			return t != nil || p.reg.multiplexer(tag) != nil || tag == call.Name
		})
		xmlBody = p.toolTagTwice(opening, xmlBody)
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
	args, ok := p.parse(call, xmlBody)
	if !ok {
		if tool != nil {
			p.res.ToolName = tool.Name()
		}
		return
	}
	args = p.unwrap(args)
	if tool, args = p.settleTool(call, name, xmlBody, aliased, args); tool == nil {
		p.res.Args = args
		return
	}
	p.res.ToolName = tool.Name()
	p.res.Tool = tool
	if call.Form == FormXML && !xmlClosed {
		p.res.Violate(CodeTruncated, "", fmt.Sprintf("The <%s> block was cut off before its closing tag </%s>.", clipText(name, maxQuoted), clipText(name, maxQuoted)))
	}
	p.normalizeObject(args, tool.schema, "")
	p.applyContentFixes(args)
	p.res.Args = args
	p.check(args)
}

// settleTool returns the tool the call is for, nil when unknown, resolving
// a multiplexed name by its command.
func (p *pipeline) settleTool(call Call, name, xmlBody string, aliased bool, args map[string]any) (*Tool, map[string]any) {
	if p.tool != nil {
		if aliased {
			p.res.repair(CodeToolAlias, "", toolAliasDetail(name, p.tool.Name()))
		}
		return p.tool, args
	}
	mux := p.reg.multiplexer(name)
	if mux == nil {
		p.res.Violate(CodeUnknownTool, "", fmt.Sprintf("Unknown tool %s. Known tools: %s.", quote(name), listNames(p.knownToolNames())))
		return nil, args
	}
	tool := p.pickCommand(mux, name, args)
	if tool == nil {
		return nil, args
	}
	p.tool = tool
	if call.Form == FormXML {
		// The content parameters, known only now, decide where values end.
		if again, ok := p.parse(call, xmlBody); ok {
			args = p.unwrap(again)
			delete(args, mux.def.CommandParam)
		}
	}
	return tool, args
}

// toolAliasDetail says how name, as the model wrote it, became the tool's.
func toolAliasDetail(name, tool string) string {
	base, tokens, ok := splitTemplateTokens(name)
	switch {
	case !ok:
		return quotedDetail("tool ", name, " is ", tool)
	case base == tool:
		return fmt.Sprintf("removed the chat-template tokens %s glued to the tool name %q", quote(tokens), tool)
	default:
		return fmt.Sprintf("removed the chat-template tokens %s glued to the tool name %s, which is %q", quote(tokens), quote(base), tool)
	}
}

func (p *pipeline) knownToolNames() []string {
	names := slices.Collect(maps.Keys(p.reg.tools))
	for _, t := range p.opts.Tools {
		names = append(names, t.Name())
	}
	sort.Strings(names)
	return slices.Compact(names)
}

func (p *pipeline) parse(call Call, xmlBody string) (map[string]any, bool) {
	if call.Unparseable != "" {
		p.res.Violate(CodeUnparseable, "", call.Unparseable)
		return nil, false
	}
	switch call.Form {
	case FormParams:
		return p.paramArgs(call.Params), true
	case FormXML:
		x := parseXMLParams(xmlBody, p.isContentParam)
		if x.refusal != "" {
			p.res.Violate(CodeUnparseable, x.refusalParam, x.refusal)
			return nil, false
		}
		for _, r := range x.repairs {
			if !slices.Contains(p.res.Repairs, r) { // a multiplexed tool's body is read twice
				p.res.repair(r.Code, r.Param, r.Detail)
			}
		}
		params := x.params
		if p.tool != nil && x.truncated == "" {
			var ok bool
			if params, ok = p.rooMultiFile(params); !ok {
				return nil, false
			}
		}
		args := p.paramArgs(params)
		if x.truncated != "" {
			p.res.Violate(CodeTruncated, x.truncated, fmt.Sprintf("The value of <%s> was cut off before its closing tag </%s>.", clipText(x.truncated, maxQuoted), clipText(x.truncated, maxQuoted)))
		}
		return args, true
	default:
		if call.Parsed != nil {
			p.plainParsed(call)
			return call.Parsed, true
		}
		text := call.Text
		if restored, detail, ok := p.restoreOpening(text); ok {
			p.res.repair(CodeJSONRepaired, "", detail)
			text = restored
		}
		v, ok := p.parseText(text, "")
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

// manyMembers is the size from which an object's members are worth a
// pass over the text to spare a walk over them.
const manyMembers = 256

// plainParsed notes what the text of a large parsed call proves of its
// arguments, and whether the stream parser found its numbers all short
// integers. Without escapes, every key and string of a strict parse is a
// piece of the text, so none holds '&' or "===" when the text does not;
// and a text whose only bracket is the arguments' opening brace has no
// object or array inside them. The content fixes and the range check then
// need not walk the arguments (a walk over the map, in its order, that
// misses the cache a member once the call has a hundred thousand) as long
// as no stage changed them since (plainUnchanged).
func (p *pipeline) plainParsed(call Call) {
	if len(call.Parsed) < manyMembers || call.Text == "" {
		return
	}
	t := call.Text
	p.plainStrings = strings.IndexByte(t, '&') < 0 && strings.IndexByte(t, '\\') < 0 && !strings.Contains(t, "===")
	p.plainFlat = strings.Count(t, "{") == 1 && strings.IndexByte(t, '[') < 0
	p.plainIntegers = call.ParsedIntegers
	p.plainRepairs = p.repairCount()
}

// plainUnchanged reports whether the arguments are still what plainParsed
// looked at: every change a stage makes is a repair.
func (p *pipeline) plainUnchanged() bool { return p.repairCount() == p.plainRepairs }

// repairCount is the number of repairs recorded, listed or not.
func (p *pipeline) repairCount() int { return len(p.res.Repairs) + p.res.RepairsOmitted }

// parseText parses an arguments text, decoding JSON encoded twice; empty
// text is an empty object.
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

// repairJSON parses JSON text, repairing it if it must. Text cut off
// mid-value is kept for display but TRUNCATED, never executed.
func (p *pipeline) repairJSON(text, param string) (any, bool) {
	opts := p.repairOptions()
	r, err := jsonrepair.Repair(text, opts)
	if err == nil && len(r.Fixes) > 0 {
		r, err = p.repairWrapped(text, r, opts)
	}
	switch {
	case errors.Is(err, ErrTooDeep):
		p.res.Violate(CodeUnparseable, param, fmt.Sprintf("The arguments nest objects and arrays more than %d levels deep, so they were not read. Send one flat JSON object of parameters.", MaxJSONDepth))
		return nil, false
	case errors.Is(err, ErrKeyQuote):
		p.res.Violate(CodeUnparseable, param, fmt.Sprintf("The arguments are not valid JSON: %v. Close each key's quote before its colon (\"name\": value) and send one JSON object of parameters.", err))
		return nil, false
	case errors.Is(err, ErrAmbiguousQuote):
		p.res.Violate(CodeUnparseable, param, fmt.Sprintf("The arguments are not valid JSON: %v. Escape every quote inside a string value as \\\" and end each string with its closing quote, then send the whole call again.", err))
		return nil, false
	case err != nil:
		p.res.Violate(CodeUnparseable, param, fmt.Sprintf("The arguments are not valid JSON and could not be repaired (%v). Send one JSON object of parameters.", err))
		return nil, false
	}
	for _, f := range r.Fixes {
		p.res.repair(fixCode[f.Kind], param, f.Detail)
	}
	if r.Truncated {
		p.res.Violate(CodeTruncated, param, "The arguments end before they are complete (a value or a bracket is left open), so the call was not used.")
	}
	return r.Value, true
}

// repairWrapped repairs again text that read as arguments wrapped in a
// sole key unwrap takes off ({"arguments": {...}}), the tool's keys one
// depth down, as they are: read with them at the wrapper's depth, a string
// of the arguments could swallow an item's end and the next item.
func (p *pipeline) repairWrapped(text string, r jsonrepair.Result, opts jsonrepair.Options) (jsonrepair.Result, error) {
	if len(opts.Levels) == 0 {
		return r, nil
	}
	levels := opts.Levels
	v := r.Value
	for range 4 {
		obj, _ := v.(map[string]any)
		if len(obj) != 1 {
			break
		}
		var key string
		for k, inner := range obj {
			key, v = k, inner
		}
		if !slices.Contains(wrapperKeys, key) || p.declares(key) {
			break
		}
		levels = append([]map[string]bool{{key: true}}, levels...)
	}
	if len(levels) == len(opts.Levels) {
		return r, nil
	}
	return jsonrepair.Repair(text, jsonrepair.Options{Levels: levels})
}

// restoreOpening puts back the opening of an object whose first characters
// were lost (`code": "uptime"}`, `"code": "uptime"}`), and says what it
// restored. Only on evidence: the text ends as an object does, its first
// key names a parameter of the tool, and the restored text reads as an
// object to the end.
func (p *pipeline) restoreOpening(text string) (string, string, bool) {
	t := strings.TrimSpace(text)
	if t == "" || t[0] == '{' || t[0] == '[' || t[len(t)-1] != '}' || p.tool == nil {
		return "", "", false
	}
	open, body := `{"`, t
	if t[0] == '"' {
		open, body = `{`, t[1:]
	}
	end := strings.IndexAny(body, "\"\n")
	if end <= 0 || body[end] != '"' || !p.declares(body[:end]) {
		return "", "", false
	}
	if c := jsonrepair.SkipInlineSpace(body, end+1); c >= len(body) || body[c] != ':' {
		return "", "", false
	}
	restored := open + t
	r, err := jsonrepair.Repair(restored, p.repairOptions())
	if _, isObj := r.Value.(map[string]any); err != nil || !isObj || r.Truncated {
		return "", "", false
	}
	return restored, fmt.Sprintf("restored the opening %s lost before %s", open, quote(body[:end])), true
}

func looksLikeJSONContainer(s string) bool {
	s = strings.TrimSpace(s)
	return len(s) >= 2 && (s[0] == '{' && s[len(s)-1] == '}' || s[0] == '[' && s[len(s)-1] == ']')
}

// objectIn returns v as an object when it is one or JSON text of one.
func (p *pipeline) objectIn(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case string:
		t := strings.TrimSpace(x)
		if !strings.HasPrefix(t, "{") {
			return nil
		}
		r, err := jsonrepair.Repair(t, p.repairOptions())
		if err != nil {
			return nil
		}
		obj, _ := r.Value.(map[string]any)
		if obj == nil {
			return nil
		}
		for _, f := range r.Fixes {
			p.res.repair(fixCode[f.Kind], "", f.Detail)
		}
		if r.Truncated {
			p.res.Violate(CodeTruncated, "", "The arguments end before they are complete (a value or a bracket is left open), so the call was not used.")
		}
		return obj
	}
	return nil
}

// repairOptions make JSON repair follow the tool's keys where its schema
// lists them, object depth by depth.
func (p *pipeline) repairOptions() jsonrepair.Options {
	if p.tool == nil {
		return jsonrepair.Options{}
	}
	levels := p.tool.levels
	if levels == nil {
		levels = []map[string]bool{} // known tool, no keys listed: any
	}
	return jsonrepair.Options{Levels: levels}
}

func (p *pipeline) declares(key string) bool {
	return p.tool != nil && p.tool.canonicalParam(key, p.tool.schema) != ""
}

// paramArgs are the arguments of parameters given as text (XML tags,
// params already split). A value that is no file content or edit text is
// trimmed, as Cline and Roo trim them: <path>  a.py  </path> names a.py.
func (p *pipeline) paramArgs(params map[string]string) map[string]any {
	args := make(map[string]any, len(params))
	for k, v := range params {
		if !p.isContentParam(k) {
			v = strings.TrimSpace(v)
		}
		args[k] = v
	}
	return args
}

// isContentParam reports whether an XML parameter, any spelling, carries
// content or edit text (Tool.IsContentParam).
func (p *pipeline) isContentParam(name string) bool {
	if p.tool == nil {
		return false
	}
	return p.tool.IsContentParam(p.tool.canonicalParam(name, p.tool.schema))
}

func (p *pipeline) unwrap(args map[string]any) map[string]any {
	for range 4 {
		changed := false
		if raw, ok := args[rawArgumentsKey]; ok && !p.declares(rawArgumentsKey) {
			if inner := p.objectIn(raw); inner != nil {
				delete(args, rawArgumentsKey)
				var dups []string
				for k, v := range inner {
					if old, dup := args[k]; dup && !reflect.DeepEqual(old, v) {
						dups = append(dups, k)
					}
					args[k] = v
				}
				slices.Sort(dups) // the same call, its repairs in the same order
				for _, k := range dups {
					p.res.repair(CodeDuplicateDropped, k, fmt.Sprintf("%s given both inside and beside raw_arguments; kept the one inside", quote(k)))
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

// pickCommand returns the tool a multiplexed call's command selects.
func (p *pipeline) pickCommand(m *multiplexer, name string, args map[string]any) *Tool {
	cp := m.def.CommandParam
	cmd, _ := args[cp].(string)
	t := m.tools[cmd]
	if t == nil && m.def.Supplied[cmd] != "" {
		t = p.suppliedTool(m.def.Supplied[cmd])
	}
	if t == nil {
		known := slices.Sorted(maps.Keys(m.tools))
		for c, name := range m.def.Supplied {
			if p.suppliedTool(name) != nil {
				known = append(known, c)
			}
		}
		slices.Sort(known)
		if cmd == "" {
			p.res.Violate(CodeMissingRequired, cp, fmt.Sprintf("Missing required parameter %q for %s: one of %s.", cp, clipText(name, maxQuoted), listNames(known)))
		} else {
			p.res.Violate(CodeUnsupportedCommand, cp, fmt.Sprintf("Command %s of %s is not supported here; supported: %s.", quote(cmd), clipText(name, maxQuoted), listNames(known)))
		}
		return nil
	}
	delete(args, cp)
	p.res.repair(CodeToolAlias, "", fmt.Sprintf("tool %s with %s %q is %q", quote(name), cp, cmd, t.Name()))
	return t
}

// suppliedTool is the call's own tool named name, nil when it has none.
func (p *pipeline) suppliedTool(name string) *Tool {
	for _, t := range p.opts.Tools {
		if t.Name() == name {
			return t
		}
	}
	return nil
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

func joinPath(base, name string) string {
	if base == "" {
		return name
	}
	return base + "/" + name
}

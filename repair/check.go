package repair

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// check validates the arguments against the schema and records the
// problems as violations, in a stable order.
func (p *pipeline) check(args map[string]any) {
	var found []finding
	// Arguments of strings, booleans and nulls, as most are, hold nothing
	// for the walks into values below: one pass over them saves two.
	nested := hasNumberOrContainer(args)
	if nested {
		p.checkEmpty(args, p.tool.schema, "", &found)
	} else {
		p.checkRequiredEmpty(args, p.tool.schema, "", &found)
	}
	input, undeclared := p.tool.schemaInput(args)
	if undeclared != nil {
		found = append(found, finding{code: CodeUnexpectedParam, names: undeclared})
		p.res.closedRoot = true
	}
	// Arguments a plain schema accepts need not go through the library,
	// which would find nothing in them.
	accepted, numbersRead := p.tool.plain.acceptsRead(input, p.plainIntegers && p.plainUnchanged())
	if !accepted {
		if err := p.tool.schema.Validate(input); err != nil {
			if ve, ok := err.(*jsonschema.ValidationError); ok {
				p.collect(ve, &found)
			} else {
				found = append(found, finding{code: CodeInvalidValue, msg: err.Error()})
			}
		}
	}
	switch {
	case !nested:
	case accepted && numbersRead && undeclared == nil:
		// The check read each number of args (input has them all) as an
		// int64: only the containers are left to look into, if the text
		// has any (plainParsed).
		if !p.plainFlat || !p.plainUnchanged() {
			containersOutOfRange(args, &found)
		}
	default:
		outOfRange(args, "", &found)
	}
	for _, f := range found {
		if f.names != nil && f.loc == "" {
			if p.res.unexpected == nil {
				p.res.unexpected = f.names // shared: a block is never changed
			} else {
				p.res.unexpected = append(slices.Clip(p.res.unexpected), f.names...)
			}
			p.res.unexpectedBlocks++
		}
	}
	first := firstFindings(found, max(MaxViolations-len(p.res.Violations), 0), p.res.omit)
	for _, f := range first {
		p.res.Violate(f.code, f.param, p.message(f))
	}
}

// outOfRange reports numbers no float64 holds (1e999), which consumers
// (protobuf Struct, JavaScript) would make infinite, and keeps them as text.
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
			// Written back only when changed: a write per key costs as
			// much as the check of a million keys.
			if n, ok := e.(json.Number); ok || isContainer(e) {
				if r := outOfRange(e, joinPath(path, k), out); !ok || r != any(n) {
					x[k] = r
				}
			}
		}
	case []any:
		for i, e := range x {
			x[i] = outOfRange(e, joinPath(path, strconv.Itoa(i)), out)
		}
	}
	return v
}

// containersOutOfRange is outOfRange of m's objects and arrays, m's own
// numbers being known to fit.
func containersOutOfRange(m map[string]any, out *[]finding) {
	for k, e := range m {
		if isContainer(e) {
			outOfRange(e, joinPath("", k), out)
		}
	}
}

// firstFindings returns the first k findings in (param, code) order, each
// pair once, and calls omit for every other; it keeps a bounded buffer
// instead of sorting them all. The names of an unexpected-parameter block
// are findings of their own; a block alone at its object holds distinct
// names no other finding has, so they need no memory of those seen.
func firstFindings(found []finding, k int, omit func(code string)) []finding {
	if len(found) == 0 {
		return nil // the usual call: no maps, no buffer of k findings
	}
	byKey := func(a, b finding) int {
		return cmp.Or(strings.Compare(a.param, b.param), strings.Compare(a.code, b.code))
	}
	blocks := map[string]int{}
	for _, f := range found {
		if f.names != nil {
			blocks[f.loc]++
		}
	}
	type key struct{ param, code string }
	seen := map[key]struct{}{}
	first := make([]finding, 0, min(k, weight(found))+1)
	add := func(f finding, distinct bool) {
		if !distinct {
			if _, dup := seen[key{f.param, f.code}]; dup {
				return
			}
			seen[key{f.param, f.code}] = struct{}{}
		}
		if len(first) == k && (k == 0 || byKey(f, first[k-1]) > 0) {
			omit(f.code)
			return
		}
		i, _ := slices.BinarySearchFunc(first, f, byKey)
		first = slices.Insert(first, i, f)
		if len(first) > k {
			omit(first[k].code)
			first = first[:k]
		}
	}
	for _, f := range found {
		if f.names == nil {
			add(f, false)
			continue
		}
		distinct := blocks[f.loc] == 1
		for _, name := range f.names {
			add(finding{code: f.code, param: joinPath(f.loc, name), loc: f.loc, name: name, err: f.err}, distinct)
		}
	}
	return first
}

// finding is a problem the schema check found. Its message is written only
// if listed: a million unknown parameters must not cost a million messages,
// nor a million findings: they are one block.
type finding struct {
	code, param string
	// loc is the object or value concerned, name the parameter in it.
	loc, name string
	// names, for an unexpected-parameter block, are the parameters of the
	// object at loc it does not declare, each once.
	names []string
	err   *jsonschema.ValidationError
	msg   string // known when found
}

// weight is how many problems findings hold.
func weight(found []finding) int {
	n := 0
	for _, f := range found {
		n += max(len(f.names), 1)
	}
	return n
}

func (p *pipeline) message(f finding) string {
	switch {
	case f.msg != "":
		return f.msg
	case f.code == CodeUnexpectedParam:
		return p.unexpectedMessage(f.loc, f.name)
	case f.code == CodeMissingRequired && f.err == nil:
		return fmt.Sprintf("Parameter %s is empty; it is required and must have a value.", quote(p.shownParam(f.loc, f.name)))
	case f.code == CodeMissingRequired && f.loc != "":
		return fmt.Sprintf("Missing required parameter %s in %s.", quote(f.name), quote(p.shownPath(f.loc)))
	case f.code == CodeMissingRequired:
		return fmt.Sprintf("Missing required parameter %s.", quote(p.shownParam(f.loc, f.name)))
	}
	switch k := f.err.ErrorKind.(type) {
	case *kind.Type:
		return fmt.Sprintf("Parameter %s must be %s, not %s.", quote(displayParam(p.shownPath(f.loc))), wantTypes(k.Want), article(k.Got)) + p.xmlShapeHint(f.loc, k)
	default:
		// The validator's words may quote the value: a part is enough.
		return fmt.Sprintf("Parameter %s is invalid: %s.", quote(displayParam(p.shownPath(f.loc))), clipText(f.err.ErrorKind.LocalizedString(printer), 4*maxQuoted))
	}
}

// shownParam is a parameter's name in an object at loc as the model's
// variant shows it, so that messages and the usage example agree
// (absolutePath for Claude 4's path). Variants rename the top level only.
func (p *pipeline) shownParam(loc, name string) string {
	if loc != "" {
		return name
	}
	return p.tool.view(p.res.Family).name(name)
}

// shownPath is a slash-separated path with its first segment as shown.
func (p *pipeline) shownPath(loc string) string {
	if loc == "" {
		return ""
	}
	head, rest, nested := strings.Cut(loc, "/")
	head = p.shownParam("", head)
	if nested {
		return head + "/" + rest
	}
	return head
}

// checkEmpty reports required parameters given as "": models send that when
// they lost track of a value.
func (p *pipeline) checkEmpty(m map[string]any, s *jsonschema.Schema, path string, out *[]finding) {
	props := propsOf(s)
	p.checkRequiredEmpty(m, s, path, out)
	if len(props) == 0 {
		return // nothing inside to look at: a call of many parameters is not walked
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

// checkRequiredEmpty finds the required members of m that are "" where
// the tool does not allow it.
func (p *pipeline) checkRequiredEmpty(m map[string]any, s *jsonschema.Schema, path string, out *[]finding) {
	for _, r := range requiredOf(s) {
		if v, ok := m[r]; ok && v == "" && !p.tool.allowEmpty[r] {
			*out = append(*out, finding{code: CodeMissingRequired, param: joinPath(path, r), loc: path, name: r})
		}
	}
}

// hasNumberOrContainer reports whether a value of m is a number, an
// object or an array: what checkEmpty and outOfRange look into.
func hasNumberOrContainer(m map[string]any) bool {
	for _, v := range m {
		switch v.(type) {
		case json.Number, map[string]any, []any:
			return true
		}
	}
	return false
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
		if len(k.Properties) > 0 {
			*out = append(*out, finding{code: CodeUnexpectedParam, loc: loc, names: k.Properties, err: e})
		}
	case *kind.Type:
		*out = append(*out, finding{code: CodeWrongType, param: loc, loc: loc, err: e})
	case *kind.AnyOf:
		p.collectAlternatives(e, loc, out)
	case *kind.OneOf:
		if k.Subschemas != nil { // several alternatives matched
			*out = append(*out, finding{code: CodeInvalidValue, param: loc, loc: loc, err: e})
			return
		}
		p.collectAlternatives(e, loc, out)
	default:
		*out = append(*out, finding{code: CodeInvalidValue, param: loc, loc: loc, err: e})
	}
}

// collectAlternatives reports a value no alternative of anyOf/oneOf takes
// by what the alternatives of its own type say (Optional[Filter] given an
// object: the object's own problems), or, when none has its type, as a
// wrong type naming them all ("an integer or null, not a string") rather
// than the validator's "'anyOf' failed".
func (p *pipeline) collectAlternatives(e *jsonschema.ValidationError, loc string, out *[]finding) {
	var want []string
	var got string
	var deeper []*jsonschema.ValidationError
	for _, c := range e.Causes {
		if t, ok := typeMismatch(c, e.InstanceLocation); ok {
			want, got = append(want, t.Want...), t.Got
			continue
		}
		deeper = append(deeper, c)
	}
	switch {
	case len(deeper) > 0:
		// The alternative the value comes closest to, by fewest problems
		// (the first on a tie): a discriminated union's other members
		// would only contradict it.
		var best []finding
		for i, c := range deeper {
			var found []finding
			p.collect(c, &found)
			if i == 0 || weight(found) < weight(best) {
				best = found
			}
		}
		*out = append(*out, best...)
	case len(want) > 0:
		*out = append(*out, finding{code: CodeWrongType, param: loc, loc: loc,
			msg: fmt.Sprintf("Parameter %s must be %s, not %s.", quote(displayParam(loc)), wantTypes(want), article(got))})
	default:
		*out = append(*out, finding{code: CodeInvalidValue, param: loc, loc: loc, err: e})
	}
}

// typeMismatch returns the type error an alternative failed with, alone,
// at the value itself (through the wrappers of $ref and groups).
func typeMismatch(c *jsonschema.ValidationError, at []string) (*kind.Type, bool) {
	for {
		switch c.ErrorKind.(type) {
		case *kind.Schema, *kind.Group, *kind.Reference:
			if len(c.Causes) != 1 {
				return nil, false
			}
			c = c.Causes[0]
			continue
		}
		break
	}
	t, ok := c.ErrorKind.(*kind.Type)
	return t, ok && slices.Equal(c.InstanceLocation, at)
}

func (p *pipeline) unexpectedMessage(loc, name string) string {
	if name == rawArgumentsKey && loc == "" {
		return "Unexpected parameter \"raw_arguments\": its text is not a JSON object of arguments. Send the parameters themselves as a JSON object."
	}
	var accepted []string
	if loc == "" {
		for _, a := range p.tool.order {
			accepted = append(accepted, p.shownParam("", a))
		}
	} else if s := schemaAt(p.tool.schema, strings.Split(loc, "/")); s != nil {
		accepted = paramOrder(s)
	}
	where := p.tool.Name()
	if loc != "" {
		where = quote(p.shownPath(loc))
	}
	return fmt.Sprintf("Unexpected parameter %s: %s accepts only %s.", quote(name), where, listNames(accepted))
}

// schemaAt returns the object schema of the value at path, or nil; of
// anyOf/oneOf alternatives, the first that is an object (or an array, on
// the way).
func schemaAt(s *jsonschema.Schema, path []string) *jsonschema.Schema {
	for _, seg := range path {
		s = containerOf(s)
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
	return containerOf(s)
}

// containerOf returns s, or its first alternative that declares properties
// or items.
func containerOf(s *jsonschema.Schema) *jsonschema.Schema {
	alts, _ := alternativesOf(s)
	for _, a := range alts {
		if propsOf(a) != nil || itemsOf(a) != nil {
			return containerOf(a)
		}
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

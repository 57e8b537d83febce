package repair

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Tool is a compiled tool definition. It is immutable and safe to share.
type Tool struct {
	def        ToolDef
	builtin    bool
	schema     *jsonschema.Schema
	aliasOf    map[string]string // every accepted spelling to its canonical name
	allowEmpty map[string]bool
	content    map[string]bool
	// holdsText are the top-level parameters that are or hold edit text
	// (multi_edit's edits): in XML they run to their last closing tag.
	holdsText map[string]bool
	find      map[string]bool
	replace   map[string]bool
	// levels are the keys by object depth (keyLevels), the aliases with
	// the parameters': where JSON repair may trust a key to end a string.
	levels  []map[string]bool
	order   []string       // display order: required ones first
	rank    map[string]int // place in order
	example map[string]any
	// folds maps each object schema to its spellings in folded form, so an
	// unknown key costs one lookup, not a pass over every alias.
	folds   map[*jsonschema.Schema]map[string]string
	maxFold int // the longest folded spelling
	// plainStrings are the parameters checked as "" (schemaplain.go).
	plainStrings map[string]bool
	// closedRoot are the parameters of a closed root schema (schemaplain.go).
	closedRoot map[string]bool
	// roles are content, find and replace in one look-up per key, for
	// the content fixes, which ask all three of every key.
	roles map[string]paramRole
	// plainStringList and closedRootList are the same names, sorted: each
	// call goes through them, and a list costs less than a map's walk.
	plainStringList, closedRootList []string
	// plain is a schema the check applies itself, or nil (schemaplain.go).
	plain *plainRoot
}

// Name returns the canonical tool name.
func (t *Tool) Name() string { return t.def.Name }

// Builtin reports whether the tool is one of toolguard's own.
func (t *Tool) Builtin() bool { return t.builtin }

// Def returns the tool's definition, which shares maps with the tool.
func (t *Tool) Def() ToolDef { return t.def }

// IsContentParam reports whether the canonical parameter carries file
// content or edit text, at any depth: in XML its value runs to its last
// closing tag.
func (t *Tool) IsContentParam(name string) bool { return t.content[name] || t.holdsText[name] }

// IsTextParam reports whether key holds file content (at the top level)
// or edit text.
func (t *Tool) IsTextParam(key string, top bool) bool {
	r := t.roles[key]
	return top && r&roleContent != 0 || r&(roleFind|roleReplace) != 0
}

// paramRole is what a parameter's text is: file content, the text an edit
// finds, the text it puts in; a set of them.
type paramRole uint8

const (
	roleContent paramRole = 1 << iota
	roleFind
	roleReplace
)

func paramRoles(content, find, replace map[string]bool) map[string]paramRole {
	out := make(map[string]paramRole, len(content)+len(find)+len(replace))
	for _, set := range []struct {
		names map[string]bool
		role  paramRole
	}{{content, roleContent}, {find, roleFind}, {replace, roleReplace}} {
		for name, on := range set.names {
			if on {
				out[name] |= set.role
			}
		}
	}
	return out
}

// Params returns the top-level parameter names in display order.
func (t *Tool) Params() []string { return t.order }

// Example returns a correct set of arguments for the tool.
func (t *Tool) Example() map[string]any { return t.example }

// Compile checks a tool definition and compiles its schema, with the
// registry's shared parameter groups.
func (r *Registry) Compile(def ToolDef) (*Tool, error) {
	if def.Name == "" {
		return nil, errors.New("tool definition: name is required")
	}
	if def.Parameters == nil {
		def.Parameters = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	schema, err := compileSchema(def.Parameters)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", def.Name, err)
	}
	t := &Tool{
		def:          def,
		schema:       schema,
		plainStrings: plainStringParams(def.Parameters),
		closedRoot:   closedRootParams(def.Parameters),
		plain:        plainRootOf(def.Parameters),
		aliasOf:      map[string]string{},
		allowEmpty:   map[string]bool{},
		content:      map[string]bool{},
		find:         map[string]bool{},
		replace:      map[string]bool{},
	}
	t.plainStringList = slices.Sorted(maps.Keys(t.plainStrings))
	t.closedRootList = slices.Sorted(maps.Keys(t.closedRoot))
	top, declared := declaredParams(schema)
	if err := t.markParams(top, declared); err != nil {
		return nil, err
	}
	t.holdsText = textHolders(schema, t.find, t.replace)
	t.roles = paramRoles(t.content, t.find, t.replace)
	if err := t.addAliases(r, top, declared); err != nil {
		return nil, err
	}
	t.index()
	t.example = def.Example
	if t.example == nil {
		t.example = synthesizeExample(schema)
	}
	return t, nil
}

// markParams records the content, find and replace parameters.
func (t *Tool) markParams(top, declared map[string]bool) error {
	def := t.def
	for _, c := range def.ContentParams {
		if !top[c] {
			return fmt.Errorf("tool %q: content parameter %q is not declared in the schema", def.Name, c)
		}
		t.content[c] = true
	}
	for _, set := range []struct {
		names []string
		into  map[string]bool
		what  string
	}{{def.FindParams, t.find, "find"}, {def.ReplaceParams, t.replace, "replace"}} {
		for _, n := range set.names {
			if !declared[n] {
				return fmt.Errorf("tool %q: %s parameter %q is not declared in the schema", def.Name, set.what, n)
			}
			set.into[n] = true
		}
	}
	return nil
}

// addAliases records the spellings of the parameters: the shared groups,
// the tool's own aliases (last, so they win) and the variants' names.
func (t *Tool) addAliases(r *Registry, top, declared map[string]bool) error {
	def := t.def
	for _, p := range def.ParamAliases {
		if !declared[p.Param] {
			return fmt.Errorf("tool %q: aliases given for undeclared parameter %q", def.Name, p.Param)
		}
	}
	t.allowSharedEmpty(r, top, declared)
	for _, g := range slices.Concat(r.groups, def.ParamAliases) {
		if !declared[g.Param] {
			continue
		}
		for _, a := range g.Aliases {
			t.aliasOf[a] = g.Param
		}
	}
	for _, g := range def.ParamAliases {
		if g.AllowEmpty {
			t.allowEmpty[g.Param] = true
		}
	}
	for _, v := range def.Variants {
		for canon, shown := range v.Rename {
			if !top[canon] {
				return fmt.Errorf("tool %q: variant renames undeclared parameter %q", def.Name, canon)
			}
			t.aliasOf[shown] = canon
		}
	}
	for p := range declared {
		delete(t.aliasOf, p) // a declared name is never an alias of another
	}
	return nil
}

// allowSharedEmpty lets "" stand for a tool's file content, as it does for
// the built-in write: the parameters it names as content, and those a
// shared group allows empty (content, new_text, in any spelling) where the
// tool also takes a file path. A caller's own write tool writes an empty
// __init__.py as the built-in one does; elsewhere "" still counts as
// missing, a value the model lost track of.
func (t *Tool) allowSharedEmpty(r *Registry, top, declared map[string]bool) {
	for c := range t.content {
		if !t.find[c] && !t.replace[c] {
			t.allowEmpty[c] = true
		}
	}
	filePath := false
	for p := range top {
		filePath = filePath || r.isPathName(p)
	}
	if !filePath {
		return
	}
	for _, g := range r.groups {
		if !g.AllowEmpty {
			continue
		}
		for _, name := range append([]string{g.Param}, g.Aliases...) {
			if declared[name] {
				t.allowEmpty[name] = true
			}
		}
	}
}

// index builds the lookups of keys, folded spellings and parameter order.
func (t *Tool) index() {
	t.levels = keyLevels(t.schema)
	if len(t.levels) > 0 {
		for a := range t.aliasOf {
			t.levels[0][a] = true
		}
	}
	t.folds = foldIndex(t.schema, t.aliasOf)
	for _, f := range t.folds {
		for spelling := range f {
			t.maxFold = max(t.maxFold, len(spelling))
		}
	}
	t.order = paramOrder(t.schema)
	t.rank = make(map[string]int, len(t.order))
	for i, p := range t.order {
		t.rank[p] = i
	}
}

// canonicalParam returns the canonical name of a spelling in an object of
// schema s, or "".
func (t *Tool) canonicalParam(name string, s *jsonschema.Schema) string {
	s = deref(s)
	props := propsOf(s)
	if _, ok := props[name]; ok {
		return name
	}
	if c, ok := t.aliasOf[name]; ok {
		if _, ok := props[c]; ok {
			return c
		}
	}
	folds, ok := t.folds[s]
	if !ok {
		return foldsOf(props, t.aliasOf)[foldName(name)] // a schema the index did not reach
	}
	n := foldedLen(name)
	if n > t.maxFold {
		return "" // longer than any spelling: nothing to fold
	}
	var buf [64]byte
	b := buf[:0]
	if n > len(buf) {
		b = make([]byte, 0, n)
	}
	return folds[string(appendFold(b, name))]
}

// foldIndex builds Tool.folds for every object schema reachable from s
// through properties and items; $ref cycles are walked once.
func foldIndex(s *jsonschema.Schema, aliasOf map[string]string) map[*jsonschema.Schema]map[string]string {
	out := map[*jsonschema.Schema]map[string]string{}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		s = deref(s)
		if s == nil {
			return
		}
		if _, seen := out[s]; seen {
			return
		}
		out[s] = foldsOf(s.Properties, aliasOf)
		for _, ps := range s.Properties {
			walk(ps)
		}
		walk(itemsOf(s))
	}
	walk(s)
	return out
}

// foldsOf maps the folded spellings of an object's properties and aliases
// to canonical names. Properties win, then the smallest spelling, so map
// order does not decide.
func foldsOf(props map[string]*jsonschema.Schema, aliasOf map[string]string) map[string]string {
	out := make(map[string]string, len(props))
	for _, p := range slices.Sorted(maps.Keys(props)) {
		f := foldName(p)
		if _, taken := out[f]; !taken {
			out[f] = p
		}
	}
	for _, a := range slices.Sorted(maps.Keys(aliasOf)) {
		c := aliasOf[a]
		if _, ok := props[c]; !ok {
			continue
		}
		f := foldName(a)
		if _, taken := out[f]; !taken {
			out[f] = c
		}
	}
	return out
}

// compileSchema compiles a JSON Schema from memory alone: it may refer only
// to itself (SchemaRefError). Numbers are re-read as json.Number so large
// integers keep their value.
func compileSchema(params map[string]any) (*jsonschema.Schema, error) {
	raw, err := json.Marshal(strictCopy(params))
	if err != nil {
		return nil, fmt.Errorf("parameters schema: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parameters schema: %w", err)
	}
	loader := &refusingLoader{}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(loader)
	if err := c.AddResource(schemaID, doc); err != nil {
		return nil, fmt.Errorf("parameters schema: %w", clippedError{err})
	}
	s, err := c.Compile(schemaID)
	// A refused load is the answer whatever the library made of it.
	if len(loader.asked) > 0 {
		return nil, fmt.Errorf("parameters schema: %w", refError(doc, loader.asked[0]))
	}
	// A path error can only come from a reference into the library's metaschemas.
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return nil, fmt.Errorf("parameters schema: %w", metaPathError(doc, pe))
	}
	if err != nil {
		return nil, fmt.Errorf("parameters schema: %w", clippedError{err})
	}
	if s.Types != nil && !s.Types.IsEmpty() && !slices.Contains(s.Types.ToStrings(), "object") {
		return nil, fmt.Errorf("parameters schema: type must be object, not %s", s.Types)
	}
	return s, nil
}

// CanonicalParam returns the canonical name of a top-level parameter
// spelling, or "".
func (t *Tool) CanonicalParam(name string) string {
	return t.canonicalParam(name, t.schema)
}

// ParamSpellings maps every spelling of the top-level parameters to its
// canonical name.
func (t *Tool) ParamSpellings() map[string]string {
	out := make(map[string]string, len(t.schema.Properties)+len(t.aliasOf))
	for p := range t.schema.Properties {
		out[p] = p
	}
	for a, c := range t.aliasOf {
		if _, ok := t.schema.Properties[c]; ok {
			out[a] = c
		}
	}
	return out
}

// ParamAliases returns the aliases of each parameter, sorted, and every
// parameter that allows "" even without aliases, so the definition
// round-trips.
func (t *Tool) ParamAliases() []ParamAliases {
	by := map[string][]string{}
	for a, c := range t.aliasOf {
		by[c] = append(by[c], a)
	}
	for c := range t.allowEmpty {
		if _, ok := by[c]; !ok {
			by[c] = nil
		}
	}
	out := make([]ParamAliases, 0, len(by))
	for _, c := range slices.Sorted(maps.Keys(by)) {
		al := by[c]
		slices.Sort(al)
		out = append(out, ParamAliases{Param: c, Aliases: al, AllowEmpty: t.allowEmpty[c]})
	}
	return out
}

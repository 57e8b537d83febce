package repair

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

//go:embed builtin_tools.yaml
var builtinToolsYAML []byte

// ToolDef is the declarative definition of a tool, as written in a tools file
// or sent with a request. Compile turns it into a Tool.
type ToolDef struct {
	// Name is the canonical tool name.
	Name string `json:"name"`
	// Description tells the model what the tool does.
	Description string `json:"description,omitempty"`
	// Aliases are other names models use for the tool.
	Aliases []string `json:"aliases,omitempty"`
	// Parameters is the JSON Schema of the arguments object.
	Parameters map[string]any `json:"parameters"`
	// ParamAliases are this tool's own parameter spellings, on top of the
	// shared groups.
	ParamAliases []ParamAliases `json:"param_aliases,omitempty"`
	// ContentParams hold file content: in XML they run to the last closing
	// tag. Those that are neither find nor replace text are whole-file
	// content, which gets the write fixes (fence, escapes, placeholders).
	ContentParams []string `json:"content_params,omitempty"`
	// FindParams hold text that must match a file (old_text), at any depth:
	// read-tool line numbers are stripped from them.
	FindParams []string `json:"find_params,omitempty"`
	// ReplaceParams hold text that replaces found text (new_text), at any
	// depth.
	ReplaceParams []string `json:"replace_params,omitempty"`
	// Example is a correct set of arguments, shown in usage text and feedback.
	// When absent one is synthesised from the schema.
	Example map[string]any `json:"example,omitempty"`
	// Variants render the tool differently for some model families.
	Variants []Variant `json:"variants,omitempty"`
}

// ParamAliases lists the spellings accepted for one parameter.
type ParamAliases struct {
	// Param is the canonical name, as declared in the schema.
	Param string `json:"param"`
	// Aliases are the other names accepted for it.
	Aliases []string `json:"aliases"`
	// AllowEmpty makes an empty string a legal value for the parameter even
	// when it is required (new_text: "" deletes).
	AllowEmpty bool `json:"allow_empty,omitempty"`
}

// Variant is how a tool is shown to a family of models whose training prefers
// other parameter names (Cline's model-family tool variants).
type Variant struct {
	// Families are the model families the variant is for (see FamilyOf).
	Families []string `json:"families"`
	// Rename maps canonical parameter names to the names shown. Shown names
	// are accepted back as aliases.
	Rename map[string]string `json:"rename,omitempty"`
	// Description replaces the tool description when set.
	Description string `json:"description,omitempty"`
	// ParamDescriptions replace parameter descriptions, keyed by shown name.
	ParamDescriptions map[string]string `json:"param_descriptions,omitempty"`
	// Example replaces example values, keyed by shown name (an absolute
	// path for a variant that asks for absolute paths).
	Example map[string]any `json:"example,omitempty"`
}

// MultiplexerDef is a tool name that stands for several tools, chosen by a
// command parameter (Anthropic's str_replace_based_edit_tool: command
// "str_replace" is an edit, "create" a write).
type MultiplexerDef struct {
	Name         string            `json:"name"`
	Aliases      []string          `json:"aliases,omitempty"`
	CommandParam string            `json:"command_param"`
	Commands     map[string]string `json:"commands"`
}

// ToolsFile is the format of the built-in tools and of custom tools files
// (YAML or JSON).
type ToolsFile struct {
	// ParamGroups are parameter aliases shared by every tool whose schema
	// declares the parameter, at any depth.
	ParamGroups  []ParamAliases   `json:"param_groups,omitempty"`
	Tools        []ToolDef        `json:"tools"`
	Multiplexers []MultiplexerDef `json:"multiplexers,omitempty"`
}

// Tool is a compiled tool definition. It is immutable and safe to share.
type Tool struct {
	def     ToolDef
	builtin bool
	schema  *jsonschema.Schema
	// aliasOf maps every accepted parameter spelling (aliases, and the
	// canonical names' folded forms) to the canonical name.
	aliasOf map[string]string
	// allowEmpty holds the canonical parameters that may be empty strings.
	allowEmpty map[string]bool
	content    map[string]bool
	find       map[string]bool
	replace    map[string]bool
	// keys holds every parameter name and alias at any depth: the keys the
	// JSON repair may expect after a comma.
	keys map[string]bool
	// order is the order parameters are shown in: required ones in schema
	// order, then the rest alphabetically.
	order []string
	// rank is each parameter's place in order.
	rank    map[string]int
	example map[string]any
	// folds maps each object schema of the tool (dereferenced) to its
	// parameter spellings in folded form (foldName) and their canonical
	// names, so an unknown key costs one lookup, not a pass over every
	// parameter and alias.
	folds map[*jsonschema.Schema]map[string]string
	// maxFold is the length of the longest folded spelling in folds.
	maxFold int
}

// Name returns the canonical tool name.
func (t *Tool) Name() string { return t.def.Name }

// Builtin reports whether the tool is one of toolguard's own.
func (t *Tool) Builtin() bool { return t.builtin }

// Def returns the tool's definition. The result shares maps with the tool and
// must not be modified.
func (t *Tool) Def() ToolDef { return t.def }

// IsContentParam reports whether the canonical parameter carries file content.
func (t *Tool) IsContentParam(name string) bool { return t.content[name] }

// IsTextParam reports whether a parameter named key holds file content or
// edit text: a top-level content parameter (top set), or find or replace
// text at any depth.
func (t *Tool) IsTextParam(key string, top bool) bool {
	return top && t.content[key] || t.find[key] || t.replace[key]
}

// Params returns the top-level parameter names in display order.
func (t *Tool) Params() []string { return t.order }

// Example returns a correct set of arguments for the tool.
func (t *Tool) Example() map[string]any { return t.example }

// Registry holds the tools a server knows. It is immutable after
// construction and safe for concurrent use.
type Registry struct {
	tools  map[string]*Tool // by canonical name
	byName map[string]*Tool // canonical names and aliases, exact
	folded map[string]*Tool // folded names and aliases (see foldName)
	mux    map[string]*multiplexer
	groups []ParamAliases
}

type multiplexer struct {
	def   MultiplexerDef
	tools map[string]*Tool
}

// NewRegistry returns a registry holding the built-in tools plus the tools of
// the given files, which may override built-ins by name.
func NewRegistry(files ...ToolsFile) (*Registry, error) {
	builtin, err := ParseToolsFile(builtinToolsYAML)
	if err != nil {
		return nil, fmt.Errorf("built-in tools: %w", err)
	}
	return newRegistry(builtin, files)
}

// NewRegistryWithoutTools returns a registry that holds no tool, only the
// built-in shared parameter alias groups (path for file_path, content for
// text...), which apply to every tool it compiles. It is for front ends
// that validate calls against the tools each request declares and nothing
// else (the proxy): no built-in tool name or alias, and no multiplexer, can
// capture a name the request did not declare, so Resolve only ever returns
// one of the Options.Tools it is given.
func NewRegistryWithoutTools() (*Registry, error) {
	builtin, err := ParseToolsFile(builtinToolsYAML)
	if err != nil {
		return nil, fmt.Errorf("built-in tools: %w", err)
	}
	return newRegistry(ToolsFile{ParamGroups: builtin.ParamGroups}, nil)
}

// newRegistry builds a registry from the built-in file and the given ones.
func newRegistry(builtin ToolsFile, files []ToolsFile) (*Registry, error) {
	r := &Registry{
		tools:  map[string]*Tool{},
		byName: map[string]*Tool{},
		folded: map[string]*Tool{},
		mux:    map[string]*multiplexer{},
	}
	all := append([]ToolsFile{builtin}, files...)
	for _, f := range all {
		r.groups = append(r.groups, f.ParamGroups...)
	}
	for i, f := range all {
		for _, def := range f.Tools {
			t, err := r.Compile(def)
			if err != nil {
				return nil, err
			}
			t.builtin = i == 0
			r.tools[t.Name()] = t
		}
	}
	// Names are indexed after every tool is compiled so a custom tool that
	// overrides a built-in also takes over its aliases only if it declares
	// them: canonical names win over aliases, later files over earlier ones.
	for _, t := range r.sortedTools() {
		for _, a := range t.def.Aliases {
			r.index(a, t)
		}
	}
	for _, t := range r.sortedTools() {
		r.index(t.Name(), t)
	}
	for _, f := range all {
		for _, m := range f.Multiplexers {
			if err := r.addMultiplexer(m); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

func (r *Registry) index(name string, t *Tool) {
	r.byName[name] = t
	r.folded[foldName(name)] = t
}

func (r *Registry) addMultiplexer(def MultiplexerDef) error {
	if def.Name == "" || def.CommandParam == "" || len(def.Commands) == 0 {
		return fmt.Errorf("multiplexer %q: name, command_param and commands are required", def.Name)
	}
	m := &multiplexer{def: def, tools: map[string]*Tool{}}
	for cmd, target := range def.Commands {
		t := r.tools[target]
		if t == nil {
			return fmt.Errorf("multiplexer %q: command %q maps to unknown tool %q", def.Name, cmd, target)
		}
		m.tools[cmd] = t
	}
	for _, n := range append([]string{def.Name}, def.Aliases...) {
		r.mux[foldName(n)] = m
	}
	return nil
}

// Tools returns every tool, sorted by name.
func (r *Registry) Tools() []*Tool { return r.sortedTools() }

func (r *Registry) sortedTools() []*Tool {
	names := slices.Sorted(maps.Keys(r.tools))
	out := make([]*Tool, len(names))
	for i, n := range names {
		out[i] = r.tools[n]
	}
	return out
}

// Tool returns the tool with the given canonical name, or nil.
func (r *Registry) Tool(name string) *Tool { return r.tools[name] }

// Resolve finds the tool a model meant by name: an exact canonical name or
// alias first, then the same ignoring case, '_' and '-'. extra tools (sent
// with a request) are searched first. aliased reports whether the name was
// not the canonical one.
func (r *Registry) Resolve(name string, extra []*Tool) (t *Tool, aliased bool) {
	for _, t := range extra {
		if t.Name() == name {
			return t, false
		}
	}
	for _, t := range extra {
		if slices.Contains(t.def.Aliases, name) {
			return t, true
		}
	}
	if t := r.byName[name]; t != nil {
		return t, t.Name() != name
	}
	f := foldName(name)
	for _, t := range extra {
		if foldName(t.Name()) == f || slices.ContainsFunc(t.def.Aliases, func(a string) bool { return foldName(a) == f }) {
			return t, true
		}
	}
	if t := r.folded[f]; t != nil {
		return t, true
	}
	return nil, false
}

// IsMultiplexer reports whether name stands for several tools chosen by a
// command parameter (str_replace_based_edit_tool).
func (r *Registry) IsMultiplexer(name string) bool { return r.multiplexer(name) != nil }

// multiplexer returns the multiplexer a name stands for, or nil.
func (r *Registry) multiplexer(name string) *multiplexer { return r.mux[foldName(name)] }

// foldName is the form names are compared in when no exact match exists:
// models write WriteFile, write-file and write_file for the same thing.
func foldName(s string) string {
	return string(appendFold(make([]byte, 0, len(s)), s))
}

// foldedLen is len(foldName(s)), without building it.
func foldedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '_' || c == '-' || c == ' ' {
			n--
		}
	}
	return n
}

// appendFold appends the folded form of s to b.
func appendFold(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '-' || c == ' ':
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	return b
}

// Compile checks a tool definition and compiles its schema. Shared parameter
// groups of the registry apply to it.
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
		def:        def,
		schema:     schema,
		aliasOf:    map[string]string{},
		allowEmpty: map[string]bool{},
		content:    map[string]bool{},
		find:       map[string]bool{},
		replace:    map[string]bool{},
	}
	top, declared := declaredParams(schema)
	if err := t.markParams(top, declared); err != nil {
		return nil, err
	}
	if err := t.addAliases(r.groups, top, declared); err != nil {
		return nil, err
	}
	t.index(declared)
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
func (t *Tool) addAliases(groups []ParamAliases, top, declared map[string]bool) error {
	def := t.def
	for _, p := range def.ParamAliases {
		if !declared[p.Param] {
			return fmt.Errorf("tool %q: aliases given for undeclared parameter %q", def.Name, p.Param)
		}
	}
	for _, g := range slices.Concat(groups, def.ParamAliases) {
		if !declared[g.Param] {
			continue
		}
		for _, a := range g.Aliases {
			t.aliasOf[a] = g.Param
		}
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

// index builds the lookups of the tool's keys, folded spellings and
// parameter order.
func (t *Tool) index(declared map[string]bool) {
	t.keys = make(map[string]bool, len(declared)+len(t.aliasOf))
	for k := range declared {
		t.keys[k] = true
	}
	for a := range t.aliasOf {
		t.keys[a] = true
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

// canonicalParam returns the canonical name for a parameter spelling at an
// object whose schema is s, or "" if the spelling is unknown there.
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

// foldsOf maps the folded spellings of an object's properties and of their
// aliases to the canonical names. Properties win over aliases; among equals
// the smallest spelling wins, so the choice does not depend on map order.
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

// ParseToolsFile parses a tools file in YAML or JSON, rejecting unknown
// fields so a misspelt key is an error, not a silently ignored setting.
func ParseToolsFile(data []byte) (ToolsFile, error) {
	var f ToolsFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return ToolsFile{}, fmt.Errorf("parse tools file: %w", err)
	}
	return f, nil
}

// LoadToolsFile reads and parses a tools file.
func LoadToolsFile(path string) (ToolsFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ToolsFile{}, fmt.Errorf("read tools file: %w", err)
	}
	f, err := ParseToolsFile(data)
	if err != nil {
		return ToolsFile{}, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// compileSchema compiles a JSON Schema given as decoded JSON. Numbers are
// re-read as json.Number so large integers in the schema keep their value.
// The schema is compiled from memory alone: it may refer only to itself
// (see SchemaRefError), so compiling never does I/O.
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
	// A refused load is the answer whatever the library made of it: its own
	// text would only quote the URL, resolved.
	if len(loader.asked) > 0 {
		return nil, fmt.Errorf("parameters schema: %w", refError(doc, loader.asked[0]))
	}
	// Now that nothing is loaded, a path error comes from the library's
	// built-in metaschemas: a reference to a folder of theirs.
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
// spelling (the name itself, an alias, or the name in another case), or ""
// when the tool has no such parameter.
func (t *Tool) CanonicalParam(name string) string {
	return t.canonicalParam(name, t.schema)
}

// ParamSpellings returns every spelling of the tool's top-level parameters,
// canonical names and aliases, mapped to the canonical name.
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

// ParamAliases returns every parameter spelling the tool accepts besides the
// canonical names, grouped by canonical parameter and sorted.
func (t *Tool) ParamAliases() []ParamAliases {
	by := map[string][]string{}
	for a, c := range t.aliasOf {
		by[c] = append(by[c], a)
	}
	out := make([]ParamAliases, 0, len(by))
	for _, c := range slices.Sorted(maps.Keys(by)) {
		al := by[c]
		slices.Sort(al)
		out = append(out, ParamAliases{Param: c, Aliases: al, AllowEmpty: t.allowEmpty[c]})
	}
	return out
}

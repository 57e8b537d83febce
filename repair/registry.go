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
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

//go:embed builtin_tools.yaml
var builtinToolsYAML []byte

// ToolDef is the definition of a tool, as written in a tools file or sent
// with a request. Compile turns it into a Tool.
type ToolDef struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Aliases     []string       `json:"aliases,omitempty"`
	Parameters  map[string]any `json:"parameters"` // JSON Schema of the arguments
	// ParamAliases add to the shared groups.
	ParamAliases []ParamAliases `json:"param_aliases,omitempty"`
	// ContentParams hold file content, which in XML runs to the last closing
	// tag; whole-file content (neither find nor replace) gets the write fixes.
	ContentParams []string `json:"content_params,omitempty"`
	// FindParams (old_text) and ReplaceParams (new_text), at any depth, get
	// the edit-text fixes.
	FindParams    []string `json:"find_params,omitempty"`
	ReplaceParams []string `json:"replace_params,omitempty"`
	// Example is synthesised from the schema when absent.
	Example  map[string]any `json:"example,omitempty"`
	Variants []Variant      `json:"variants,omitempty"`
}

// ParamAliases lists the spellings accepted for one parameter.
type ParamAliases struct {
	Param   string   `json:"param"`
	Aliases []string `json:"aliases"`
	// AllowEmpty makes "" a value of a required parameter (new_text: ""
	// deletes, content: "" is an empty file); else "" counts as missing.
	AllowEmpty bool `json:"allow_empty,omitempty"`
}

// Variant is how a tool is shown to model families whose training prefers
// other parameter names (FamilyOf).
type Variant struct {
	Families []string `json:"families"`
	// Rename maps canonical names to the names shown, accepted back as aliases.
	Rename      map[string]string `json:"rename,omitempty"`
	Description string            `json:"description,omitempty"`
	// ParamDescriptions and Example are keyed by shown name.
	ParamDescriptions map[string]string `json:"param_descriptions,omitempty"`
	Example           map[string]any    `json:"example,omitempty"`
}

// MultiplexerDef is a tool name that stands for several tools, chosen by a
// command parameter (str_replace_based_edit_tool).
type MultiplexerDef struct {
	Name         string            `json:"name"`
	Aliases      []string          `json:"aliases,omitempty"`
	CommandParam string            `json:"command_param"`
	Commands     map[string]string `json:"commands"`
}

// ToolsFile is the format of tools files (YAML or JSON).
type ToolsFile struct {
	// ParamGroups apply to every tool declaring the parameter, at any depth.
	ParamGroups  []ParamAliases   `json:"param_groups,omitempty"`
	Tools        []ToolDef        `json:"tools"`
	Multiplexers []MultiplexerDef `json:"multiplexers,omitempty"`
}

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
	// keys are the names and aliases at any depth: what JSON repair may
	// expect after a comma.
	keys    map[string]bool
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
	return top && t.content[key] || t.find[key] || t.replace[key]
}

// Params returns the top-level parameter names in display order.
func (t *Tool) Params() []string { return t.order }

// Example returns a correct set of arguments for the tool.
func (t *Tool) Example() map[string]any { return t.example }

// Registry holds the tools a server knows; it is safe for concurrent use.
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

// NewRegistry returns a registry of the built-in tools and those of files,
// which may override built-ins by name.
func NewRegistry(files ...ToolsFile) (*Registry, error) {
	builtin, err := ParseToolsFile(builtinToolsYAML)
	if err != nil {
		return nil, fmt.Errorf("built-in tools: %w", err)
	}
	return newRegistry(builtin, files)
}

// NewRegistryWithoutTools returns a registry holding only the shared
// parameter alias groups, for front ends that validate against the tools
// each request declares (the proxy): no built-in name can capture a call.
func NewRegistryWithoutTools() (*Registry, error) {
	builtin, err := ParseToolsFile(builtinToolsYAML)
	if err != nil {
		return nil, fmt.Errorf("built-in tools: %w", err)
	}
	return newRegistry(ToolsFile{ParamGroups: builtin.ParamGroups}, nil)
}

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
	// Names are indexed once every tool is compiled, so a custom tool takes
	// over a built-in's aliases only if it declares them.
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

// Resolve finds the tool a model meant by name: an exact name or alias
// first, then ignoring case, '_' and '-'; extra tools first. Last, a name
// with chat-template tokens glued to it (splitTemplateTokens) is the tool
// its start names, if any.
func (r *Registry) Resolve(name string, extra []*Tool) (t *Tool, aliased bool) {
	if t, aliased := r.resolve(name, extra); t != nil {
		return t, aliased
	}
	if base, _, ok := splitTemplateTokens(name); ok {
		if t, _ := r.resolve(base, extra); t != nil {
			return t, true
		}
	}
	return nil, false
}

func (r *Registry) resolve(name string, extra []*Tool) (t *Tool, aliased bool) {
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

// splitTemplateTokens splits a tool name that a model's chat-template
// tokens leaked into, as gpt-oss's "create_event<|channel|>analysis", at
// its first special token ("<|" word "|>"): the name before it, trimmed,
// and the tokens and what follows them. ok is false when there is no such
// token or nothing before it.
func splitTemplateTokens(name string) (base, tokens string, ok bool) {
	k := strings.Index(name, "<|")
	if k < 0 {
		return "", "", false
	}
	word := name[k+2:]
	end := strings.Index(word, "|>")
	if end <= 0 || strings.IndexFunc(word[:end], func(c rune) bool { return !isTokenRune(c) }) >= 0 {
		return "", "", false
	}
	base = strings.TrimSpace(name[:k])
	return base, name[k:], base != ""
}

func isTokenRune(c rune) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// IsMultiplexer reports whether name stands for several tools (MultiplexerDef).
func (r *Registry) IsMultiplexer(name string) bool { return r.multiplexer(name) != nil }

func (r *Registry) multiplexer(name string) *multiplexer { return r.mux[foldName(name)] }

// foldName is the form names are compared in when none matches exactly:
// WriteFile, write-file and write_file are one.
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
		aliasOf:      map[string]string{},
		allowEmpty:   map[string]bool{},
		content:      map[string]bool{},
		find:         map[string]bool{},
		replace:      map[string]bool{},
	}
	top, declared := declaredParams(schema)
	if err := t.markParams(top, declared); err != nil {
		return nil, err
	}
	t.holdsText = textHolders(schema, t.find, t.replace)
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

// index builds the lookups of keys, folded spellings and parameter order.
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

// ParseToolsFile parses a tools file in YAML or JSON; a misspelt key is an error.
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

package repair

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Registry holds the tools a server knows; it is safe for concurrent use.
type Registry struct {
	tools  map[string]*Tool // by canonical name
	byName map[string]*Tool // canonical names and aliases, exact
	folded map[string]*Tool // folded names and aliases (see foldName)
	mux    map[string]*multiplexer
	groups []ParamAliases
	// commentary: ToolsFile.CommentaryParams, the last file's that sets it;
	// commentaryRank: each name's first place in it.
	commentary     []string
	commentaryRank map[string]int
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
	return newRegistry(ToolsFile{ParamGroups: builtin.ParamGroups, CommentaryParams: builtin.CommentaryParams}, nil)
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
		if f.CommentaryParams != nil {
			r.commentary = f.CommentaryParams
		}
	}
	r.commentaryRank = make(map[string]int, len(r.commentary))
	for i, k := range r.commentary {
		if _, ok := r.commentaryRank[k]; !ok {
			r.commentaryRank[k] = i
		}
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

// Resolve finds the tool a model meant by name: a declared (extra) tool in
// any spelling it accepts first, then the registry's by an exact name or
// alias, then ignoring case, '_' and '-' (see resolve). Last, a name
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
	if base, ok := trimNameNoise(name); ok {
		if t, _ := r.resolve(base, extra); t != nil {
			return t, true
		}
	}
	return nil, false
}

// trimNameNoise takes off what chat templates and servers leave around a
// tool's name: the "functions." namespace (harmony, Kimi), an end-of-text
// "</s>", and DeepSeek's full-width tokens ("<｜tool▁sep｜>") and what
// follows them. ok is false when nothing was taken off or nothing is left.
func trimNameNoise(name string) (string, bool) {
	base := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(name), "functions."), "</s>")
	if k := strings.Index(base, "<｜"); k >= 0 {
		base = base[:k]
	}
	base = strings.TrimSpace(base)
	return base, base != "" && base != name
}

// resolve applies the precedence documented in docs/api.md
// ("Which tool a name stands for"): the request's declared tools in every
// spelling they accept come first, so a built-in's alias (write) never
// takes a call from the agent's own tool (Write); a registry name or alias
// stands for a declared tool only through the registry tool's canonical
// name (create_file is write_to_file, which the agent declared).
func (r *Registry) resolve(name string, extra []*Tool) (t *Tool, aliased bool) {
	if t, aliased := resolveDeclared(name, extra); t != nil {
		return t, aliased
	}
	t = r.byName[name]
	if t == nil {
		t = r.folded[foldName(name)]
	}
	if t == nil {
		return nil, false
	}
	if d, _ := resolveDeclared(t.Name(), extra); d != nil {
		return d, true
	}
	return t, t.Name() != name
}

// resolveDeclared finds the declared tool of a name: by its name exactly,
// by one of its aliases exactly, then by either ignoring case, '_' and '-';
// the first declared wins within each step.
func resolveDeclared(name string, extra []*Tool) (t *Tool, aliased bool) {
	if len(extra) == 0 {
		return nil, false
	}
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
	f := foldName(name)
	for _, t := range extra {
		if foldsTo(t.Name(), f) || slices.ContainsFunc(t.def.Aliases, func(a string) bool { return foldsTo(a, f) }) {
			return t, true
		}
	}
	return nil, false
}

// foldsTo reports whether foldName(s) == f, without building it.
func foldsTo(s, f string) bool {
	j := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '-' || c == ' ':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if j >= len(f) || f[j] != c {
			return false
		}
		j++
	}
	return j == len(f)
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

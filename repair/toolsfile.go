package repair

import (
	_ "embed"
	"fmt"

	"sigs.k8s.io/yaml"
)

// The tools file format: the definitions a server loads at start (and
// toolguard's own, builtin_tools.yaml), which Compile turns into Tools.

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
	// Supplied are commands whose tool is not the registry's but one a
	// front end supplies with the call (guard's read_file for view): the
	// tool of that name among the call's own tools, unsupported without it.
	Supplied map[string]string `json:"supplied_commands,omitempty"`
}

// ToolsFile is the format of tools files (YAML or JSON).
type ToolsFile struct {
	// ParamGroups apply to every tool declaring the parameter, at any depth.
	ParamGroups []ParamAliases `json:"param_groups,omitempty"`
	// CommentaryParams are the parameters that only say why a call is made
	// (explanation, reason): dropped, and reported, where a tool's schema
	// does not declare them. A file that sets the list replaces the one
	// before it; [] drops none.
	CommentaryParams []string         `json:"commentary_params,omitempty"`
	Tools            []ToolDef        `json:"tools"`
	Multiplexers     []MultiplexerDef `json:"multiplexers,omitempty"`
}

// ParseToolsFile parses a tools file in YAML or JSON; a misspelt key is an error.
func ParseToolsFile(data []byte) (ToolsFile, error) {
	var f ToolsFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return ToolsFile{}, fmt.Errorf("parse tools file: %w", err)
	}
	return f, nil
}

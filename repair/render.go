package repair

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Model families whose tool definitions differ (Cline's ModelFamily).
const (
	FamilyGeneric       = "generic"
	FamilyNativeNextGen = "native-next-gen"
	FamilyNativeGPT5    = "native-gpt-5"
)

// FamilyOf returns the model family of a model id: Claude 4+, Gemini 2.5+
// and Grok 4+ are native-next-gen, GPT-5 native-gpt-5, the rest generic.
func FamilyOf(modelID string) string {
	id := strings.ToLower(modelID)
	if strings.Contains(id, "gpt-5") {
		return FamilyNativeGPT5
	}
	var vendor string
	major, minor := -1, -1
	// A sequence, not a slice: every call reads its model id.
	for w := range strings.FieldsFuncSeq(id, func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }) {
		switch {
		case w == "claude" || w == "gemini" || w == "grok":
			vendor = w
		case vendor != "" && len(w) <= 2 && w[0] >= '0' && w[0] <= '9' && isDigits(w):
			n := int(w[0] - '0')
			if len(w) == 2 {
				n = n*10 + int(w[1]-'0')
			}
			if major < 0 {
				major = n
			} else if minor < 0 {
				minor = n
			}
		}
	}
	switch {
	case vendor == "claude" && major >= 4,
		vendor == "gemini" && (major >= 3 || major == 2 && minor >= 5),
		vendor == "grok" && major >= 4:
		return FamilyNativeNextGen
	}
	return FamilyGeneric
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Rendered is a tool as shown to one model family.
type Rendered struct {
	Def       ToolDef        // with the family's names and texts
	OpenAI    map[string]any // {"type": "function", "function": {...}}
	Anthropic map[string]any // {name, description, input_schema}
	XMLUsage  string         // prompt text for XML tool calling
}

// view is a tool seen through a model family's variant.
type view struct {
	t           *Tool
	description string
	shown       map[string]string // canonical → shown name
	descs       map[string]string // shown name → description override
	examples    map[string]any    // shown name → example override
}

func (t *Tool) view(family string) view {
	v := view{t: t, description: t.def.Description}
	for _, vr := range t.def.Variants {
		for _, f := range vr.Families {
			if f != family {
				continue
			}
			v.shown = vr.Rename
			v.descs = vr.ParamDescriptions
			v.examples = vr.Example
			if vr.Description != "" {
				v.description = vr.Description
			}
		}
	}
	return v
}

func (v view) name(canon string) string {
	if s, ok := v.shown[canon]; ok {
		return s
	}
	return canon
}

// example returns the example arguments, by canonical name, with the view's values.
func (v view) example() map[string]any {
	out := make(map[string]any, len(v.t.example))
	for k, e := range v.t.example {
		if x, ok := v.examples[v.name(k)]; ok {
			e = x
		}
		out[k] = e
	}
	return out
}

// shownExample is example() under the shown names.
func (v view) shownExample() map[string]any {
	ex := v.example()
	out := make(map[string]any, len(ex))
	for k, e := range ex {
		out[v.name(k)] = e
	}
	return out
}

// Render returns the tool as shown to a model family.
func (t *Tool) Render(family string) Rendered {
	v := t.view(family)
	params := renameSchema(t.def.Parameters, v)
	def := t.def
	def.Description = v.description
	def.Parameters = params
	def.Variants = nil
	def.Example = v.shownExample()
	return Rendered{
		Def: def,
		OpenAI: map[string]any{
			"type": "function",
			"function": map[string]any{
				"name":        t.Name(),
				"description": v.description,
				"parameters":  params,
			},
		},
		Anthropic: map[string]any{
			"name":         t.Name(),
			"description":  v.description,
			"input_schema": params,
		},
		XMLUsage: v.xmlUsage(),
	}
}

// renameSchema copies a schema's top level with the view's names and descriptions.
func renameSchema(params map[string]any, v view) map[string]any {
	out := make(map[string]any, len(params))
	for k, e := range params {
		out[k] = e
	}
	if len(v.shown) == 0 && len(v.descs) == 0 {
		return out
	}
	if props, ok := params["properties"].(map[string]any); ok {
		np := make(map[string]any, len(props))
		for k, ps := range props {
			shown := v.name(k)
			if d, ok := v.descs[shown]; ok {
				if m, ok := ps.(map[string]any); ok {
					cp := make(map[string]any, len(m))
					for kk, vv := range m {
						cp[kk] = vv
					}
					cp["description"] = d
					ps = cp
				}
			}
			np[shown] = ps
		}
		out["properties"] = np
	}
	if req, ok := params["required"].([]any); ok {
		nr := make([]any, len(req))
		for i, r := range req {
			if s, ok := r.(string); ok {
				nr[i] = v.name(s)
			} else {
				nr[i] = r
			}
		}
		out["required"] = nr
	}
	return out
}

// xmlUsage renders Cline-style usage text.
func (v view) xmlUsage() string {
	var b strings.Builder
	t := v.t
	fmt.Fprintf(&b, "## %s\nDescription: %s\nParameters:\n", t.Name(), v.description)
	required := map[string]bool{}
	for _, r := range requiredOf(t.schema) {
		required[r] = true
	}
	props := propsOf(t.schema)
	for _, p := range t.order {
		shown := v.name(p)
		desc, ok := v.descs[shown]
		if !ok && props[p] != nil {
			desc = deref(props[p]).Description
		}
		req := "(optional)"
		if required[p] {
			req = "(required)"
		}
		fmt.Fprintf(&b, "- %s: %s %s\n", shown, req, desc)
	}
	b.WriteString("Usage:\n")
	b.WriteString(v.xmlBlock(v.example()))
	return b.String()
}

// xmlBlock renders arguments as a tool block in the view's names.
func (v view) xmlBlock(args map[string]any) string {
	var b strings.Builder
	t := v.t
	fmt.Fprintf(&b, "<%s>\n", t.Name())
	for _, p := range orderedKeys(t, args) {
		val, ok := args[p]
		if !ok {
			continue
		}
		shown := v.name(p)
		s, isStr := val.(string)
		if !isStr {
			raw, _ := json.Marshal(val)
			s = string(raw)
		}
		if t.content[p] || strings.HasPrefix(s, "\n") || strings.HasSuffix(s, "\n") {
			// Layout newlines: the parser strips exactly one on each side.
			fmt.Fprintf(&b, "<%s>\n%s\n</%s>\n", shown, s, shown)
		} else {
			fmt.Fprintf(&b, "<%s>%s</%s>\n", shown, s, shown)
		}
	}
	fmt.Fprintf(&b, "</%s>\n", t.Name())
	return b.String()
}

// jsonBlock renders arguments as indented JSON in the view's names and the
// tool's order (path before content, as the model should write them).
func (v view) jsonBlock(args map[string]any) string {
	var b strings.Builder
	b.WriteString("{")
	for i, k := range orderedKeys(v.t, args) {
		if i > 0 {
			b.WriteString(",")
		}
		name, _ := json.Marshal(v.name(k))
		val, err := EncodeJSON(args[k])
		if err != nil {
			continue
		}
		var ind bytes.Buffer
		if json.Indent(&ind, val, "  ", "  ") != nil {
			ind.Write(val)
		}
		fmt.Fprintf(&b, "\n  %s: %s", name, ind.Bytes())
	}
	b.WriteString("\n}")
	return b.String()
}

// orderedKeys lists args' keys: the tool's parameters in order, then others by name.
func orderedKeys(t *Tool, args map[string]any) []string {
	return orderKeys(t, slices.Collect(maps.Keys(args)))
}

// orderKeys sorts keys as orderedKeys does, in place, and returns them.
func orderKeys(t *Tool, keys []string) []string {
	rank := func(k string) int {
		if r, ok := t.rank[k]; ok {
			return r
		}
		return len(t.order)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b)) })
	return keys
}

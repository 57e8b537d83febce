package oracle

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// Seg is a piece of a rendered response: a format's tag (which a
// corruption may drop or repeat) or anything else.
type Seg struct {
	Text string
	Tag  bool
}

// Response is a call rendered in a stream format.
type Response struct {
	Segs []Seg
	// Args is the arguments text of a structured format (openai,
	// anthropic), whose calls arrive as fragments, not text.
	Args string
}

// Text joins the segments.
func (r Response) Text() string {
	var b strings.Builder
	for _, s := range r.Segs {
		b.WriteString(s.Text)
	}
	return b.String()
}

// Stream corruptions, applied to a response.
const (
	DropTag    Kind = "drop_tag"    // one of the format's tags left out
	DupTag     Kind = "dup_tag"     // one of the format's tags written twice
	StreamCut  Kind = "stream_cut"  // the response cut off at a position
	ProseAfter Kind = "prose_after" // a line of prose after the call
)

// StreamKinds are the corruptions of a response.
var StreamKinds = []Kind{DropTag, DupTag, StreamCut, ProseAfter}

// tagFormats carry each value as text between tags: a case that changed
// the arguments text beyond its values (stage 2 on) has no rendering in
// them.
var tagFormats = []string{"xml_tags", "qwen_xml", "minimax", "glm45", "claude_xml"}

// Render writes a case's call in a stream format, by its name; ok is false
// when the format cannot carry it (an untyped non-string value in a tag
// format, a key Python cannot name, a value text that is no Python
// literal) or the format is unknown.
func Render(format string, c Case, rng *rand.Rand) (Response, bool) {
	name := c.Want.Tool.Name
	if format == "auto" {
		text := []string{"hermes", "qwen_xml", "minimax", "glm45", "harmony", "deepseek_v3", "deepseek_v31",
			"kimi_k2", "mistral", "llama3_json", "claude_xml", "pythonic"}
		format = text[rng.IntN(len(text))]
	}
	if slices.Contains(tagFormats, format) {
		return renderTags(format, c)
	}
	args := c.Text
	// A cut ends the output: a format that writes JSON or a fence after
	// the arguments (hermes, llama3_json, deepseek_v3, mistral's list)
	// cannot carry one, as the wrapped kind cannot (a response cut inside
	// them is the stream corruption stream_cut).
	cut := slices.Contains(c.Kinds, Cut)
	if cut && slices.Contains([]string{"hermes", "llama3_json", "deepseek_v3"}, format) {
		return Response{}, false
	}
	tag := func(s string) Seg { return Seg{Text: s, Tag: true} }
	txt := func(s string) Seg { return Seg{Text: s} }
	var segs []Seg
	switch format {
	case "openai", "anthropic":
		return Response{Args: args}, true
	case "hermes":
		segs = []Seg{tag("<tool_call>"), txt("\n{\"name\": " + JSON(name) + ", \"arguments\": " + args + "}\n"), tag("</tool_call>")}
	case "harmony":
		segs = []Seg{tag("<|start|>"), txt("assistant"), tag("<|channel|>"), txt("commentary to=functions." + name + " "),
			tag("<|constrain|>"), txt("json"), tag("<|message|>"), txt(args), tag("<|call|>")}
	case "deepseek_v3":
		segs = []Seg{tag("<｜tool▁calls▁begin｜>"), tag("<｜tool▁call▁begin｜>"), txt("function"), tag("<｜tool▁sep｜>"),
			txt(name + "\n```json\n" + args + "\n```"), tag("<｜tool▁call▁end｜>"), tag("<｜tool▁calls▁end｜>")}
	case "deepseek_v31":
		segs = []Seg{tag("<｜tool▁calls▁begin｜>"), tag("<｜tool▁call▁begin｜>"), txt(name), tag("<｜tool▁sep｜>"),
			txt(args), tag("<｜tool▁call▁end｜>"), tag("<｜tool▁calls▁end｜>")}
	case "kimi_k2":
		segs = []Seg{tag("<|tool_calls_section_begin|>"), tag("<|tool_call_begin|>"), txt("functions." + name + ":0"),
			tag("<|tool_call_argument_begin|>"), txt(args), tag("<|tool_call_end|>"), tag("<|tool_calls_section_end|>")}
	case "mistral":
		if rng.IntN(2) == 0 && !cut {
			segs = []Seg{tag("[TOOL_CALLS]"), txt("[{\"name\": " + JSON(name) + ", \"arguments\": " + args + "}]")}
		} else {
			segs = []Seg{tag("[TOOL_CALLS]"), txt(name), tag("[ARGS]"), txt(args)}
		}
	case "llama3_json":
		segs = []Seg{tag("<|python_tag|>"), txt("{\"name\": " + JSON(name) + ", \"parameters\": " + args + "}")}
	case "pythonic":
		return renderPythonic(c)
	default:
		return Response{}, false
	}
	return Response{Segs: segs}, true
}

// renderPythonic writes [name(key=value, ...)]: only the values' own
// corruptions, keys that are identifiers.
func renderPythonic(c Case) (Response, bool) {
	if !valuesOnly(c) {
		return Response{}, false
	}
	var b strings.Builder
	b.WriteString(c.Want.Tool.Name + "(")
	for i, k := range sortedKeys(c.Args) {
		if !isIdentifier(k) {
			return Response{}, false
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k + "=" + Python(c.Args[k]))
	}
	b.WriteString(")")
	return Response{Segs: []Seg{{Text: "[", Tag: true}, {Text: b.String()}, {Text: "]", Tag: true}}}, true
}

// valuesOnly reports whether only the values were corrupted, so a format
// that writes each value itself can carry the case.
func valuesOnly(c Case) bool {
	return !slices.ContainsFunc(c.Kinds, func(k Kind) bool { return k.Stage() > 1 })
}

// isXMLName reports an ASCII tag name: a key with spaces or symbols has
// no tag.
func isXMLName(s string) bool {
	for i, c := range []byte(s) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

func isIdentifier(s string) bool {
	for i, c := range []byte(s) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// renderTags writes a call in a format of tags: each value as text, a
// value of another type as JSON where the schema types the parameter.
func renderTags(format string, c Case) (Response, bool) {
	if !valuesOnly(c) {
		return Response{}, false
	}
	name := c.Want.Tool.Name
	tag := func(s string) Seg { return Seg{Text: s, Tag: true} }
	txt := func(s string) Seg { return Seg{Text: s} }
	var segs []Seg
	switch format {
	case "xml_tags":
		segs = append(segs, tag("<"+name+">"), txt("\n"))
	case "qwen_xml":
		segs = append(segs, tag("<tool_call>"), txt("\n"), tag("<function="+name+">"), txt("\n"))
	case "minimax":
		segs = append(segs, tag("<minimax:tool_call>"), txt("\n"), tag("<invoke name=\""+name+"\">"), txt("\n"))
	case "glm45":
		segs = append(segs, tag("<tool_call>"), txt(name+"\n"))
	case "claude_xml":
		segs = append(segs, tag("<function_calls>"), txt("\n"), tag("<invoke name=\""+name+"\">"), txt("\n"))
	}
	params, ok := Params(c)
	if !ok {
		return Response{}, false
	}
	for _, k := range sortedKeys(c.Args) {
		if !isXMLName(k) {
			return Response{}, false
		}
		v := params[k]
		switch format {
		case "xml_tags":
			segs = append(segs, tag("<"+k+">"), txt(v), tag("</"+k+">"), txt("\n"))
		case "qwen_xml":
			// vLLM takes one newline off each end of a value.
			segs = append(segs, tag("<parameter="+k+">"), txt("\n"+v+"\n"), tag("</parameter>"), txt("\n"))
		case "minimax", "claude_xml":
			segs = append(segs, tag("<parameter name=\""+k+"\">"), txt(v), tag("</parameter>"), txt("\n"))
		case "glm45":
			segs = append(segs, tag("<arg_key>"), txt(k), tag("</arg_key>"), txt("\n"), tag("<arg_value>"), txt(v), tag("</arg_value>"), txt("\n"))
		}
	}
	switch format {
	case "xml_tags":
		segs = append(segs, tag("</"+name+">"))
	case "qwen_xml":
		segs = append(segs, tag("</function>"), txt("\n"), tag("</tool_call>"))
	case "minimax":
		segs = append(segs, tag("</invoke>"), txt("\n"), tag("</minimax:tool_call>"))
	case "glm45":
		segs = append(segs, tag("</tool_call>"))
	case "claude_xml":
		segs = append(segs, tag("</invoke>"), txt("\n"), tag("</function_calls>"))
	}
	return Response{Segs: segs}, true
}

// CorruptResponse applies a stream corruption to a response; ok is false
// when it does not apply (no tag to drop in a structured format).
func CorruptResponse(r Response, k Kind, rng *rand.Rand) (Response, bool) {
	var tags []int
	for i, s := range r.Segs {
		if s.Tag {
			tags = append(tags, i)
		}
	}
	segs := slices.Clone(r.Segs)
	switch k {
	case DropTag, DupTag:
		if len(tags) == 0 {
			return r, false
		}
		i := tags[rng.IntN(len(tags))]
		if k == DropTag {
			segs = slices.Delete(segs, i, i+1)
		} else {
			segs = slices.Insert(segs, i, segs[i])
		}
	case StreamCut:
		text := r.Text()
		if r.Args != "" || len(text) < 2 {
			if len(r.Args) < 2 {
				return r, false
			}
			text = r.Args
		}
		at := 1 + rng.IntN(len(text)-1)
		for at > 0 && text[at]&0xC0 == 0x80 {
			at--
		}
		if r.Args != "" {
			return Response{Args: text[:at]}, true
		}
		segs = []Seg{{Text: text[:at]}}
	case ProseAfter:
		if r.Args != "" {
			return r, false
		}
		segs = append(segs, Seg{Text: "\n\nI have made the change."})
	default:
		return r, false
	}
	r.Segs = segs
	return r, true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Params are a case's arguments as text parameters: each string as it is,
// a value of another type as JSON where the schema types the parameter;
// ok is false when the case has more than value corruptions or the tool
// does not say whether a value is text or JSON.
func Params(c Case) (map[string]string, bool) {
	if !valuesOnly(c) {
		return nil, false
	}
	out := make(map[string]string, len(c.Args))
	for k, v := range c.Args {
		s, isString := v.(string)
		if !isString {
			if ps := c.Want.Tool.ParamSchema(k); ps == nil || ps["type"] == nil {
				return nil, false
			}
			s = JSON(v)
		}
		out[k] = s
	}
	return out, true
}

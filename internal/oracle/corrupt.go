package oracle

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind names one corruption seen in the wild.
type Kind string

// The corruptions, by the stage that makes them: a value changed, the
// arguments written out wrong, the text edited, the text wrapped.
const (
	None Kind = "none"

	Renamed         Kind = "renamed_param"      // content -> contents, file_path -> filePath, Path
	ValueLiteral    Kind = "value_json_literal" // a path or enum value that is a JSON string literal
	Entities        Kind = "html_entities"      // < > & of file text as &lt; &gt; &amp;
	EscapedNewlines Kind = "escaped_newlines"   // file text's newlines as the two characters \n

	PythonLiterals  Kind = "python_literals"  // repr of a dict: 'quotes', True, None
	SingleQuotes    Kind = "single_quotes"    // JSON with every string in single quotes
	RawNewlines     Kind = "raw_newlines"     // newlines inside strings not escaped
	UnescapedQuotes Kind = "unescaped_quotes" // " inside strings not escaped

	MissingClose Kind = "missing_close" // the final } left out
	ExtraClose   Kind = "extra_close"   // a bracket too many at the end
	StrayQuote   Kind = "stray_quote"   // a quote and brace too many at the end: "}
	MissingQuote Kind = "missing_quote" // a string value's closing quote left out
	StrayWords   Kind = "stray_words"   // words after a value
	Cut          Kind = "cut"           // cut off at a position (truncation)

	DoubleEncoded Kind = "double_encoded" // the arguments as a JSON string
	RawArguments  Kind = "raw_arguments"  // {"raw_arguments": "<text>"}
	Wrapped       Kind = "wrapped"        // {"arguments": {...}}
	Fence         Kind = "code_fence"     // ```json ... ```
)

// Kinds lists every kind of the arguments text, None first.
var Kinds = []Kind{
	None, Renamed, ValueLiteral, Entities, EscapedNewlines,
	PythonLiterals, SingleQuotes, RawNewlines, UnescapedQuotes,
	MissingClose, ExtraClose, StrayQuote, MissingQuote, StrayWords, Cut,
	DoubleEncoded, RawArguments, Wrapped, Fence,
}

// Stage is the order kinds apply in: 1 values, 2 writing, 3 text edits, 4
// wrappers.
func (k Kind) Stage() int {
	switch k {
	case Renamed, ValueLiteral, Entities, EscapedNewlines:
		return 1
	case PythonLiterals, SingleQuotes, RawNewlines, UnescapedQuotes:
		return 2
	case MissingClose, ExtraClose, StrayQuote, MissingQuote, StrayWords, Cut:
		return 3
	case DoubleEncoded, RawArguments, Wrapped, Fence:
		return 4
	}
	return 0
}

// Case is a call and what a model sent for it.
type Case struct {
	Seed  uint64
	Kinds []Kind
	Want  Call
	// Args are the arguments after the value corruptions (stage 1): what
	// a form of separate parameters carries.
	Args map[string]any
	// Text is the arguments text as sent.
	Text string
	// Arrived, for a cut that lands right after a complete top-level
	// member, are the keys of the members before it: the text is then also
	// a shorter call whose final brace was forgotten (see Judge).
	Arrived []string
}

// Name joins the case's kinds: "python_literals+code_fence".
func (c Case) Name() string {
	parts := make([]string, len(c.Kinds))
	for i, k := range c.Kinds {
		parts[i] = string(k)
	}
	return strings.Join(parts, "+")
}

// Corrupt applies kinds, in stage order, to a call; ok is false when one
// does not apply to it (no file text to encode, no string to cut open).
func (g *Gen) Corrupt(call Call, kinds ...Kind) (Case, bool) {
	kinds = slices.Clone(kinds)
	slices.SortStableFunc(kinds, func(a, b Kind) int { return a.Stage() - b.Stage() })
	c := Case{Kinds: kinds, Want: call, Args: clone(call.Args).(map[string]any)}
	st := style{spaced: g.rng.IntN(2) == 0}
	encoded := false
	for _, k := range kinds {
		if k.Stage() > 2 && !encoded {
			c.Text, encoded = encode(c.Args, st), true
		}
		if !g.apply(&c, k, &st) {
			return c, false
		}
	}
	if !encoded {
		c.Text = encode(c.Args, st)
	}
	return c, true
}

// apply applies one kind, by its stage.
func (g *Gen) apply(c *Case, k Kind, st *style) bool {
	switch k.Stage() {
	case 1:
		return g.applyValue(c, k)
	case 2:
		return applyWriting(c, k, st)
	case 3:
		return g.applyTextEdit(c, k, st)
	case 4:
		return applyWrapper(c, k)
	}
	return true // None
}

// applyValue changes the call's values (stage 1).
func (g *Gen) applyValue(c *Case, k Kind) bool {
	t := c.Want.Tool
	switch k {
	case Renamed:
		return g.rename(c)
	case ValueLiteral:
		return g.changeValue(c, func(name string, v string) (string, bool) {
			ps := t.ParamSchema(name)
			_, isEnum := ps["enum"]
			if !isEnum && !strings.Contains(strings.ToLower(name), "path") {
				return "", false
			}
			return JSON(v), true
		})
	case Entities:
		return g.changeValue(c, func(name string, v string) (string, bool) {
			if !IsContentName(name) || !strings.ContainsAny(v, "<>&") {
				return "", false
			}
			return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(v), true
		})
	case EscapedNewlines:
		return g.changeValue(c, func(name string, v string) (string, bool) {
			if !IsContentName(name) || !strings.Contains(v, "\n") || strings.Contains(v, `\`) {
				return "", false
			}
			return strings.ReplaceAll(v, "\n", `\n`), true
		})
	}
	return true
}

// applyWriting changes how the text is written (stage 2).
func applyWriting(c *Case, k Kind, st *style) bool {
	switch k {
	case PythonLiterals:
		st.python = true
		return true
	case SingleQuotes:
		st.single = true
		return hasString(c.Args, func(string) bool { return true })
	case RawNewlines:
		st.rawNewline = true
		return hasString(c.Args, func(s string) bool { return strings.Contains(s, "\n") })
	case UnescapedQuotes:
		st.rawQuote = true
		return !st.single && hasString(c.Args, func(s string) bool { return strings.Contains(s, `"`) })
	}
	return true
}

// applyTextEdit edits the written text (stage 3).
func (g *Gen) applyTextEdit(c *Case, k Kind, st *style) bool {
	switch k {
	case MissingClose:
		if !strings.HasSuffix(c.Text, "}") {
			return false
		}
		c.Text = c.Text[:len(c.Text)-1]
	case ExtraClose:
		c.Text += []string{"}", "}}", "]"}[g.rng.IntN(3)]
	case StrayQuote:
		c.Text += `"}`
	case MissingQuote, StrayWords:
		ends := valueEnds(c.Text)
		if st.rawQuote {
			// Quotes left unescaped hide where values end: find the ends
			// in the text with them escaped, where the model put them.
			esc := *st
			esc.rawQuote = false
			ends = rawOffsets(encode(c.Args, esc), valueEnds(encode(c.Args, esc)))
		}
		if len(ends) == 0 {
			return false
		}
		at := ends[g.rng.IntN(len(ends))]
		if k == MissingQuote {
			if q := c.Text[at-1]; q != '"' && q != '\'' {
				return false
			}
			c.Text = c.Text[:at-1] + c.Text[at:]
		} else {
			c.Text = c.Text[:at] + g.pick([]string{" extra", " oops", " (see above)", "\nDone.", " // note"}) + c.Text[at:]
		}
	case Cut:
		if len(c.Text) < 2 {
			return false
		}
		k := 1 + g.rng.IntN(len(c.Text)-1)
		for k > 0 && !utf8.RuneStart(c.Text[k]) {
			k--
		}
		c.Arrived = arrived(c.Args, c.Text[:k], *st)
		c.Text = c.Text[:k]
	}
	return true
}

// applyWrapper wraps the text (stage 4).
func applyWrapper(c *Case, k Kind) bool {
	t := c.Want.Tool
	switch k {
	case DoubleEncoded:
		c.Text = JSON(c.Text)
	case RawArguments:
		if t.ParamSchema("raw_arguments") != nil {
			return false
		}
		c.Text = `{"raw_arguments": ` + JSON(c.Text) + `}`
	case Wrapped:
		if t.ParamSchema("arguments") != nil || slices.Contains(c.Kinds, Cut) {
			return false
		}
		c.Text = `{"arguments": ` + c.Text + `}`
	case Fence:
		if slices.Contains(c.Kinds, Cut) {
			return false
		}
		c.Text = "```json\n" + c.Text + "\n```"
	}
	return true
}

// writesAfter reports the wrappers that write text after the arguments
// (a closing brace, a fence): after a cut, which ends the output, nothing
// is written, so they do not combine with one.
func writesAfter(k Kind) bool { return k == Wrapped || k == Fence }

// arrived returns the keys of the top-level members of args written out
// whole in cut, when cut ends right after one of them (and is not the
// whole text but its final brace): a shorter call that forgot its brace
// reads the same.
func arrived(args map[string]any, cut string, st style) []string {
	keys := slices.Sorted(maps.Keys(args))
	for n := 1; n < len(keys); n++ {
		part := make(map[string]any, n)
		for _, k := range keys[:n] {
			part[k] = args[k]
		}
		if text := encode(part, st); text[:len(text)-1] == cut {
			return keys[:n]
		}
	}
	return nil
}

// changeValue changes one top-level string value that f accepts.
func (g *Gen) changeValue(c *Case, f func(name, v string) (string, bool)) bool {
	var names []string
	for _, k := range slices.Sorted(maps.Keys(c.Args)) {
		if s, ok := c.Args[k].(string); ok && s != "" {
			if _, ok := f(k, s); ok {
				names = append(names, k)
			}
		}
	}
	if len(names) == 0 {
		return false
	}
	name := names[g.rng.IntN(len(names))]
	c.Args[name], _ = f(name, c.Args[name].(string))
	return true
}

// rename gives a required parameter a near-miss name the tool does not
// declare: plural or singular, camelCase or snake_case, capitalised.
func (g *Gen) rename(c *Case) bool {
	t := c.Want.Tool
	var names []string
	for _, r := range t.Required() {
		if _, ok := c.Args[r]; ok {
			names = append(names, r)
		}
	}
	if len(names) == 0 {
		return false
	}
	name := names[g.rng.IntN(len(names))]
	var misses []string
	for _, m := range nearMisses(name) {
		if t.ParamSchema(m) == nil {
			misses = append(misses, m)
		}
	}
	if len(misses) == 0 {
		return false
	}
	miss := misses[g.rng.IntN(len(misses))]
	c.Args[miss] = c.Args[name]
	delete(c.Args, name)
	return true
}

func nearMisses(name string) []string {
	var out []string
	if s, ok := strings.CutSuffix(name, "s"); ok {
		out = append(out, s)
	} else {
		out = append(out, name+"s")
	}
	if strings.Contains(name, "_") {
		parts := strings.Split(name, "_")
		for i := 1; i < len(parts); i++ {
			if parts[i] != "" {
				parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
			}
		}
		out = append(out, strings.Join(parts, ""))
	} else if k := strings.IndexFunc(name, unicode.IsUpper); k > 0 {
		out = append(out, name[:k]+"_"+strings.ToLower(name[k:k+1])+name[k+1:])
	}
	out = append(out, strings.ToUpper(name[:1])+name[1:])
	return out
}

func hasString(v any, f func(string) bool) bool {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return hasString(e, f) })
	case map[string]any:
		for k, e := range x {
			if f(k) || hasString(e, f) {
				return true
			}
		}
	}
	return false
}

// valueEnds returns the offsets just past each value (a string, number or
// literal) that a ',' or a closing bracket follows, outside strings.
func valueEnds(text string) []int {
	var out []int
	var q byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case q != 0 && c == '\\':
			i++
		case q != 0 && c == q:
			q = 0
			if j := skipSpace(text, i+1); j < len(text) && strings.IndexByte(",}]", text[j]) >= 0 && !isKeyEnd(text, i+1) {
				out = append(out, i+1)
			}
		case q != 0:
		case c == '"' || c == '\'':
			q = c
		case strings.IndexByte(",}]", c) >= 0 && i > 0 && (isWordByte(text[i-1])):
			out = append(out, i)
		}
	}
	return out
}

// rawOffsets maps offsets in text, double quotes in its strings escaped,
// to the same places with those quotes left unescaped (one byte less for
// each \" before).
func rawOffsets(text string, offsets []int) []int {
	out := make([]int, 0, len(offsets))
	removed, k := 0, 0
	var q byte
	for i := 0; i <= len(text) && k < len(offsets); i++ {
		for k < len(offsets) && offsets[k] == i {
			out = append(out, i-removed)
			k++
		}
		if i == len(text) {
			break
		}
		c := text[i]
		switch {
		case q != 0 && c == '\\':
			if i+1 < len(text) && text[i+1] == '"' && q == '"' {
				removed++
			}
			i++
		case q != 0 && c == q:
			q = 0
		case q == 0 && (c == '"' || c == '\''):
			q = c
		}
	}
	return out
}

func isKeyEnd(text string, i int) bool {
	j := skipSpace(text, i)
	return j < len(text) && text[j] == ':'
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t') {
		i++
	}
	return i
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// clone copies a value deeply.
func clone(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clone(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = clone(e)
		}
		return out
	}
	return v
}

// Strict returns the object a text is as strict JSON, numbers as
// json.Number; ok is false when it is none.
func Strict(text string) (map[string]any, bool) {
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil || m == nil || strings.TrimSpace(text[d.InputOffset():]) != "" {
		return nil, false
	}
	return m, true
}

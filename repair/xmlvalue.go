package repair

import (
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/toolguard/toolguard/repair/jsonrepair"
)

// An XML tool call can only hand over strings, so a parameter the schema
// types as an array or an object arrives as the text of its child
// elements: <edits><edit><old_text>a</old_text>…</edit>…</edits>. This
// file reads such a text into the structure the schema asks for.

// maxXMLDepth bounds the nesting read from XML values, and so the stack:
// real ones nest two or three levels.
const maxXMLDepth = 32

// textHolders returns the top-level parameters of s that are edit text
// (find or replace) or hold it at some depth.
func textHolders(s *jsonschema.Schema, find, replace map[string]bool) map[string]bool {
	out := map[string]bool{}
	seen := map[*jsonschema.Schema]bool{}
	var holds func(s *jsonschema.Schema, depth int) bool
	holds = func(s *jsonschema.Schema, depth int) bool {
		s = deref(s)
		if s == nil || seen[s] || depth > 16 {
			return false
		}
		seen[s] = true
		for name, ps := range propsOf(s) {
			if find[name] || replace[name] || holds(ps, depth+1) {
				return true
			}
		}
		return holds(itemsOf(s), depth+1)
	}
	for name, ps := range propsOf(s) {
		clear(seen)
		if find[name] || replace[name] || holds(ps, 0) {
			out[name] = true
		}
	}
	return out
}

// readXMLValue reads s, a sequence of XML child elements, as the array or
// object schema sch asks for; how says what was read. Repeated elements of
// one name are an array's items, whatever the name; the children of an
// object are its properties, by any spelling; leaves are typed by the
// schema. Text outside the elements means s is not such a sequence.
func (p *pipeline) readXMLValue(val any, sch *jsonschema.Schema, path string) (v any, how string, ok bool) {
	s, isStr := val.(string)
	t := typesOf(sch)
	if !isStr || p.tool == nil || t.has(typeString) || !t.has(typeArray|typeObject) {
		return nil, "", false
	}
	budget := maxXMLDepth - strings.Count(path, "/")
	if budget <= 0 || !startsWithTag(s, 0) {
		return nil, "", false
	}
	r := xmlReader{p: p, s: s}
	v, _, ok = r.structure(0, "", sch, budget)
	if !ok {
		return nil, "", false
	}
	return v, "read XML child elements as " + describeXML(v), true
}

func describeXML(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return fmt.Sprintf("an object of %d %s", len(x), plural(len(x), "property", "properties"))
	case []any:
		what := "item"
		if len(x) > 0 {
			if _, isObj := x[0].(map[string]any); isObj {
				what = "object"
			}
		}
		return fmt.Sprintf("an array of %d %s", len(x), plural(len(x), what, what+"s"))
	}
	return jsonKind(v)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// startsWithTag reports whether s, after white space from i, opens a tag.
func startsWithTag(s string, i int) bool {
	i = skipSpace(s, i)
	_, attr, _, ok := openingTagAt(s, i)
	return ok && attr == ""
}

type xmlReader struct {
	p *pipeline
	s string
}

// structure reads the elements from s[i] up to the closing tag until ("":
// the end of s) as the array or object sch asks for, and returns the
// position after until. An array of objects may also come as one object's
// children without an item element: its first child is a property then.
func (r *xmlReader) structure(i int, until string, sch *jsonschema.Schema, budget int) (any, int, bool) {
	if budget <= 0 {
		return nil, 0, false
	}
	t := typesOf(sch)
	if t.has(typeArray) {
		items := itemsOf(sch)
		if !r.singleObject(i, items) {
			return r.array(i, until, items, budget)
		}
		obj, end, ok := r.object(i, until, items, budget)
		if !ok {
			return nil, 0, false
		}
		return []any{obj}, end, true
	}
	return r.object(i, until, sch, budget)
}

// singleObject reports whether the elements at s[i] are the properties of
// one item rather than items: the items are objects and the first tag is
// one of their properties.
func (r *xmlReader) singleObject(i int, items *jsonschema.Schema) bool {
	t := typesOf(items)
	if !t.has(typeObject) || t.has(typeString) {
		return false
	}
	tag, _, _, ok := openingTagAt(r.s, skipSpace(r.s, i))
	return ok && r.p.tool.canonicalParam(tag, items) != ""
}

// child is the next element from s[i]: its tag and where its content
// starts, or done with the position after until.
func (r *xmlReader) child(i int, until string) (tag string, start int, done bool, ok bool) {
	i = skipSpace(r.s, i)
	if until == "" && i == len(r.s) || until != "" && strings.HasPrefix(r.s[i:], until) {
		return "", i + len(until), true, true
	}
	tag, attr, start, ok := openingTagAt(r.s, i)
	if !ok || attr != "" {
		return "", 0, false, false
	}
	return tag, start, false, true
}

// array reads items: elements all of one name.
func (r *xmlReader) array(i int, until string, items *jsonschema.Schema, budget int) (any, int, bool) {
	objects := typesOf(items).has(typeObject) && !typesOf(items).has(typeString)
	var out []any
	itemTag := ""
	for {
		tag, start, done, ok := r.child(i, until)
		switch {
		case !ok:
			return nil, 0, false
		case done:
			return out, start, len(out) > 0
		case itemTag != "" && tag != itemTag:
			return nil, 0, false
		}
		itemTag = tag
		v, end, ok := r.value(start, tag, items, nil, budget-1)
		if _, isObj := v.(map[string]any); !ok || objects && !isObj {
			return nil, 0, false
		}
		out = append(out, v)
		i = end
	}
}

// object reads properties: elements of distinct names, by any spelling.
func (r *xmlReader) object(i int, until string, sch *jsonschema.Schema, budget int) (any, int, bool) {
	out := map[string]any{}
	props := propsOf(sch)
	// A text value's closing tag ends it only before the next property or
	// the object's end, so a literal closing tag in file text stays text.
	follows := func(j int) bool {
		j = skipSpace(r.s, j)
		if until == "" && j == len(r.s) || until != "" && strings.HasPrefix(r.s[j:], until) {
			return true
		}
		tag, attr, _, ok := openingTagAt(r.s, j)
		return ok && attr == "" && r.p.tool.canonicalParam(tag, sch) != ""
	}
	for {
		tag, start, done, ok := r.child(i, until)
		if !ok {
			return nil, 0, false
		}
		if done {
			return out, start, len(out) > 0
		}
		if _, dup := out[tag]; dup {
			return nil, 0, false
		}
		canon := r.p.tool.canonicalParam(tag, sch)
		var textFollows func(int) bool
		if canon != "" && r.p.tool.IsTextParam(canon, false) {
			textFollows = follows
		}
		v, end, ok := r.value(start, tag, props[canon], textFollows, budget-1)
		if !ok {
			return nil, 0, false
		}
		out[tag] = v
		i = end
	}
}

// value reads the content of the element tag from s[start] to its closing
// tag: a structure when the schema asks for one and elements follow, else
// text, typed by the schema where it plainly is another type. Edit text
// (follows set) runs to the first closing tag that follows accepts
// (textEnd); other text to the first closing tag, so markup in it stays
// text.
func (r *xmlReader) value(start int, tag string, sch *jsonschema.Schema, follows func(int) bool, budget int) (any, int, bool) {
	closing := "</" + tag + ">"
	t := typesOf(sch)
	if sch != nil && t.has(typeArray|typeObject) && !t.has(typeString) && startsWithTag(r.s, start) {
		return r.structure(start, closing, sch, budget)
	}
	k := strings.Index(r.s[start:], closing)
	if k < 0 {
		return nil, 0, false
	}
	k += start
	if follows != nil {
		k = textEnd(r.s, k, closing, follows)
	}
	leaf := jsonrepair.ToValidUTF8(TrimLayout(r.s[start:k])) // as JSON inside the tag would read
	var v any = leaf
	if nv, _, ok := coerce(leaf, t, itemsOf(sch)); ok {
		v = nv
	}
	return v, k + len(closing), true
}

// maxTextClosings bounds the closing tags textEnd weighs: each item's
// text would otherwise look through every later item's, quadratic in the
// number of items.
const maxTextClosings = 16

// textEnd returns where edit text whose first closing tag is at k ends:
// at the first of the next maxTextClosings closing tags that follows
// accepts, else at k.
func textEnd(s string, k int, closing string, follows func(int) bool) int {
	off := k
	for range maxTextClosings {
		if follows(off + len(closing)) {
			return off
		}
		off += len(closing)
		j := strings.Index(s[off:], closing)
		if j < 0 {
			break
		}
		off += j
	}
	return k
}

// xmlShapeHint tells an XML call whose structured parameter arrived as
// text that was no element sequence how to write it.
func (p *pipeline) xmlShapeHint(loc string, k *kind.Type) string {
	structured := slices.ContainsFunc(k.Want, func(w string) bool { return w == "array" || w == "object" })
	item := isDigits(loc[strings.LastIndexByte(loc, '/')+1:]) // no name to show
	if p.res.Form == FormText || k.Got != "string" || loc == "" || item || !structured {
		return ""
	}
	return fmt.Sprintf(" In XML, write it as child elements, %s, or as JSON.", p.xmlShape(loc))
}

// xmlShape shows how the array or object at loc is written in XML, for a
// WRONG_TYPE message: <edits><edit><old_text>…</old_text>…</edit>…</edits>.
func (p *pipeline) xmlShape(loc string) string {
	segs := strings.Split(loc, "/")
	sch := schemaAt(p.tool.schema, segs)
	name := segs[len(segs)-1]
	var b strings.Builder
	fmt.Fprintf(&b, "<%s>", name)
	t := typesOf(sch)
	switch {
	case t.has(typeArray):
		item := strings.TrimSuffix(name, "s")
		if item == name || item == "" {
			item = "item"
		}
		fmt.Fprintf(&b, "<%s>", item)
		writeXMLProps(&b, itemsOf(sch))
		fmt.Fprintf(&b, "</%s>…", item)
	case t.has(typeObject):
		writeXMLProps(&b, sch)
	}
	fmt.Fprintf(&b, "</%s>", name)
	return b.String()
}

func writeXMLProps(b *strings.Builder, sch *jsonschema.Schema) {
	props := requiredOf(sch)
	if len(props) == 0 {
		props = paramOrder(sch)
	}
	if len(props) == 0 {
		b.WriteString("…")
		return
	}
	for _, n := range props[:min(len(props), 4)] {
		fmt.Fprintf(b, "<%s>…</%s>", n, n)
	}
}

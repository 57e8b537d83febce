package repair

import (
	"fmt"

	"github.com/toolguard/toolguard/repair/contentfix"
)

// applyContentFixes repairs file content and edit text (package contentfix).
// Escapes are never decoded in edit text: a literal \n may be what the file
// holds. The target path is the object's own "path" or the nearest above.
func (p *pipeline) applyContentFixes(args map[string]any) {
	t := p.tool
	if len(t.content) == 0 && len(t.find) == 0 && len(t.replace) == 0 {
		return
	}
	p.fixObject(args, "", stringAt(args, "path"), true)
}

func stringAt(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func (p *pipeline) fixObject(m map[string]any, path, target string, top bool) {
	if own := stringAt(m, "path"); own != "" {
		target = own
	}
	t := p.tool
	// Find text first: its line numbers decide for the replacement beside it.
	stripped := false
	keys := fixableKeys(t, m)
	for _, k := range keys {
		if s, ok := m[k].(string); ok && t.find[k] {
			param := joinPath(path, k)
			if out, ok := contentfix.StripLineNumbers(s); ok {
				p.res.repair(CodeLineNumbersStripped, param, "removed read-tool line-number prefixes")
				s, stripped = out, true
			}
			m[k] = p.fixCommon(s, param, target, false)
		}
	}
	for _, k := range keys {
		param := joinPath(path, k)
		switch x := m[k].(type) {
		case string:
			switch {
			case t.find[k]:
			case t.replace[k]:
				if stripped {
					if out, ok := contentfix.StripLineNumbers(x); ok {
						p.res.repair(CodeLineNumbersStripped, param, "removed read-tool line-number prefixes, as in the old text")
						x = out
					}
				}
				m[k] = p.fixCommon(x, param, target, true)
			case top && t.content[k]:
				m[k] = p.fixWriteContent(x, param, target)
			}
		case map[string]any:
			p.fixObject(x, param, target, false)
		case []any:
			for i, e := range x {
				if obj, ok := e.(map[string]any); ok {
					p.fixObject(obj, joinPath(param, fmt.Sprint(i)), target, false)
				}
			}
		}
	}
}

// fixableKeys lists, ordered, the keys of m a fix may concern; the others
// (a call may bring a million) are neither sorted nor visited.
func fixableKeys(t *Tool, m map[string]any) []string {
	var keys []string
	for k, v := range m {
		switch v.(type) {
		case string:
			if t.find[k] || t.replace[k] || t.content[k] {
				keys = append(keys, k)
			}
		case map[string]any, []any:
			keys = append(keys, k)
		}
	}
	return orderKeys(t, keys)
}

func (p *pipeline) fixWriteContent(s, param, target string) string {
	if out, ok := contentfix.StripCodeFence(s, target); ok {
		p.res.repair(CodeCodeFenceStripped, param, "removed a Markdown code fence around the whole content")
		s = out
	}
	if out, ok := contentfix.DecodeEscapes(s); ok {
		p.res.repair(CodeEscapesDecoded, param, `decoded literal escape sequences (\n, \t, \") in content that had no real newline`)
		s = out
		// A fence written with literal \n shows only now.
		if out, ok := contentfix.StripCodeFence(s, target); ok {
			p.res.repair(CodeCodeFenceStripped, param, "removed a Markdown code fence around the whole content")
			s = out
		}
	}
	s = p.fixCommon(s, param, target, true)
	if line, text, ok := contentfix.FindPlaceholder(s); ok {
		p.res.Violate(CodePlaceholderContent, param, fmt.Sprintf(
			"Line %d of %q is a placeholder (%q), not code: the file would lose what it stands for. Send the complete content, or use an edit tool to change only part of the file.",
			line, param, clipText(text, 80)))
	}
	return s
}

// fixCommon applies the fixes shared by write content and edit text; U+FFFD
// in old text may be what the file holds.
func (p *pipeline) fixCommon(s, param, target string, written bool) string {
	// Only for a named model: "&lt;" in code may be meant.
	if p.opts.ModelID != "" {
		if out, ok := contentfix.DecodeHTMLEntities(s, p.opts.ModelID, target); ok {
			p.res.repair(CodeHTMLEntitiesDecoded, param, "decoded HTML entities (&lt; &gt; &amp; ...) this model family emits in code")
			s = out
		}
	}
	if written {
		if out, ok := contentfix.RemoveReplacementChars(s); ok {
			p.res.repair(CodeReplacementCharsRemoved, param, "removed U+FFFD replacement characters")
			s = out
		}
	}
	return s
}

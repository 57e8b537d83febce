package repair

import (
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/repair/contentfix"
)

// applyContentFixes repairs file content and edit text (package contentfix),
// and decodes HTML entities in any string parameter that proves them.
// Escapes are never decoded in edit text: a literal \n may be what the file
// holds. The target path is the object's own "path" or the nearest above.
func (p *pipeline) applyContentFixes(args map[string]any) {
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
	var room [8]string
	// A top-level string that is still a piece of a plain text holds no
	// entity and no SEARCH/REPLACE separator: only its role is asked, and
	// when no value is an object or an array, only the roles' keys are.
	var keys []string
	switch plain := top && p.plainStrings && p.plainUnchanged(); {
	case plain && p.plainFlat:
		keys = textParamKeys(room[:0], t, m)
	default:
		keys = fixableKeys(room[:0], t, m, top, plain)
	}
	p.decodeEditEntities(m, keys, path, target)
	// Find text first: its line numbers decide for the replacement beside it.
	stripped := false
	var finds []string
	for _, k := range keys {
		if s, ok := m[k].(string); ok && t.roles[k]&roleFind != 0 {
			if out, ok := contentfix.StripLineNumbers(s); ok {
				p.res.repair(CodeLineNumbersStripped, joinPath(path, k), "removed read-tool line-number prefixes")
				s, stripped = out, true
				m[k] = s
			}
			finds = append(finds, s)
		}
	}
	for _, k := range keys {
		param := joinPath(path, k)
		switch x := m[k].(type) {
		case string:
			role := t.roles[k]
			switch {
			case role&roleFind != 0:
			case role&roleReplace != 0:
				if stripped {
					if out, ok := contentfix.StripLineNumbers(x); ok {
						p.res.repair(CodeLineNumbersStripped, param, "removed read-tool line-number prefixes, as in the old text")
						x = out
					}
				}
				x = p.removeReplacementChars(x, param)
				m[k] = x
				p.checkEditPlaceholder(x, finds, param, target)
			case top && role&roleContent != 0:
				// Written back only when changed: a string put in the map
				// is a new allocation.
				if out := p.fixWriteContent(x, param, target); out != x {
					m[k] = out
				}
			case role&roleContent != 0:
				m[k] = p.decodeEntities(x, param, target)
			default:
				// Not file text: no markup target keeps its entities.
				m[k] = p.decodeEntities(x, param, "")
				p.checkSearchReplace(m[k].(string), param)
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

// fixableKeys lists, ordered, the keys of m a fix may concern, appended
// to keys; the others (a call may bring a million) are neither sorted nor
// visited. plain: m's strings hold no '&' and no "===", and are not read.
func fixableKeys(keys []string, t *Tool, m map[string]any, top, plain bool) []string {
	for k, v := range m {
		switch v := v.(type) {
		case string:
			// "===" is the cheap sign of a SEARCH/REPLACE block's separator.
			if t.IsTextParam(k, top) || !plain && (strings.Contains(v, "&") || strings.Contains(v, "===")) {
				keys = append(keys, k)
			}
		case map[string]any, []any:
			keys = append(keys, k)
		}
	}
	return orderKeys(t, keys)
}

// textParamKeys is fixableKeys of a top-level object whose strings hold no
// '&' and no "===", and which holds no object or array: the keys of its
// strings that are text parameters, found by the tool's roles.
func textParamKeys(keys []string, t *Tool, m map[string]any) []string {
	for k := range t.roles {
		if _, ok := m[k].(string); ok && t.IsTextParam(k, true) {
			keys = append(keys, k)
		}
	}
	return orderKeys(t, keys)
}

// decodeEditEntities decides for the old and new text of one edit together:
// decoding only one of them would make the edit replace other text than the
// model meant.
func (p *pipeline) decodeEditEntities(m map[string]any, keys []string, path, target string) {
	var editKeys, values []string
	for _, k := range keys {
		if s, ok := m[k].(string); ok && p.tool.roles[k]&(roleFind|roleReplace) != 0 {
			editKeys = append(editKeys, k)
			values = append(values, s)
		}
	}
	if len(values) == 0 {
		return // no edit text: nothing to decode, and no path to look at
	}
	out, ok := contentfix.DecodeHTMLEntitiesTogether(target, values...)
	if !ok {
		return
	}
	for i, k := range editKeys {
		if out[i] != values[i] {
			m[k] = out[i]
			p.res.repair(CodeHTMLEntitiesDecoded, joinPath(path, k), "decoded HTML entities (&lt; &gt; &amp; &quot;): the old and new text encode every <, > and & and use them as code")
		}
	}
}

func (p *pipeline) decodeEntities(s, param, target string) string {
	if out, ok := contentfix.DecodeHTMLEntities(s, target); ok {
		p.res.repair(CodeHTMLEntitiesDecoded, param, "decoded HTML entities (&lt; &gt; &amp; &quot;): the value encodes every <, > and & and uses them as code")
		return out
	}
	return s
}

// removeReplacementChars drops U+FFFD from written text; in old text it
// may be what the file holds.
func (p *pipeline) removeReplacementChars(s, param string) string {
	if out, ok := contentfix.RemoveReplacementChars(s); ok {
		p.res.repair(CodeReplacementCharsRemoved, param, "removed U+FFFD replacement characters")
		return out
	}
	return s
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
	if out, isDiff := p.fixDiff(s, param, target); isDiff {
		return p.removeReplacementChars(out, param)
	}
	s = p.decodeEntities(s, param, target)
	s = p.removeReplacementChars(s, param)
	p.checkContentPlaceholder(s, param, target)
	return s
}

// checkContentPlaceholder refuses whole-file content holding a placeholder.
func (p *pipeline) checkContentPlaceholder(s, param, target string) {
	if line, text, ok := contentfix.FindPlaceholder(s, target); ok {
		p.res.Violate(CodePlaceholderContent, param, fmt.Sprintf(
			"Line %d of %q is a placeholder (%q), not code: the file would lose what it stands for. Send the complete content, or use an edit tool to change only part of the file.",
			line, param, clipText(text, 80)))
	}
}

// checkEditPlaceholder refuses new text holding a placeholder comment that
// the old text beside it does not hold (the file's own "// ..." is kept).
func (p *pipeline) checkEditPlaceholder(newText string, finds []string, param, target string) {
	if line, text, ok := contentfix.FindNewPlaceholder(strings.Join(finds, "\n"), newText, target); ok {
		p.res.Violate(CodePlaceholderContent, param, fmt.Sprintf(
			"Line %d of %q is a placeholder (%q) that the old text does not hold: the edit would put it in the file instead of the code it stands for. Write that code out in the new text, or make the old text cover only the lines you change.",
			line, param, clipText(text, 80)))
	}
}

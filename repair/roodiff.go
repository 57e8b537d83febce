package repair

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toolguard/toolguard/edit"
)

// Roo Code's multi-file apply_diff puts its changes in one <args> element:
//
//	<apply_diff><args>
//	  <file><path>a.py</path>
//	    <diff><content>SEARCH/REPLACE blocks</content><start_line>10</start_line></diff>
//	    …more <diff> elements…
//	  </file>
//	  …more <file> elements…
//	</args></apply_diff>
//
// A tool that takes a path and a diff, and no args, reads it as Roo does
// when the <file> elements name one file: the path, and the diffs' blocks
// in order, each <start_line> the hint of its first block that has none
// (edit.WithStartLine). Elements of one path join, as in Roo. Changes to
// several files are refused, asking for one call per file: a call changes
// one file, and its result and undo stay per file.

// rooMultiFileExample is the shape refusals show.
const rooMultiFileExample = "<args><file><path>src/a.py</path><diff><content>…SEARCH/REPLACE blocks…</content><start_line>10</start_line></diff></file></args>"

// rooFileDiff is one <diff> element.
type rooFileDiff struct {
	content   string
	startLine int
}

// rooMultiFile turns an XML call's args element into path and diff
// parameters (see above); params is returned as it is when the call is not
// in that form, and ok is false when it is refused.
func (p *pipeline) rooMultiFile(params map[string]string) (map[string]string, bool) {
	t := p.tool
	args, has := params["args"]
	pathParam, diffParam := t.CanonicalParam("path"), t.CanonicalParam("diff")
	if !has || pathParam == "" || diffParam == "" || t.CanonicalParam("args") != "" {
		return params, true
	}
	for name := range params {
		if c := t.CanonicalParam(name); c == pathParam || c == diffParam {
			return params, true // the single-file form, args beside it is reported as unexpected
		}
	}
	paths, diffs, err := readRooArgs(args)
	switch {
	case err != nil:
		p.res.Violate(CodeUnparseable, "args", fmt.Sprintf("The <args> of %s could not be read: %v. Write it as %s.", t.Name(), err, rooMultiFileExample))
		return nil, false
	case len(paths) == 0:
		p.res.Violate(CodeMissingRequired, "args", fmt.Sprintf("The <args> of %s hold no <file> with a <path> and a <diff> that has <content>. Write it as %s.", t.Name(), rooMultiFileExample))
		return nil, false
	case len(paths) > 1:
		p.res.Violate(CodeInvalidValue, "args", fmt.Sprintf("The <args> of %s change %d files (%s); one call changes one file. Send one %s call for each file, with that file's <file> element alone.",
			t.Name(), len(paths), quoteList(paths), t.Name()))
		return nil, false
	}
	var parts []string
	for _, d := range diffs[paths[0]] {
		parts = append(parts, edit.WithStartLine(d.content, d.startLine))
	}
	out := map[string]string{pathParam: paths[0], diffParam: strings.Join(parts, "\n")}
	for name, v := range params {
		if name != "args" {
			out[name] = v
		}
	}
	return out, true
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return strings.Join(q, ", ")
}

// readRooArgs reads the <file> elements of Roo's args: the paths in order
// of first appearance and each path's diffs. A <diff> with empty content
// is passed over, as Roo does.
func readRooArgs(s string) ([]string, map[string][]rooFileDiff, error) {
	r := rooReader{s: s}
	var paths []string
	diffs := map[string][]rooFileDiff{}
	for {
		tag, ok, err := r.open()
		if err != nil || !ok {
			return paths, diffs, err
		}
		if tag != "file" {
			return nil, nil, fmt.Errorf("<%s> where a <file> element belongs", clipText(tag, maxQuoted))
		}
		path, ds, err := r.file()
		if err != nil {
			return nil, nil, err
		}
		if path == "" || len(ds) == 0 {
			continue
		}
		if _, seen := diffs[path]; !seen {
			paths = append(paths, path)
		}
		diffs[path] = append(diffs[path], ds...)
	}
}

// rooReader reads Roo's args element by element.
type rooReader struct {
	s string
	i int
}

// open reads the next opening tag, after white space; ok is false at the
// end of the text.
func (r *rooReader) open() (string, bool, error) {
	r.i = skipSpace(r.s, r.i)
	if r.i == len(r.s) {
		return "", false, nil
	}
	tag, attr, end, ok := openingTagAt(r.s, r.i)
	if !ok || attr != "" {
		return "", false, fmt.Errorf("text %s where an element belongs", quote(clipText(r.s[r.i:], 40)))
	}
	r.i = end
	return tag, true, nil
}

// closing reads the closing tag of tag, after white space; ok is false
// when another tag stands there.
func (r *rooReader) closing(tag string) bool {
	j := skipSpace(r.s, r.i)
	if !strings.HasPrefix(r.s[j:], "</"+tag+">") {
		return false
	}
	r.i = j + len(tag) + 3
	return true
}

// text reads a leaf's text up to its first closing tag.
func (r *rooReader) text(tag string) (string, error) {
	k := strings.Index(r.s[r.i:], "</"+tag+">")
	if k < 0 {
		return "", fmt.Errorf("<%s> is never closed", tag)
	}
	v := r.s[r.i : r.i+k]
	r.i += k + len(tag) + 3
	return strings.TrimSpace(v), nil
}

// file reads a <file> element's path and diffs, up to </file>.
func (r *rooReader) file() (string, []rooFileDiff, error) {
	var path string
	var diffs []rooFileDiff
	for !r.closing("file") {
		tag, ok, err := r.open()
		switch {
		case err != nil:
			return "", nil, err
		case !ok:
			return "", nil, fmt.Errorf("<file> is never closed")
		case tag == "path":
			if path, err = r.text("path"); err != nil {
				return "", nil, err
			}
		case tag == "diff":
			d, err := r.diff()
			if err != nil {
				return "", nil, err
			}
			if strings.TrimSpace(d.content) != "" {
				diffs = append(diffs, d)
			}
		default:
			return "", nil, fmt.Errorf("<%s> inside <file>, which takes <path> and <diff>", clipText(tag, maxQuoted))
		}
	}
	return path, diffs, nil
}

// diff reads a <diff> element up to </diff>. Its content is SEARCH/REPLACE
// text that may hold any tag: it ends at the first </content> that
// <start_line> or </diff> follows. A CDATA section around it is taken off,
// as an XML parser reads it.
func (r *rooReader) diff() (rooFileDiff, error) {
	var d rooFileDiff
	for !r.closing("diff") {
		tag, ok, err := r.open()
		switch {
		case err != nil:
			return d, err
		case !ok:
			return d, fmt.Errorf("<diff> is never closed")
		case tag == "content":
			k := rooContentEnd(r.s[r.i:])
			if k < 0 {
				return d, fmt.Errorf("<content> is never closed before </diff>")
			}
			d.content = TrimLayout(r.s[r.i : r.i+k])
			if v := strings.TrimSpace(d.content); strings.HasPrefix(v, "<![CDATA[") && strings.HasSuffix(v, "]]>") {
				d.content = strings.TrimSuffix(strings.TrimPrefix(v, "<![CDATA["), "]]>")
			}
			r.i += k + len("</content>")
		case tag == "start_line":
			v, err := r.text("start_line")
			if err != nil {
				return d, err
			}
			if d.startLine, err = strconv.Atoi(v); err != nil || d.startLine < 1 {
				return d, fmt.Errorf("<start_line> must be a line number, not %s", quote(clipText(v, 40)))
			}
		default:
			return d, fmt.Errorf("<%s> inside <diff>, which takes <content> and <start_line>", clipText(tag, maxQuoted))
		}
	}
	return d, nil
}

// rooContentEnd finds where a diff's content ends in rest: the first
// </content> that <start_line> or </diff> follows, past white space.
func rooContentEnd(rest string) int {
	for off := 0; ; {
		k := strings.Index(rest[off:], "</content>")
		if k < 0 {
			return -1
		}
		end := off + k
		next := rest[skipSpace(rest, end+len("</content>")):]
		if strings.HasPrefix(next, "<start_line>") || strings.HasPrefix(next, "</diff>") {
			return end
		}
		off = end + len("</content>")
	}
}

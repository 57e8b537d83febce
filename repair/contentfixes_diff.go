package repair

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/repair/contentfix"
)

// A SEARCH/REPLACE diff or a patch is a list of edits: its entities and
// placeholders are judged edit by edit, as an edit's old and new text, so a
// placeholder comment the file already holds (in the SEARCH section or the
// context lines) is not refused. The guard parses them the same way.

// diffEdit is one edit of a diff: the file, its old and new text, and how
// to name it to the model.
type diffEdit struct {
	path, oldText, newText, name string
}

// diffEdits parses a diff parameter; false when param is no diff or does
// not parse. A SEARCH/REPLACE diff or a unified diff that does not parse
// is refused here, with the parser's reason (see ViolateSearchReplace and
// ViolateUnifiedDiff); an apply_patch text is judged when executed, against
// its files.
func (p *pipeline) diffEdits(param, s, target string) ([]diffEdit, bool) {
	switch {
	case p.isSearchReplace(param, s):
		edits, err := edit.ParseSearchReplace(s)
		if err != nil {
			p.violateSearchReplace(param, s, err)
			return nil, false
		}
		out := make([]diffEdit, len(edits))
		for i, e := range edits {
			out[i] = diffEdit{target, e.OldText, e.NewText, fmt.Sprintf("Block %d of %q", i+1, param)}
		}
		return out, true
	case p.tool.Name() == "apply_patch" && param == "patch":
		patch, err := edit.ParsePatch(s)
		if err != nil {
			if edit.LooksLikeUnifiedDiff(s) {
				ViolateUnifiedDiff(p.res, param, err)
			}
			return nil, false
		}
		var out []diffEdit
		for _, op := range patch.Ops {
			switch op.Kind {
			case edit.OpAdd:
				out = append(out, diffEdit{op.Path, "", op.Content, fmt.Sprintf("The new file %s in %q", op.Path, param)})
			case edit.OpUpdate:
				var oldLines, newLines []string
				for _, c := range op.Chunks {
					oldLines = append(append(oldLines, c.Anchors...), c.OldLines...)
					newLines = append(newLines, c.NewLines...)
				}
				out = append(out, diffEdit{op.Path, strings.Join(oldLines, "\n"), strings.Join(newLines, "\n"), fmt.Sprintf("The update of %s in %q", op.Path, param)})
			}
		}
		return out, true
	}
	return nil, false
}

// fixDiff decodes a diff's entities and refuses its placeholders; false
// when s is no diff that parses.
func (p *pipeline) fixDiff(s, param, target string) (string, bool) {
	edits, ok := p.diffEdits(param, s, target)
	if !ok {
		return s, false
	}
	paths := make([]string, 0, len(edits))
	texts := make([]string, 0, 2*len(edits))
	for _, e := range edits {
		paths = append(paths, e.path)
		texts = append(texts, e.oldText, e.newText)
	}
	if out, ok := contentfix.DecodeDiffHTMLEntities(s, paths, texts); ok {
		p.res.repair(CodeHTMLEntitiesDecoded, param, "decoded HTML entities (&lt; &gt; &amp; &quot;): the edits encode every <, > and & and use them as code")
		s = out
		edits, _ = p.diffEdits(param, s, target)
	}
	for _, e := range edits {
		if line, text, ok := contentfix.FindNewPlaceholder(e.oldText, e.newText, e.path); ok {
			p.res.Violate(CodePlaceholderContent, param, fmt.Sprintf(
				"%s: line %d of its new lines is a placeholder (%q), not code, and its old lines do not hold it: the file would get it instead of the code it stands for. Write that code out (a new file in full), or leave the unchanged lines out of the edit.",
				e.name, line, clipText(text, 80)))
		}
	}
	return s, true
}

// isSearchReplace tells whether a string parameter is read as SEARCH/REPLACE
// blocks: replace_in_file's diff always; any other parameter whose value
// has a block's frame (edit.LooksLikeSearchReplace), except the file content
// and edit text of other tools, which may quote a diff as what the file
// holds. A diff parameter of a caller's own tool is one unless its value is
// plainly another format (a unified diff).
func (p *pipeline) isSearchReplace(param, s string) bool {
	t := p.tool
	if t.Name() == "replace_in_file" && param == "diff" {
		return true
	}
	if (t.content[param] || t.find[param] || t.replace[param]) && param != "diff" && t.CanonicalParam(param) != "diff" {
		return false
	}
	return edit.LooksLikeSearchReplace(s)
}

// checkSearchReplace refuses a string parameter that is SEARCH/REPLACE
// blocks and does not parse.
func (p *pipeline) checkSearchReplace(s, param string) {
	if !p.isSearchReplace(param, s) {
		return
	}
	if _, err := edit.ParseSearchReplace(s); err != nil {
		p.violateSearchReplace(param, s, err)
	}
}

// violateSearchReplace refuses a SEARCH/REPLACE diff that does not parse;
// a unified diff sent where blocks are expected (Roo's apply_diff is
// replace_in_file) is told where it goes.
func (p *pipeline) violateSearchReplace(param, s string, err error) {
	if edit.LooksLikeUnifiedDiff(s) {
		p.res.Violate(CodeInvalidValue, param, "The diff is a unified diff (\"--- a/PATH\", \"+++ b/PATH\", \"@@\" hunks), not SEARCH/REPLACE blocks: "+
			"send it as apply_patch's \"patch\", which applies unified diffs, or write each change as a block: "+
			"\"------- SEARCH\", the exact lines, \"=======\", the new lines, \"+++++++ REPLACE\".")
		return
	}
	ViolateSearchReplace(p.res, param, err)
}

// ViolateSearchReplace records why a SEARCH/REPLACE diff cannot be used:
// TRUNCATED when it ends inside a block, INVALID_VALUE otherwise, each with
// the parser's line and what to do. Validation and execution say the same.
func ViolateSearchReplace(res *Result, param string, err error) {
	if errors.Is(err, edit.ErrTruncated) {
		res.Violate(CodeTruncated, param, fmt.Sprintf("The diff is incomplete: %v. It was probably cut off (the output may have hit a length limit), so nothing was changed: resend the whole diff, every block ending with \"+++++++ REPLACE\".", err))
		return
	}
	res.Violate(CodeInvalidValue, param, fmt.Sprintf("The diff is not valid SEARCH/REPLACE blocks: %v. Each block is \"------- SEARCH\", the exact lines, \"=======\", the new lines, \"+++++++ REPLACE\".", err))
}

// ViolateUnifiedDiff records why a unified diff given to apply_patch cannot
// be used: TRUNCATED when it ends inside a hunk, a header or an unclosed
// code fence, INVALID_VALUE otherwise (counts that do not match the hunk's
// lines, a hunk that only adds lines to an existing file, ...), each with
// the parser's line and what to do. Validation and execution say the same.
func ViolateUnifiedDiff(res *Result, param string, err error) {
	if errors.Is(err, edit.ErrTruncated) {
		res.Violate(CodeTruncated, param, fmt.Sprintf("The diff is incomplete: %v.", err))
		return
	}
	res.Violate(CodeInvalidValue, param, fmt.Sprintf("The unified diff cannot be read: %v. "+
		"Each file is \"--- a/PATH\" and \"+++ b/PATH\" (/dev/null for a file created or deleted), then its hunks: "+
		"\"@@ -START,COUNT +START,COUNT @@\" (or \"@@ ... @@\" without numbers) and lines starting with ' ' (unchanged), '-' (removed) or '+' (added).", err))
}

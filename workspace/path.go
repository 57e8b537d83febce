package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// useInstead says which paths the workspace takes.
func (w *Workspace) useInstead() string {
	if w.hint == "" {
		return "use a path relative to the workspace root"
	}
	return "use a path relative to the workspace root, or an absolute path under " + w.hint
}

// namesDirectory refuses a path whose spelling names a directory, which
// cleaning would drop: "f.txt/" must not write f.txt.
func namesDirectory(p, rel string) error {
	q := toSlash(p)
	var end string
	for _, e := range []string{"/", "/.", "/.."} {
		if strings.HasSuffix(q, e) {
			end = e
		}
	}
	if end == "" {
		return nil
	}
	msg := fmt.Sprintf("path %q ends with %q, so it names a directory; toolguard reads and writes files only", p, end)
	if end != "/.." && rel != "." {
		msg += fmt.Sprintf(". To name the file, drop the trailing %q: %q", end, rel)
	} else {
		msg += ". Give the path of a file"
	}
	return refuse(CodeNotRegular, rel, msg, nil)
}

func (w *Workspace) clean(p string) (string, error) {
	if p == "" {
		return "", refuse(CodeInvalidPath, p, "the path is empty; give the file's path relative to the workspace root", nil)
	}
	if len(p) > MaxPathBytes {
		return "", refuse(CodeInvalidPath, strings.ToValidUTF8(p[:64], "")+"...", fmt.Sprintf("the path is %d bytes long; toolguard accepts paths up to %d bytes", len(p), MaxPathBytes), nil)
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f {
			what := fmt.Sprintf("a control character (%#02x)", c)
			if c == 0 {
				what = "a NUL byte"
			}
			return "", refuse(CodeInvalidPath, p, fmt.Sprintf("path %q contains %s at byte %d; file paths cannot contain it", p, what, i), nil)
		}
	}
	if i := strings.IndexByte(p, '\\'); i >= 0 && os.PathSeparator != '\\' {
		return "", refuse(CodeInvalidPath, p, fmt.Sprintf(
			"path %q contains a backslash at byte %d; toolguard separates directories with \"/\" only. Write %q", p, i, strings.ReplaceAll(p, `\`, "/")), nil)
	}
	q := toSlash(p)
	comps := strings.Split(q, "/")
	if isAbs(p) {
		rest, ok := w.underRoot(components(q))
		if !ok {
			return "", refuse(CodeOutsideWorkspace, p, fmt.Sprintf(
				"path %q is outside the workspace; %s", p, w.useInstead()), nil)
		}
		comps = rest
	}
	out := make([]string, 0, len(comps))
	for _, c := range comps {
		switch c {
		case "", ".":
		case "..":
			if len(out) == 0 {
				return "", refuse(CodeOutsideWorkspace, p, fmt.Sprintf(
					"path %q climbs above the workspace root with \"..\"; %s", p, w.useInstead()), nil)
			}
			out = out[:len(out)-1]
		default:
			if len(c) > maxNameBytes {
				return "", refuse(CodeInvalidPath, p, fmt.Sprintf("path %q has a name of %d bytes; names are limited to %d bytes", p, len(c), maxNameBytes), nil)
			}
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return ".", nil
	}
	return strings.Join(out, "/"), nil
}

// underRoot strips an accepted absolute root from comps.
func (w *Workspace) underRoot(comps []string) ([]string, bool) {
	for _, pre := range w.prefixes {
		if len(comps) >= len(pre) && slices.Equal(comps[:len(pre)], pre) {
			return comps[len(pre):], true
		}
	}
	return nil, false
}

// components splits a slash path into its names, "." dropped, ".." kept.
func components(p string) []string {
	var out []string
	for c := range strings.SplitSeq(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

func toSlash(p string) string {
	if os.PathSeparator == '\\' {
		return strings.ReplaceAll(p, `\`, "/")
	}
	return p
}

func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") || filepath.IsAbs(p)
}

// joinInside joins dir and a relative link target, failing above the root.
func joinInside(dir, dest string) (string, bool) {
	var out []string
	if dir != "." {
		out = strings.Split(dir, "/")
	}
	for c := range strings.SplitSeq(dest, "/") {
		switch c {
		case "", ".":
		case "..":
			if len(out) == 0 {
				return "", false
			}
			out = out[:len(out)-1]
		default:
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return ".", true
	}
	return strings.Join(out, "/"), true
}

// Package contentfix repairs file content and edit text as models garble
// them, and finds placeholder comments standing for omitted code. A fix
// changes text only on strong evidence, else returns it with false.
package contentfix

import "strings"

// ext returns the lower-cased extension of a / or \ separated path.
func ext(path string) string {
	path = strings.TrimSpace(path)
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	i := strings.LastIndexByte(base, '.')
	if i < 0 {
		return ""
	}
	return strings.ToLower(base[i:])
}

func isMarkdownPath(path string) bool {
	switch ext(path) {
	case ".md", ".markdown", ".mdx":
		return true
	}
	return false
}

// isMarkupPath reports files where HTML entities are meant literally:
// markup, XML formats and HTML templates.
func isMarkupPath(path string) bool {
	switch ext(path) {
	case ".html", ".htm", ".xhtml", ".xml", ".svg", ".jsx", ".tsx", ".vue", ".md", ".markdown", ".mdx",
		".svelte", ".astro", ".xsl", ".xslt", ".xsd", ".xaml", ".plist", ".rss", ".atom",
		".csproj", ".vbproj", ".fsproj", ".props", ".targets", ".resx",
		".phtml", ".erb", ".ejs", ".hbs", ".handlebars", ".mustache", ".jinja", ".j2",
		".njk", ".twig", ".liquid", ".jsp", ".aspx", ".cshtml", ".razor":
		return true
	}
	return false
}

// isProsePath reports text files that hold data or prose, not code: an
// entity in them stands in no code position, so it is never evidence of
// encoding (a CSV row "Tom &amp; Jerry" may be an HTML export's own).
func isProsePath(path string) bool {
	switch ext(path) {
	case ".txt", ".text", ".csv", ".tsv", ".rst", ".adoc", ".asciidoc", ".org", ".tex", ".log", ".srt", ".vtt":
		return true
	}
	return false
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWordByte counts a multi-byte character's bytes as letters.
func isWordByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c >= 0x80
}

package contentfix

import (
	"strings"
	"unicode/utf16"

	"github.com/toolguard/toolguard/internal/jsonesc"
)

// DecodeEscapes decodes literal escape sequences in content evidently
// escaped twice (evidentlyEscaped). Unknown escapes (\d) stay as written.
func DecodeEscapes(content string) (string, bool) {
	if strings.ContainsAny(content, "\n\r") || !strings.Contains(content, `\n`) || !evidentlyEscaped(content) {
		return content, false
	}
	return DecodeEscapesPlain(content), true
}

// DecodeEscapesPlain decodes \n \t \r \" \\ \' \/ and \uXXXX in one
// left-to-right pass, with no test of evidence: the caller has its own (an
// edit's old text that matches the file only once decoded). Unknown escapes
// and lone surrogates stay as written.
func DecodeEscapesPlain(content string) string {
	if !strings.Contains(content, `\`) {
		return content
	}
	var b strings.Builder
	b.Grow(len(content))
	for i := 0; i < len(content); {
		c := content[i]
		if c != '\\' || i+1 == len(content) {
			b.WriteByte(c)
			i++
			continue
		}
		switch d := content[i+1]; d {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '"', '\\', '\'', '/':
			b.WriteByte(d)
		case 'u':
			if r, n := jsonesc.Unicode(content[i:]); n > 0 && !utf16.IsSurrogate(r) {
				b.WriteRune(r)
				i += n
				continue
			}
			b.WriteString(`\u`)
		default:
			// Keep the backslash; the next character is copied as it stands.
			b.WriteByte('\\')
			i++
			continue
		}
		i += 2
	}
	return b.String()
}

// EscapedNewlines counts the \n written as two characters in s: structural
// ones, outside quoted literals and drive paths, and quoted ones, inside a
// literal (print('a\nb')), where \n is the language's own escape.
func EscapedNewlines(s string) (structural, quoted int) {
	structural, quoted, _ = scanNewlines(s)
	return structural, quoted
}

// evidentlyEscaped reports content without a real line break holding two
// structural \n, or one before indentation or the end. A \n inside a quoted
// literal (print('a\nb')) or a drive path (C:\new) is not structural.
// Known limit: a relative Windows path (dir\new\nodes) is decoded.
func evidentlyEscaped(s string) bool {
	structural, _, oneOK := scanNewlines(s)
	return structural >= 2 || (structural == 1 && oneOK)
}

// scanNewlines counts the literal \n of s outside and inside quoted
// literals; oneOK reports a structural one before indentation or the end.
func scanNewlines(s string) (structural, quoted int, oneOK bool) {
	var quote byte
	inPath := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' {
			quote = 0 // a literal rarely spans lines; an apostrophe must not hide the next ones
		}
		if inPath && endsPath(c) {
			inPath = false
		}
		if !inPath && quote == 0 && driveAt(s, i) {
			inPath = true
		}
		switch {
		case c == '\\' && i+1 < len(s):
			switch {
			case s[i+1] != 'n' || inPath:
			case quote != 0:
				quoted++
			default:
				structural++
				j := i + 2
				oneOK = oneOK || j == len(s) || s[j] == ' ' || s[j] == '\t'
			}
			i++
		case c == '`' && strings.HasPrefix(s[i:], "```"):
			// A code fence marker, not a quote.
			for i+1 < len(s) && s[i+1] == '`' {
				i++
			}
		case c == '"' || c == '`' || c == '\'':
			quote = quoteAfter(s, i, quote)
		}
	}
	return structural, quoted, oneOK
}

// quoteAfter returns the quote left open after s[i]; a ' after a letter is
// an apostrophe.
func quoteAfter(s string, i int, quote byte) byte {
	switch c := s[i]; c {
	case '"', '`':
		if quote == 0 {
			return c
		}
		if quote == c {
			return 0
		}
	case '\'':
		if quote == '\'' {
			return 0
		}
		if quote == 0 && (i == 0 || !isWordByte(s[i-1])) {
			return '\''
		}
	}
	return quote
}

// driveAt reports a Windows drive path at s[i]: a letter starting a word,
// ":\", then two path-name characters, which "if x:\n    y" lacks.
func driveAt(s string, i int) bool {
	if i+4 >= len(s) || !isLetter(s[i]) || s[i+1] != ':' || s[i+2] != '\\' ||
		!isPathByte(s[i+3]) || !isPathByte(s[i+4]) {
		return false
	}
	return i == 0 || !isWordByte(s[i-1])
}

func isPathByte(c byte) bool {
	return isWordByte(c) || c == '.' || c == '-' || c == '$' || c == '~'
}

func endsPath(c byte) bool {
	switch c {
	case ' ', '\t', '"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '|':
		return true
	}
	return false
}

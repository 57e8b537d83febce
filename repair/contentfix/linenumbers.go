package contentfix

import "strings"

// Line-number prefix forms.
const (
	formPipe  = 1 // "  7 | code" (also "7| code", "7 |code")
	formTab   = 2 // cat -n: "     7\tcode"
	formArrow = 3 // Claude Code's Read: "     7→code"
	formBare  = 4 // "     7": an empty line of the tab or arrow form, its separator trimmed
)

// StripLineNumbers removes the line numbers a read tool adds to edit text,
// when every non-blank line has consecutive ones of one form. A single line
// needs a padded number ("200 | OK" stays). Text numbered twice is left
// alone, which keeps the repair idempotent.
func StripLineNumbers(text string) (string, bool) {
	out, ok := stripNumbersOnce(text)
	if !ok {
		return text, false
	}
	if _, again := stripNumbersOnce(out); again {
		return text, false
	}
	return out, true
}

// stripNumbersOnce strips one level; a blank line takes its own number.
func stripNumbersOnce(text string) (string, bool) {
	if text == "" {
		return text, false
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	out := make([]string, len(lines))
	form := 0
	base := -1
	prefixed, padded := 0, false
	for i, raw := range lines {
		line, eol := splitEOL(raw)
		if strings.TrimSpace(line) == "" {
			out[i] = raw
			continue
		}
		num, rest, f, pad, ok := linePrefix(line)
		if !ok {
			return text, false
		}
		if form, ok = joinForm(form, f); !ok {
			return text, false
		}
		if base < 0 {
			base = num - i
			if base < 1 {
				return text, false
			}
		} else if num != base+i {
			return text, false
		}
		prefixed++
		padded = pad
		out[i] = rest + eol
	}
	if prefixed == 0 || form == formBare || (prefixed == 1 && !padded) {
		return text, false
	}
	return strings.Join(out, ""), true
}

// joinForm returns the form of lines of form followed by one of form f;
// bare numbers go with the tab and arrow forms only.
func joinForm(form, f int) (int, bool) {
	switch {
	case form == 0:
		return f, true
	case form == formBare && f == formPipe, form == formPipe && f == formBare:
		return 0, false
	case form == formBare:
		return f, true
	case f == formBare:
		return form, true
	case f != form:
		return 0, false
	}
	return form, true
}

func splitEOL(raw string) (line, eol string) {
	switch {
	case strings.HasSuffix(raw, "\r\n"):
		return raw[:len(raw)-2], "\r\n"
	case strings.HasSuffix(raw, "\n"):
		return raw[:len(raw)-1], "\n"
	}
	return raw, ""
}

// linePrefix parses a prefix: spaces, 1 to 9 digits, a form's separator.
func linePrefix(line string) (num int, rest string, form int, pad bool, ok bool) {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	pad = i > 0
	j := i
	for j < len(line) && isDigit(line[j]) {
		num = num*10 + int(line[j]-'0')
		j++
	}
	digits := j - i
	if digits == 0 || digits > 9 {
		return 0, "", 0, false, false
	}
	r := line[j:]
	switch {
	case strings.TrimRight(r, " \t") == "":
		if !pad {
			return 0, "", 0, false, false
		}
		return num, "", formBare, pad, true
	case r[0] == '\t':
		// cat -n pads to 6: "1\tAlice" is tab-separated data.
		if !pad && digits < 6 {
			return 0, "", 0, false, false
		}
		return num, r[1:], formTab, pad || digits >= 6, true
	case strings.HasPrefix(r, "→"):
		return num, r[len("→"):], formArrow, pad, true
	}
	k := 0
	for k < len(r) && r[k] == ' ' {
		k++
	}
	if k == len(r) || r[k] != '|' {
		return 0, "", 0, false, false
	}
	rest = strings.TrimPrefix(r[k+1:], " ")
	return num, rest, formPipe, pad, true
}

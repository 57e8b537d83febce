package edit

import "testing"

// TestEditLineEndings: a replacement keeps each line's own ending when it
// has as many lines as the span it replaces, and the span's dominant ending
// otherwise; the BOM and everything around the span stay byte for byte.
func TestEditLineEndings(t *testing.T) {
	tests := []struct {
		name, content string
		edit          Edit
		want          string
	}{
		{"CRLF file, LF new text", "a\r\nb\r\nc\r\n", Edit{OldText: "b", NewText: "x\ny"}, "a\r\nx\r\ny\r\nc\r\n"},
		{"CRLF and BOM", "\uFEFFa\r\nb\r\n", Edit{OldText: "a\nb", NewText: "A\nB"}, "\uFEFFA\r\nB\r\n"},
		{"mixed line by line, same line count", "a\r\nb\nc\r\nd\n", Edit{OldText: "a\nb\nc\n", NewText: "A\nB\nC\n"}, "A\r\nB\nC\r\nd\n"},
		{"mixed, same count, no final newline", "a\nb\r\nc", Edit{OldText: "a\nb\nc", NewText: "A\nB\nC"}, "A\nB\r\nC"},
		{"mixed, fewer lines: the span's dominant ending", "a\r\nb\nc\r\nd\n", Edit{OldText: "a\nb\nc\n", NewText: "A\nC\n"}, "A\r\nC\r\nd\n"},
		{"mixed, more lines, LF dominant", "a\nb\nc\r\nd\n", Edit{OldText: "a\nb\nc\n", NewText: "A\nB\nB2\nC\n"}, "A\nB\nB2\nC\nd\n"},
		{"new text already CRLF, mixed file", "a\r\nb\nc\r\n", Edit{OldText: "a\nb\n", NewText: "A\r\nB\r\n"}, "A\r\nB\nc\r\n"},
		{"new text already CRLF, CRLF file", "a\r\nb\r\n", Edit{OldText: "a\r\n", NewText: "A\r\nA2\r\n"}, "A\r\nA2\r\nb\r\n"},
		{"LF file, CRLF new text", "a\nb\n", Edit{OldText: "a\n", NewText: "A\r\nA2\r\n"}, "A\nA2\nb\n"},
		{"empty file", "", Edit{OldText: "", NewText: "x\ny\n"}, "x\ny\n"},
		{"BOM-only file", "\uFEFF", Edit{OldText: "", NewText: "x\r\ny"}, "\uFEFFx\r\ny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, r := ApplyEdit(tt.content, tt.edit, MatchOptions{})
			if got != tt.want || r.Status != StatusApplied {
				t.Errorf("ApplyEdit(%q, %q → %q) = %q, %s; want %q, APPLIED", tt.content, tt.edit.OldText, tt.edit.NewText, got, r.Status, tt.want)
			}
		})
	}
}

// TestKeepLineEndings: a whole new content takes the old file's dominant
// CRLF and its BOM only when it carries neither CR nor BOM itself.
func TestKeepLineEndings(t *testing.T) {
	tests := []struct {
		name, old, content string
		want               string
		crlf, bom          bool
	}{
		{"CRLF file", "a\r\nb\r\n", "a\nc\n", "a\r\nc\r\n", true, false},
		{"CRLF and BOM", "\uFEFFa\r\nb\r\n", "a\nc", "\uFEFFa\r\nc", true, true},
		{"BOM, LF", "\uFEFFa\nb\n", "a\nc\n", "\uFEFFa\nc\n", false, true},
		{"mostly CRLF", "a\r\nb\r\nc\n", "x\ny\n", "x\r\ny\r\n", true, false},
		{"mostly LF", "a\nb\nc\r\n", "x\ny\n", "x\ny\n", false, false},
		{"as many of each", "a\r\nb\n", "x\ny\n", "x\ny\n", false, false},
		{"one line, CRLF file", "a\r\nb\r\n", "x", "x", false, false},
		{"content has CRLF", "a\r\nb\r\n", "x\r\ny\n", "x\r\ny\n", false, false},
		{"content has a lone CR", "\uFEFFa\r\n", "x\ry\n", "x\ry\n", false, false},
		{"content has its own BOM", "a\r\nb\r\n", "\uFEFFx\ny\n", "\uFEFFx\ny\n", false, false},
		{"empty content", "\uFEFFa\r\n", "", "", false, false},
		{"empty file", "", "x\ny\n", "x\ny\n", false, false},
		{"LF file", "a\nb\n", "x\ny\n", "x\ny\n", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, crlf, bom := KeepLineEndings(tt.old, tt.content)
			if got != tt.want || crlf != tt.crlf || bom != tt.bom {
				t.Errorf("KeepLineEndings(%q, %q) = %q, %v, %v; want %q, %v, %v", tt.old, tt.content, got, crlf, bom, tt.want, tt.crlf, tt.bom)
			}
		})
	}
}

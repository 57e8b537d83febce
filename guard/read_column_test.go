package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// TestReadOnLongLine follows, as a model would, the way on each truncated
// read names, through read_file calls: every suggested call is usable and
// the texts read join into the whole file, a line longer than the bound
// included (it used to stop after the line's first 256 KiB, and the
// suggested offset skipped the rest or was refused).
func TestReadOnLongLine(t *testing.T) {
	long := strings.Repeat("héllo wörld, ", 50_000) // 700 KB of two-byte characters among one-byte ones
	files := map[string]string{
		"one.txt":  long,
		"two.txt":  "first\n" + long + "\nlast\n",
		"crlf.txt": long + "\r\n" + long + "\r\n",
	}
	g, dir := newWorkspaceGuard(t)
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range files {
		t.Run(name, func(t *testing.T) {
			args := map[string]any{"path": name}
			var got strings.Builder
			for reads := 1; ; reads++ {
				if reads > len(content)/DefaultMaxReadBytes+4 {
					t.Fatalf("%d reads and not at the end: %d of %d bytes", reads, got.Len(), len(content))
				}
				text, _ := json.Marshal(args)
				r, err := g.ReadCall(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "s",
					Call: repair.Call{Name: ReadToolName, Form: repair.FormText, Text: string(text)}}})
				if err != nil {
					t.Fatal(err)
				}
				if !r.OK() {
					t.Fatalf("read %d with %s refused: %s", reads, text, r.Feedback)
				}
				if len(r.Content) > DefaultMaxReadBytes {
					t.Fatalf("read %d returned %d bytes, over the bound", reads, len(r.Content))
				}
				got.WriteString(r.Content)
				next := r.ReadOn()
				if next == "" {
					break
				}
				var offset, column int
				if n, _ := fmt.Sscanf(next, "offset %d and column %d", &offset, &column); n == 0 {
					t.Fatalf("way on %q names no offset", next)
				}
				args = map[string]any{"path": name, "offset": offset}
				if column > 0 {
					args["column"] = column
				}
			}
			if got.String() != content {
				t.Errorf("the reads joined are %d bytes, want the file's %d", got.Len(), len(content))
			}
		})
	}
}

// TestReadColumn: a column starts the first line there; one past the line
// or inside a character is refused with the column to give instead.
func TestReadColumn(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("héllo\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		req  ReadRequest
		want string
		msg  string
	}{
		{req: ReadRequest{Path: "a.txt", Column: 4}, want: "llo\nworld\n"},
		{req: ReadRequest{Path: "a.txt", Offset: 2, Column: 3, LineNumbers: true}, want: "   2 | rld\n"},
		{req: ReadRequest{Path: "a.txt", Column: 7}, want: "\nworld\n"},
		{req: ReadRequest{Path: "a.txt", Column: 8}, msg: "column 8 is past the end of line 1, which has 7 bytes; give a column from 1 to 7"},
		{req: ReadRequest{Path: "a.txt", Column: 3}, msg: "column 3 of line 1 falls inside a character; give column 2, where it starts"},
	}
	for _, tt := range tests {
		tt.req.SessionID = "s"
		r, err := g.ReadFile(context.Background(), tt.req)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tt.msg == "" && (!r.OK() || r.Content != tt.want):
			t.Errorf("%+v: %q (%s), want %q", tt.req, r.Content, r.Feedback, tt.want)
		case tt.msg != "" && (r.OK() || len(r.Violations) != 1 || r.Violations[0].Param != "column" || r.Violations[0].Message != tt.msg):
			t.Errorf("%+v: violations %+v, want one on column saying %q", tt.req, r.Violations, tt.msg)
		}
	}
}

package guard

import (
	"context"
	"encoding/json"
	"errors"
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
// or inside a character is refused with the column to give instead: a
// violation on column for a read_file call, a *ColumnError, counted
// nowhere, for a read asked for in fields (the column is then the caller's).
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
		var ce *ColumnError
		switch {
		case tt.msg == "" && (err != nil || !r.OK() || r.Content != tt.want):
			t.Errorf("%+v: %v %+v, want %q", tt.req, err, r, tt.want)
		case tt.msg != "" && (!errors.As(err, &ce) || ce.Message != tt.msg || ce.Line != max(tt.req.Offset, 1) || ce.Column != tt.req.Column):
			t.Errorf("%+v: %v, want a ColumnError saying %q", tt.req, err, tt.msg)
		}
		if tt.msg == "" {
			continue
		}
		text, _ := json.Marshal(map[string]any{"path": tt.req.Path, "column": tt.req.Column})
		r, err = g.ReadCall(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "call",
			Call: repair.Call{Name: ReadToolName, Form: repair.FormText, Text: string(text)}}})
		if err != nil || r.OK() || len(r.Violations) != 1 || r.Violations[0].Param != "column" || r.Violations[0].Message != tt.msg {
			t.Errorf("read_file %s: %v %+v, want one violation on column saying %q", text, err, r, tt.msg)
		}
	}
	// The refused reads in fields were not the model's: nothing counted.
	if st, err := g.Session(context.Background(), "s"); err != nil || st.Mistakes.Consecutive != 0 {
		t.Errorf("session s after refused columns: %+v %v, want no mistake", st, err)
	}
}

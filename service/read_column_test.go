package service_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
)

// longLine is 750 KB on one line, two-byte characters among one-byte ones,
// so cuts fall next to characters.
var longLine = strings.Repeat("héllo wörld, ", 50_000)

// TestReadFileReadsOnInLongLine follows next_offset and next_column over
// gRPC until the end: the pieces join into the file, a 750 KB line
// included, and every reply fits the send bound. ReadFile used to stop
// after the line's first 256 KiB, with no way on but skipping the rest.
func TestReadFileReadsOnInLongLine(t *testing.T) {
	files := map[string]string{
		"one.txt":  longLine,
		"two.txt":  "first\n" + longLine + "\nlast\n",
		"crlf.txt": longLine + "\r\n" + longLine + "\r\n",
	}
	for _, send := range []int{service.DefaultConfig().MaxSendMsgBytes, 192 << 10} {
		t.Run(fmt.Sprintf("send %d", send), func(t *testing.T) {
			c, ws := startWorkspace(t, service.Config{MaxSendMsgBytes: send})
			for name, content := range files {
				writeFile(t, filepath.Join(ws, name), content)
			}
			for name, content := range files {
				rc := &toolguardv1.RequestContext{SessionId: name}
				req := &toolguardv1.ReadFileRequest{Context: rc, Path: name}
				var got strings.Builder
				for reads := 1; ; reads++ {
					if reads > 100 {
						t.Fatalf("%s: %d reads and not at the end: %d of %d bytes", name, reads, got.Len(), len(content))
					}
					resp, err := c.ReadFile(context.Background(), req)
					if err != nil {
						t.Fatalf("%s: read %d (offset %d, column %d): %v", name, reads, req.GetOffset(), req.GetColumn(), err)
					}
					if !resp.GetVerdict().GetOk() {
						t.Fatalf("%s: read %d refused: %s", name, reads, resp.GetVerdict().GetFeedback())
					}
					if n := proto.Size(resp); n > send {
						t.Fatalf("%s: reply %d is %d bytes, over the send bound %d", name, reads, n, send)
					}
					got.WriteString(resp.GetContent())
					if !resp.GetTruncated() {
						if resp.GetNextOffset() != 0 || resp.GetNextColumn() != 0 {
							t.Errorf("%s: not truncated, yet next offset %d column %d", name, resp.GetNextOffset(), resp.GetNextColumn())
						}
						break
					}
					if resp.GetNextOffset() == 0 {
						t.Fatalf("%s: read %d truncated with no next_offset", name, reads)
					}
					req = &toolguardv1.ReadFileRequest{Context: rc, Path: name, Offset: resp.GetNextOffset(), Column: resp.GetNextColumn()}
				}
				if got.String() != content {
					t.Errorf("%s: the reads joined are %d bytes, want the file's %d", name, got.Len(), len(content))
				}
			}
		})
	}
}

// TestReadFileBadColumn: a column past its line's end or inside a
// character is the caller's mistake, INVALID_ARGUMENT naming the column to
// give, and no mistake of the model's.
func TestReadFileBadColumn(t *testing.T) {
	c, ws := startWorkspace(t, service.Config{})
	writeFile(t, filepath.Join(ws, "long.txt"), "first\n"+longLine+"\n")
	ctx := context.Background()
	rc := &toolguardv1.RequestContext{SessionId: "bad-column"}
	// One mistake of the model's first: the bad columns neither add to it
	// nor reset it.
	if resp, err := c.ReadFile(ctx, &toolguardv1.ReadFileRequest{Context: rc, Path: "missing.txt"}); err != nil || resp.GetVerdict().GetOk() {
		t.Fatalf("missing file: %v %v", resp, err)
	}
	for _, tc := range []struct {
		name           string
		offset, column uint32
		msg            string
	}{
		{"past the end", 2, uint32(len(longLine)) + 2, fmt.Sprintf("column %d is past the end of line 2, which has %d bytes; give a column from 1 to %d", len(longLine)+2, len(longLine)+1, len(longLine)+1)},
		{"past an empty offset", 0, 7, "column 7 is past the end of line 1, which has 6 bytes; give a column from 1 to 6"},
		{"inside é", 2, 3, "column 3 of line 2 falls inside a character; give column 2, where it starts"},
	} {
		_, err := c.ReadFile(ctx, &toolguardv1.ReadFileRequest{Context: rc, Path: "long.txt", Offset: tc.offset, Column: tc.column})
		st := wantRefusal(t, tc.name, err, codes.InvalidArgument, "INVALID_COLUMN")
		if st.Message() != tc.msg {
			t.Errorf("%s: message %q, want %q", tc.name, st.Message(), tc.msg)
		}
		var field string
		for _, d := range st.Details() {
			if br, ok := d.(*errdetails.BadRequest); ok && len(br.GetFieldViolations()) == 1 {
				field = br.GetFieldViolations()[0].GetField()
			}
		}
		if field != "column" {
			t.Errorf("%s: BadRequest field %q, want column", tc.name, field)
		}
	}
	s, err := c.GetSession(ctx, &toolguardv1.GetSessionRequest{SessionId: "bad-column"})
	if err != nil || s.GetSession().GetMistakes().GetConsecutive() != 1 {
		t.Errorf("session after bad columns: %v %v, want the one mistake before them", s, err)
	}
}

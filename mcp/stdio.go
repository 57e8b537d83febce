package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// The SDK's stdio transport ends the session at the first message it cannot
// read: garbage, invalid UTF-8, nesting past its limit, a line over its
// bound, a batch. lineFilter stands between stdin and the SDK: each line is
// checked first, one that would end the session is answered with a JSON-RPC
// error (id null) and dropped, and the SDK sees only messages it reads.

// maxStdioDepth is the SDK's nesting limit for a JSON-RPC message.
const maxStdioDepth = 1000

// RunIO serves one session over newline-delimited JSON-RPC on in and out
// (stdio) until the client closes in or ctx ends. A line that is no
// JSON-RPC message gets an error response and the session goes on.
func (s *Server) RunIO(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	srv, err := s.server(s.opts.ModelID)
	if err != nil {
		return err
	}
	limit := int(s.opts.MaxRequestBytes)
	if limit <= 0 {
		limit = sdk.DefaultMaxLineLength
	}
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	f := &lineFilter{r: bufio.NewReaderSize(in, 64<<10), limit: limit, sdk: pw, reply: w, log: s.log}
	go func() { _ = pw.CloseWithError(f.run()) }()
	// The filter passes a line of at most limit bytes and its newline.
	err = srv.Run(ctx, &sdk.IOTransport{Reader: pr, Writer: w, MaxLineLength: limit + 2})
	_ = in.Close()
	return err
}

// lockedWriter keeps the SDK's messages and the filter's errors whole: the
// SDK writes each message in one call.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

type lineFilter struct {
	r     *bufio.Reader
	limit int
	buf   []byte
	sdk   io.Writer // the SDK's side of the pipe
	reply io.Writer
	log   *zap.Logger
}

// run passes the lines of r until it ends: nil at EOF.
func (f *lineFilter) run() error {
	for {
		line, tooLong, err := f.readLine()
		switch {
		case tooLong:
			f.refuse(jsonrpc.CodeParseError, nil, fmt.Sprintf("message longer than %d bytes, the largest this server reads; it was skipped", f.limit))
		case len(line) > 0:
			if werr := f.pass(line); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine returns the next line trimmed of JSON white space. A line over
// the limit is read to its end and dropped (tooLong): the memory held stays
// within the limit.
func (f *lineFilter) readLine() (line []byte, tooLong bool, err error) {
	f.buf = f.buf[:0]
	for {
		chunk, err := f.r.ReadSlice('\n')
		if !tooLong {
			// Room for the line, a CR and the newline.
			if len(f.buf)+len(chunk) > f.limit+2 {
				tooLong, f.buf = true, f.buf[:0]
			} else {
				f.buf = append(f.buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.Trim(f.buf, " \t\r\n")
		if len(line) > f.limit {
			tooLong, line = true, nil
		}
		return line, tooLong, err
	}
}

// pass hands the SDK a line it can read, or answers the error that line
// would have ended the session with.
func (f *lineFilter) pass(line []byte) error {
	switch {
	case !utf8.Valid(line):
		f.refuse(jsonrpc.CodeParseError, nil, "parse error: the message is not valid UTF-8")
		return nil
	case tooDeep(line, maxStdioDepth):
		f.refuse(jsonrpc.CodeParseError, nil, fmt.Sprintf("parse error: the message nests deeper than %d levels", maxStdioDepth))
		return nil
	case !json.Valid(line):
		f.refuse(jsonrpc.CodeParseError, nil, "parse error: the line is not one JSON value; send one JSON-RPC message per line")
		return nil
	case line[0] == '[':
		f.refuse(jsonrpc.CodeInvalidRequest, nil, "invalid request: JSON-RPC batches are not accepted; send one message per line")
		return nil
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		f.refuse(jsonrpc.CodeInvalidRequest, idOf(line), "invalid request: "+err.Error())
		return nil
	}
	f.buf = append(line, '\n') // line is a slice of f.buf
	_, err := f.sdk.Write(f.buf)
	return err
}

// idOf is a message's id when it has a usable one, so that the client's
// call fails instead of waiting; otherwise null.
func idOf(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var id any
	_ = json.Unmarshal(m.ID, &id)
	switch id.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

func (f *lineFilter) refuse(code int, id json.RawMessage, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	resp, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: message}})
	f.log.Warn("mcp: a stdio message was refused", zap.String("reason", message))
	_, _ = f.reply.Write(append(resp, '\n'))
}

// tooDeep reports whether objects and arrays nest deeper than limit in
// data (brackets inside strings do not count).
func tooDeep(data []byte, limit int) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			if depth++; depth > limit {
				return true
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return false
}

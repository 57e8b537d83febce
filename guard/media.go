package guard

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

const (
	// MediaToolName reads an image, audio or other binary file whole.
	MediaToolName = "read_media_file"
	// DefaultMaxMediaBytes is Config.MaxMediaBytes when unset: a large photo.
	DefaultMaxMediaBytes = 5 << 20
)

func init() { registerLook(MediaToolName, (*Guard).mediaCall) }

// Media is what read_media_file answers: the file's bytes and MIME type.
type Media struct {
	// Path is the workspace-relative path read.
	Path     string
	MIMEType string
	Data     []byte
	SHA256   string
}

// MediaRequest asks for one media file, in fields.
type MediaRequest struct {
	RequestContext
	Path string
}

// ReadMedia reads a media file as the ReadMediaFile RPC asks: a call of
// read_media_file, counted in the session as the model's.
func (g *Guard) ReadMedia(ctx context.Context, req MediaRequest) (*Look, error) {
	return g.lookRequest(ctx, req.RequestContext, MediaToolName, map[string]any{"path": req.Path})
}

// mediaCall reads the file of a read_media_file call, confined as every
// read, up to the media bound.
func (g *Guard) mediaCall(_ context.Context, ws *workspace.Workspace, res *repair.Result) (LookResult, error) {
	p, _ := res.Args["path"].(string)
	data, info, err := ws.ReadFile(p)
	switch {
	case workspace.IsCode(err, workspace.CodeConflict):
		return nil, &FileChangedError{Path: p, Expected: "(as opened)", Actual: "(changed while being read)"}
	case err != nil && workspace.CodeOf(err) == "":
		return nil, fmt.Errorf("read %s: %w", p, err)
	case err != nil:
		res.Violate(violationCode(err), "path", err.Error())
	case int64(len(data)) > g.maxMediaBytes():
		res.Violate(CodeFileTooLarge, "path", fmt.Sprintf("file %q is %d bytes; read_media_file returns files of up to %d bytes", p, len(data), g.maxMediaBytes()))
	default:
		return &Media{Path: info.Path, Data: data, SHA256: info.SHA256, MIMEType: MediaType(info.Path, data)}, nil
	}
	return nil, nil
}

// Media gives the file as it is, for a front end that carries media.
func (m *Media) Media() (path, mimeType string, data []byte) { return m.Path, m.MIMEType, m.Data }

// Text describes the file, for a front end that carries only text.
func (m *Media) Text() string {
	return fmt.Sprintf("%s: %s, %s, sha256 %s\n", m.Path, m.MIMEType, HumanSize(int64(len(m.Data))), m.SHA256)
}

// MarshalJSON describes the file; its bytes are the answer's content.
func (m *Media) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Path     string `json:"path"`
		MIMEType string `json:"mime_type"`
		Size     int    `json:"size"`
		SHA256   string `json:"sha256"`
	}{m.Path, m.MIMEType, len(m.Data), m.SHA256})
}

// maxMediaBytes keeps a media answer within the server's bound and well
// inside the answer's budget.
func (g *Guard) maxMediaBytes() int64 {
	n := g.maxMedia
	if n <= 0 {
		n = DefaultMaxMediaBytes
	}
	if b := g.answerBudget(); b > 0 && int64(b/2) < n {
		n = int64(b / 2)
	}
	return n
}

// mediaByExt names the types content sniffing (net/http) misses or calls
// generic, by extension: SVG is XML, WebP and most audio need more than
// the sniffer's signatures.
var mediaByExt = map[string]string{
	".svg": "image/svg+xml", ".webp": "image/webp", ".avif": "image/avif", ".heic": "image/heic", ".heif": "image/heif",
	".tif": "image/tiff", ".tiff": "image/tiff", ".ico": "image/x-icon", ".bmp": "image/bmp",
	".mp3": "audio/mpeg", ".m4a": "audio/mp4", ".aac": "audio/aac", ".flac": "audio/flac", ".ogg": "audio/ogg",
	".oga": "audio/ogg", ".opus": "audio/opus", ".wav": "audio/wav", ".weba": "audio/webm", ".mid": "audio/midi", ".midi": "audio/midi",
	".mp4": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime", ".pdf": "application/pdf",
}

// MediaType is the MIME type of a file: its content sniffed, and where the
// sniffer says only "binary", "text" or "XML" (or "ogg"), the extension.
func MediaType(name string, data []byte) string {
	sniffed := http.DetectContentType(data)
	base, _, _ := strings.Cut(sniffed, ";")
	generic := base == "application/octet-stream" || base == "text/plain" || base == "text/xml" || base == "application/ogg"
	if !generic {
		return sniffed
	}
	if t, ok := mediaByExt[strings.ToLower(path.Ext(name))]; ok {
		return t
	}
	if (base == "text/plain" || base == "text/xml") && bytes.Contains(data[:min(len(data), 512)], []byte("<svg")) {
		return "image/svg+xml"
	}
	return sniffed
}

package protoapi

import (
	"fmt"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/workspace"
)

// maxLookPatterns bounds the exclude patterns of a request; the guard says
// more to the model, this is the caller's field.
const maxLookPatterns = 64

func checkPatterns(field string, pats []string) error {
	if len(pats) > maxLookPatterns {
		return &FieldError{Field: field, Reason: "TOO_MANY_PATTERNS", Description: fmt.Sprintf("%d patterns; at most %d", len(pats), maxLookPatterns)}
	}
	return nil
}

// ListRequest checks a ListDirectoryRequest and converts it.
func ListRequest(req *toolguardv1.ListDirectoryRequest) (guard.ListRequest, error) {
	rc, err := requestContext(req.GetContext())
	if err != nil {
		return guard.ListRequest{}, err
	}
	if err := checkPatterns("exclude", req.GetExclude()); err != nil {
		return guard.ListRequest{}, err
	}
	return guard.ListRequest{RequestContext: rc, Path: req.GetPath(), Depth: int(req.GetDepth()),
		MaxEntries: int(min(req.GetMaxEntries(), guard.MaxListEntries)), Exclude: req.GetExclude(), Gitignore: req.GetGitignore()}, nil
}

// FindRequest checks a FindFilesRequest and converts it.
func FindRequest(req *toolguardv1.FindFilesRequest) (guard.FindRequest, error) {
	rc, err := requestContext(req.GetContext())
	if err != nil {
		return guard.FindRequest{}, err
	}
	if err := checkPatterns("exclude", req.GetExclude()); err != nil {
		return guard.FindRequest{}, err
	}
	return guard.FindRequest{RequestContext: rc, Pattern: req.GetPattern(), Path: req.GetPath(), Exclude: req.GetExclude(),
		MaxResults: int(min(req.GetMaxResults(), guard.MaxListEntries)), Gitignore: req.GetGitignore()}, nil
}

// ListToProto converts a listing's outcome.
func ListToProto(pv *toolguardv1.Verdict, lk *guard.Look) *toolguardv1.ListDirectoryResponse {
	out := &toolguardv1.ListDirectoryResponse{Verdict: pv}
	l, ok := lk.Result.(*guard.Listing)
	if !ok {
		return out
	}
	out.Path, out.Text = l.Path, l.Text()
	out.Entries = entriesToProto(l.Entries)
	out.Files, out.Directories, out.Symlinks, out.Others = uint32(l.Files), uint32(l.Dirs), uint32(l.Links), uint32(l.Others)
	out.TotalBytes, out.Omitted, out.Partial = uint64(max(l.Bytes, 0)), uint32(l.Omitted), l.Partial
	return out
}

// FindToProto converts a find's outcome.
func FindToProto(pv *toolguardv1.Verdict, lk *guard.Look) *toolguardv1.FindFilesResponse {
	out := &toolguardv1.FindFilesResponse{Verdict: pv}
	f, ok := lk.Result.(*guard.Found)
	if !ok {
		return out
	}
	out.Path, out.Text = f.Path, f.Text()
	out.Matches = entriesToProto(f.Matches)
	out.Omitted, out.Partial = uint32(f.Omitted), f.Partial
	return out
}

func entriesToProto(es []guard.DirEntry) []*toolguardv1.DirectoryEntry {
	out := make([]*toolguardv1.DirectoryEntry, 0, len(es))
	for _, e := range es {
		out = append(out, &toolguardv1.DirectoryEntry{Path: e.Path, Name: e.Name, Type: entryTypeToProto(e.Type), Size: uint64(max(e.Size, 0)),
			LinkTarget: e.Target, Depth: uint32(max(e.Depth, 0)), Omitted: uint32(max(e.Omitted, 0))})
	}
	return out
}

func entryTypeToProto(t workspace.EntryType) toolguardv1.EntryType {
	switch t {
	case workspace.EntryFile:
		return toolguardv1.EntryType_ENTRY_TYPE_FILE
	case workspace.EntryDir:
		return toolguardv1.EntryType_ENTRY_TYPE_DIRECTORY
	case workspace.EntryLink:
		return toolguardv1.EntryType_ENTRY_TYPE_SYMLINK
	}
	return toolguardv1.EntryType_ENTRY_TYPE_OTHER
}

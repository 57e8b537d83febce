package protoapi

import (
	"fmt"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
)

// maxSearchFieldBytes bounds the pattern and the include glob of a
// request; the guard says more to the model, these are the caller's fields.
const maxSearchFieldBytes = 64 << 10

// SearchRequest checks a SearchFilesRequest and converts it.
func SearchRequest(req *toolguardv1.SearchFilesRequest) (guard.SearchRequest, error) {
	rc, err := requestContext(req.GetContext())
	if err != nil {
		return guard.SearchRequest{}, err
	}
	if err := checkPatterns("exclude", req.GetExclude()); err != nil {
		return guard.SearchRequest{}, err
	}
	for field, v := range map[string]string{"pattern": req.GetPattern(), "include": req.GetInclude(), "output_mode": req.GetOutputMode()} {
		if len(v) > maxSearchFieldBytes {
			return guard.SearchRequest{}, &FieldError{Field: field, Reason: "FIELD_TOO_LONG", Description: fmt.Sprintf("at most %d bytes", maxSearchFieldBytes)}
		}
	}
	lines := func(n uint32) int { return int(min(n, 1<<16)) }
	return guard.SearchRequest{RequestContext: rc, Pattern: req.GetPattern(), Path: req.GetPath(), Include: req.GetInclude(),
		Exclude: req.GetExclude(), Literal: req.GetLiteral(), IgnoreCase: req.GetIgnoreCase(), SmartCase: req.GetSmartCase(),
		Context: lines(req.GetContextLines()), Before: lines(req.GetBefore()), After: lines(req.GetAfter()),
		MaxResults: int(min(req.GetMaxResults(), 1<<20)), OutputMode: req.GetOutputMode(), Gitignore: req.GetGitignore()}, nil
}

// SearchToProto converts a search's outcome.
func SearchToProto(pv *toolguardv1.Verdict, lk *guard.Look) *toolguardv1.SearchFilesResponse {
	out := &toolguardv1.SearchFilesResponse{Verdict: pv}
	s, ok := lk.Result.(*guard.Searched)
	if !ok {
		return out
	}
	out.Path, out.Text, out.Cut, out.Partial = s.Path, s.Text(), s.Cut, s.Partial
	for _, m := range s.Matches {
		out.Matches = append(out.Matches, &toolguardv1.SearchMatch{Path: m.Path, Line: u32(m.Line), Column: u32(m.Column),
			Text: m.Text, Before: m.Before, After: m.After})
	}
	for _, f := range s.Files {
		out.Files = append(out.Files, &toolguardv1.SearchFileCount{Path: f.Path, Count: u32(f.Count)})
	}
	out.TotalMatches, out.FilesMatched, out.Omitted = u32(s.TotalMatches), u32(s.FilesMatched), u32(s.Omitted)
	out.FilesSearched, out.BinarySkipped, out.LargeSkipped, out.UnreadableSkipped =
		u32(s.FilesSearched), u32(s.BinarySkipped), u32(s.LargeSkipped), u32(s.UnreadableSkipped)
	out.BytesRead = uint64(max(s.BytesRead, 0))
	return out
}

func u32(n int) uint32 { return uint32(min(max(n, 0), 1<<32-1)) }

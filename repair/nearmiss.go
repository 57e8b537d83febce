package repair

import (
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// dropCommentary drops the commentary parameters (the tools files'
// commentary_params) found among m's undeclared keys, in the list's order.
func (p *pipeline) dropCommentary(m map[string]any, found []string, path string) {
	if len(found) == 0 {
		return
	}
	rank := p.reg.commentaryRank
	slices.SortFunc(found, func(a, b string) int { return rank[a] - rank[b] })
	for _, k := range found {
		delete(m, k)
		p.res.repair(CodeCommentaryDropped, joinPath(path, k), fmt.Sprintf("dropped %q: commentary the tool does not take, which cannot change what the call does", k))
	}
}

// renameNearMiss renames the one unknown parameter when it is the near
// miss of the one required parameter missing (a plural, a case or
// separator difference, a letter or two): with more of either, which goes
// with which is a guess, and both are reported instead.
func (p *pipeline) renameNearMiss(m map[string]any, s *jsonschema.Schema, props map[string]*jsonschema.Schema, path string) {
	var missing, unknown []string
	for _, r := range requiredOf(s) {
		if _, ok := m[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) != 1 {
		return
	}
	for k := range m {
		if _, ok := props[k]; !ok {
			unknown = append(unknown, k)
			if len(unknown) > 1 {
				return
			}
		}
	}
	if len(unknown) != 1 {
		return
	}
	k, want := unknown[0], missing[0]
	why := nearMiss(k, want)
	if why == "" {
		return
	}
	m[want] = m[k]
	delete(m, k)
	p.res.repair(CodeAliasRenamed, joinPath(path, want), fmt.Sprintf("%s renamed to %q: the only unknown parameter, %s the only missing one", quote(k), want, why))
}

// nearMiss says how a is close to b, or "" when it is not.
func nearMiss(a, b string) string {
	fold := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(s))
	}
	fa, fb := fold(a), fold(b)
	switch {
	case fa == fb:
		return "in another case or with other separators than"
	case fa == fb+"s" || fa == fb+"es" || fb == fa+"s" || fb == fa+"es":
		return "a plural or singular of"
	}
	if d := editDistance(fa, fb); d > 0 && d <= max(1, min(2, len(fb)/4)) {
		return fmt.Sprintf("%d letter%s from", d, map[bool]string{true: "", false: "s"}[d == 1])
	}
	return ""
}

// editDistance is the Levenshtein distance of two short names.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = slices.Min([]int{prev[j] + 1, cur[j-1] + 1, prev[j-1] + cost})
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

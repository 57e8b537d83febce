package guard

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/repair"
)

// An execute answer carries file content at most once, in its diff, and
// always fits the send limit: a change that was made must never be reported
// as failed because its answer was too large, or the caller retries a write
// that already happened. In order:
//
//  1. Always: content, find and replace text at any depth, and any string
//     over LargeValueBytes, become markers listed in Verdict.Elided.
//  2. A diff over MaxDiffBytes, or that does not fit, is elided.
//  3. Still too large: top-level parameters, largest first, then the
//     arguments as a whole (field "").
//  4. Still too large: the call is refused before anything is written.
//
// Sizes are upper bounds of the protobuf encoding, so rule 4 never lets
// through a change whose answer could not be sent.

// CodeResponseTooLarge refuses a call whose answer could not be sent even
// with every value elided: nothing is written.
const CodeResponseTooLarge = "RESPONSE_TOO_LARGE"

// Elision stands for a value left out of an answer.
type Elision struct {
	// Field is a parameter path as in repair.Repair's Param, or "diff".
	Field string
	// Size is a string's UTF-8 bytes, or any other value's compact JSON.
	Size int
	// SHA256 is the hex SHA-256 of those bytes.
	SHA256 string
}

// Marker is the string that stands for the value in the arguments.
func (e Elision) Marker() string {
	return "<elided " + strconv.Itoa(e.Size) + " bytes sha256:" + e.SHA256 + ">"
}

const (
	// LargeValueBytes bounds the strings an execute answer echoes.
	LargeValueBytes = 64 << 10
	// MaxDiffBytes is well under gRPC clients' default 4 MiB receive limit,
	// and more than a model reads.
	MaxDiffBytes = 1 << 20
	// answerReserve covers what the estimate leaves out (ids, framing...).
	answerReserve = 64 << 10
)

// answerBudget is the size an execute answer may take; 0: no bound.
func (g *Guard) answerBudget() int {
	if g.maxResponse <= 0 {
		return 0
	}
	return g.maxResponse - min(answerReserve, g.maxResponse/2)
}

// checkAnswer refuses a call before it writes anything when its answer could
// not fit even with everything elided (rule 4), assuming the worst the
// conclusion may add.
func (g *Guard) checkAnswer(res *repair.Result, ex *Execution) bool {
	budget := g.answerBudget()
	if budget <= 0 {
		return true
	}
	worst := *res
	worst.Violations = append(slices.Clip(res.Violations), repair.Violation{Code: repair.CodeRepeatedCall,
		Message: "This exact call was made 4294967295 times in a row; sending it again will not work any better."})
	feedback := repair.Feedback(&worst, repair.Mistakes{Consecutive: g.limit, Limit: g.limit})
	if ex.batch != nil {
		feedback = repair.FeedbackOutcome(&worst, repair.Mistakes{Consecutive: g.limit, Limit: g.limit}, strings.Repeat(".", repair.MaxOutcomeBytes))
	}
	a := answer{tool: res.Tool, args: res.Args, diff: ex.Diff, fixed: fixedSize(&worst, feedback, ex)}
	s, err := a.shape(budget, false)
	if err == nil && s.size <= budget {
		return true
	}
	res.Violate(CodeResponseTooLarge, "", fmt.Sprintf(
		"The result of this call (%d edits on %d files) is too large to report in one response, so nothing was changed. Split it into smaller calls.",
		len(ex.Edits), len(ex.Changes)))
	ex.Edits, ex.Changes, ex.Diff, ex.DiffElided = nil, nil, "", nil
	return false
}

func (g *Guard) elide(ex *Execution) error {
	v := ex.Verdict
	args := v.Args
	if v.echo != nil {
		args = v.echo // a refused call's unexpected parameters (verdict.go)
	}
	a := answer{tool: v.Tool, args: args, diff: ex.Diff, fixed: fixedSize(v.Result, v.Feedback, ex)}
	s, err := a.shape(g.answerBudget(), true)
	if err != nil {
		return err
	}
	v.Args, v.ArgumentsJSON, v.Elided = s.args, s.argsJSON, s.elided
	ex.Diff = s.diff
	if s.diffElided != nil {
		ex.DiffElided = s.diffElided // else none, or one elided when made (joinDiffs)
	}
	return nil
}

// joinDiffs is the answer's diff: the diffs one after the other or, over
// MaxDiffBytes, which rule 2 elides whatever the budget, their size and
// hash, written into the hash without being built.
func joinDiffs(diffs ...edit.Diff) (string, *Elision) {
	n := 0
	for _, d := range diffs {
		n += d.Len()
	}
	if n <= MaxDiffBytes {
		var b strings.Builder
		b.Grow(n)
		for _, d := range diffs {
			b.WriteString(d.String())
		}
		return b.String(), nil
	}
	h := sha256.New()
	for _, d := range diffs {
		_, _ = d.WriteTo(h) // a hash never fails
	}
	return "", &Elision{Field: "diff", Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}
}

// structPerJSONByte bounds a Struct against compact JSON: "1," is 2 bytes of
// JSON and up to 24 of Struct.
const structPerJSONByte = 12

// answer is what shaping may change in an execute answer.
type answer struct {
	tool *repair.Tool // nil: no content parameter is known
	args map[string]any
	// argsJSON is args as compact JSON when known, hashed rather than
	// encoded again.
	argsJSON []byte
	diff     string
	fixed    int
	// echo keeps every value: nothing is executed.
	echo bool
	// count is what of the arguments the estimate counts.
	count counted
}

// counted says which forms of the arguments an answer carries: an execute
// answer both, with the same markers; a verdict's shaping (verdict.go)
// sizes arguments_json and the Struct one after the other.
type counted int

const (
	countBoth counted = iota
	countJSON
	countStruct
)

// param bounds what one parameter adds to the answer.
func (c counted) param(key string, v any) int {
	n := 0
	if c != countJSON {
		n += len(key) + 24 + structSize(v)
	}
	if c != countStruct {
		n += 2*len(key) + 8 + jsonSize(v)
	}
	return n
}

type shaped struct {
	args       map[string]any
	argsJSON   []byte
	elided     []Elision
	diff       string
	diffElided *Elision
	size       int
}

// shape applies rules 1 to 3 within budget bytes (0: rule 1 only). Without
// hash only sizes matter (a check before writing).
func (a answer) shape(budget int, hash bool) (shaped, error) {
	e := eliser{tool: a.tool, hash: hash}
	s := shaped{diff: a.diff}
	switch {
	case a.args != nil && a.echo:
		s.args = maps.Clone(a.args)
	case a.args != nil:
		s.args = make(map[string]any, len(a.args))
		for _, k := range slices.Sorted(maps.Keys(a.args)) {
			s.args[k] = e.value(a.args[k], k, k, true)
		}
	}
	s.elided = e.list
	costs := paramCosts(s.args, a.count)
	s.size = a.fixed + 32 + len(a.diff) + 16
	for _, c := range costs {
		s.size += c.cost
	}
	for _, el := range s.elided {
		s.size += elisionSize(el)
	}
	if a.diff != "" && (len(a.diff) > MaxDiffBytes || budget > 0 && s.size > budget) {
		el := e.elision("diff", a.diff)
		s.diff, s.diffElided = "", &el
		s.size += elisionSize(el) - len(a.diff)
	}
	if budget > 0 && s.size > budget {
		if err := a.elideParams(&s, &e, costs, budget); err != nil {
			return shaped{}, err
		}
	}
	if budget > 0 && s.size > budget && s.args != nil {
		// Many small parameters: the arguments go as a whole.
		el, err := e.wholeArgs(a)
		if err != nil {
			return shaped{}, err
		}
		for _, c := range costs {
			s.size -= c.cost
		}
		for _, x := range s.elided {
			s.size -= elisionSize(x)
		}
		s.args, s.elided = nil, []Elision{el}
		s.size += elisionSize(el)
	}
	var err error
	switch {
	case a.count == countStruct:
		// The JSON text is the other shaping's.
	case a.echo && a.argsJSON != nil && len(s.elided) == 0:
		s.argsJSON = a.argsJSON // nothing left out: no need to encode again
	case hash && s.args != nil:
		if s.argsJSON, err = repair.EncodeArgs(s.args); err != nil {
			return shaped{}, fmt.Errorf("encode elided arguments: %w", err)
		}
	}
	return s, nil
}

// elideParams is rule 3. Parameters smaller than their elision are never
// tried.
func (a answer) elideParams(s *shaped, e *eliser, costs []keyCost, budget int) error {
	var big []keyCost
	for _, c := range costs {
		if c.cost > minElisionGain {
			big = append(big, c)
		}
	}
	slices.SortFunc(big, func(x, y keyCost) int { return cmp.Or(cmp.Compare(y.cost, x.cost), cmp.Compare(x.key, y.key)) })
	for _, c := range big {
		if s.size <= budget {
			break
		}
		k := c.key
		el, err := e.whole(k, a.args[k])
		if err != nil {
			return err
		}
		saved := c.cost - a.count.param(k, el.Marker()) - elisionSize(el)
		inner := func(x Elision) bool { return x.Field == k || strings.HasPrefix(x.Field, k+"/") }
		for _, x := range s.elided {
			if inner(x) {
				saved += elisionSize(x)
			}
		}
		if saved <= 0 {
			continue
		}
		s.elided = append(slices.DeleteFunc(s.elided, inner), el)
		s.args[k] = el.Marker()
		s.size -= saved
	}
	return nil
}

const minElisionGain = 3 * 128

type eliser struct {
	tool *repair.Tool
	hash bool
	list []Elision
}

func (e *eliser) value(v any, path, key string, top bool) any {
	switch x := v.(type) {
	case string:
		if x != "" && (len(x) > LargeValueBytes || e.tool != nil && e.tool.IsTextParam(key, top)) {
			el := e.elision(path, x)
			e.list = append(e.list, el)
			return el.Marker()
		}
		return x
	case map[string]any:
		m := make(map[string]any, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			m[k] = e.value(x[k], path+"/"+k, k, false)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, it := range x {
			l[i] = e.value(it, path+"/"+strconv.Itoa(i), "", false)
		}
		return l
	}
	return v
}

func (e *eliser) whole(field string, v any) (Elision, error) {
	if s, ok := v.(string); ok {
		return e.elision(field, s), nil
	}
	raw, err := repair.EncodeJSON(v)
	if err != nil {
		return Elision{}, fmt.Errorf("encode %s: %w", field, err)
	}
	return e.elisionBytes(field, raw), nil
}

func (e *eliser) wholeArgs(a answer) (Elision, error) {
	if a.argsJSON != nil {
		return e.elisionBytes("", a.argsJSON), nil
	}
	return e.whole("", a.args)
}

// elision hashes s where it is: a copy would be the size of the value, a
// whole file's content.
func (e *eliser) elision(field, s string) Elision {
	return e.elisionBytes(field, unsafe.Slice(unsafe.StringData(s), len(s)))
}

func (e *eliser) elisionBytes(field string, b []byte) Elision {
	el := Elision{Field: field, Size: len(b), SHA256: strings.Repeat("0", sha256.Size*2)}
	if e.hash {
		sum := sha256.Sum256(b)
		el.SHA256 = hex.EncodeToString(sum[:])
	}
	return el
}

// Size estimates: upper bounds of the protobuf encoding; the arguments count
// twice, as a Struct and as JSON text.

type keyCost struct {
	key  string
	cost int
}

func paramCosts(args map[string]any, c counted) []keyCost {
	costs := make([]keyCost, 0, len(args))
	for k, v := range args {
		costs = append(costs, keyCost{k, c.param(k, v)})
	}
	return costs
}

// jsonSize bounds v's compact JSON without encoding it: every byte that may
// be escaped counts as its longest escape.
func jsonSize(v any) int {
	switch x := v.(type) {
	case string:
		n := 2
		for i := 0; i < len(x); {
			c := x[i]
			if c < utf8.RuneSelf {
				switch {
				case c < 0x20:
					n += 6 // \u00XX
				case c == '"' || c == '\\':
					n += 2
				default:
					n++
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(x[i:])
			if r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
				n += 6 // \ufffd for an invalid byte, \u2028, \u2029
			} else {
				n += size
			}
			i += size
		}
		return n
	case json.Number:
		return len(x)
	case map[string]any:
		n := 2
		for k, e := range x {
			n += jsonSize(k) + 2 + jsonSize(e)
		}
		return n
	case []any:
		n := 2
		for _, e := range x {
			n += 1 + jsonSize(e)
		}
		return n
	case bool:
		return 5
	case nil:
		return 4
	}
	// Other numbers: float64's longest form.
	return 24
}

func structSize(v any) int {
	switch x := v.(type) {
	case string:
		return len(x) + 16
	case map[string]any:
		n := 16
		for k, e := range x {
			n += len(k) + 24 + structSize(e)
		}
		return n
	case []any:
		n := 16
		for _, e := range x {
			n += 8 + structSize(e)
		}
		return n
	}
	return 16 // numbers, booleans, null
}

func elisionSize(e Elision) int { return len(e.Field) + 96 }

// fixedSize estimates what shaping leaves alone.
func fixedSize(res *repair.Result, feedback string, ex *Execution) int {
	n := len(res.ToolName) + 8 + len(feedback) + 8
	for _, r := range res.Repairs {
		n += len(r.Code) + len(r.Param) + len(r.Detail) + 32
	}
	for _, v := range res.Violations {
		n += len(v.Code) + len(v.Param) + len(v.Message) + 32
	}
	for _, e := range ex.Edits {
		n += len(e.Path) + len(e.Hint) + 8*len(e.Matches) + 96
	}
	for _, c := range ex.Changes {
		n += len(c.Path) + len(c.MovedTo) + 256
	}
	if ex.DiffElided != nil {
		n += elisionSize(*ex.DiffElided)
	}
	return n + syntaxSize(ex)
}

package repair

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The conformance corpus is testdata/json_repair_cases.jsonl: 393 pairs from
// the test suites of josdejong/jsonrepair and mangiucugna/json_repair (a copy
// of shared/corpus, see its README). Values are compared decoded, numbers as
// float64. A null expectation means the input must be rejected.

type corpusCase struct {
	ID        string          `json:"id"`
	Source    string          `json:"source"`
	Input     string          `json:"input"`
	Expected  json.RawMessage `json:"expected"`
	Category  string          `json:"category"`
	Consensus bool            `json:"consensus"`
}

// byDesign lists cases where toolguard answers differently on purpose:
// non-consensus choices (one library's answer) that would be wrong for
// tool-call arguments, and the one consensus case whose text leaves two
// readings that both libraries settle by guess. It stays short.
var byDesign = map[string]string{
	"code_fence-022":      `refused: the quote after "a" ends the string (the text "a" left an open quotation) or the quotation ("a" quoted, the string's closing quote forgotten); both libraries guess the first`,
	"invalid_escapes-003": `an unknown escape keeps its backslash ("\d" in a regex, "\p" in a Windows path): dropping it corrupts code`,
	"reject-004":          "text after a complete top-level value is ignored, not a reason to refuse the call ({...}{} from a model that repeated itself)",
	"reject-006":          "trailing prose after the arguments ({...} I hope this helps) is ignored, not a reason to refuse the call",
	"missing_value-006":   `a missing value is null, as in jsonrepair, not "": an empty string would pass for a real value and hide the mistake`,
	"missing_value-007":   `as missing_value-006`,
}

// minConformance is the overall pass count the repair engine must keep
// (335 until code_fence-022 was refused, see byDesign).
// Peers on the same corpus: json_repair 299, jsonrepair 293,
// kaptinlin/jsonrepair 284.
const minConformance = 334

func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	f, err := os.Open("testdata/json_repair_cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("corpus line: %v", err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// normalise re-decodes a value so numbers compare as float64.
func normalise(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unencodable: %v", err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return fmt.Sprintf("undecodable: %v", err)
	}
	return out
}

// conformanceResult runs one case and says whether it passed and what came out.
func conformanceResult(c corpusCase) (bool, string) {
	r, err := RepairJSON(c.Input, JSONOptions{})
	if string(c.Expected) == "null" {
		if err != nil {
			return true, "rejected"
		}
		got, _ := json.Marshal(r.Value)
		return false, "accepted as " + string(got)
	}
	if err != nil {
		return false, "rejected: " + err.Error()
	}
	var want any
	_ = json.Unmarshal(c.Expected, &want)
	got := normalise(r.Value)
	raw, _ := json.Marshal(got)
	return reflect.DeepEqual(got, want), string(raw)
}

func TestConformance(t *testing.T) {
	cases := loadCorpus(t)
	type tally struct{ pass, total, consPass, consTotal int }
	per := map[string]*tally{}
	var all tally
	var failures []string
	for _, c := range cases {
		ok, got := conformanceResult(c)
		tl := per[c.Category]
		if tl == nil {
			tl = &tally{}
			per[c.Category] = tl
		}
		for _, x := range []*tally{tl, &all} {
			x.total++
			if c.Consensus {
				x.consTotal++
			}
			if ok {
				x.pass++
				if c.Consensus {
					x.consPass++
				}
			}
		}
		if !ok {
			mark := " "
			if c.Consensus {
				mark = "C"
			}
			failures = append(failures, fmt.Sprintf("%s %s %q\n      want %s\n      got  %s", mark, c.ID, c.Input, c.Expected, got))
			if why, ok := byDesign[c.ID]; ok {
				t.Logf("%s differs by design: %s", c.ID, why)
			} else if c.Consensus {
				t.Errorf("consensus case %s fails: %q\n  want %s\n  got  %s", c.ID, c.Input, c.Expected, got)
			}
		}
	}
	cats := make([]string, 0, len(per))
	for k := range per {
		cats = append(cats, k)
	}
	sort.Strings(cats)
	var b strings.Builder
	fmt.Fprintf(&b, "%-20s %9s %11s\n", "category", "pass", "consensus")
	for _, k := range cats {
		tl := per[k]
		fmt.Fprintf(&b, "%-20s %4d/%-4d %5d/%-4d\n", k, tl.pass, tl.total, tl.consPass, tl.consTotal)
	}
	fmt.Fprintf(&b, "%-20s %4d/%-4d %5d/%-4d\n", "overall", all.pass, all.total, all.consPass, all.consTotal)
	t.Logf("conformance:\n%s", b.String())
	if testing.Verbose() {
		t.Logf("failures:\n%s", strings.Join(failures, "\n"))
	}
	for id := range byDesign {
		for _, c := range cases {
			if c.ID == id {
				if ok, _ := conformanceResult(c); ok {
					t.Errorf("%s is listed as differing by design but passes; remove it from byDesign", id)
				}
			}
		}
	}
	if all.pass < minConformance {
		t.Errorf("conformance %d/%d, want at least %d", all.pass, all.total, minConformance)
	}
}

package repair

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// nested returns a value nested depth levels deep, valid or broken (single
// quotes and a trailing comma, so it takes the repair path), as arrays or
// objects.
func nested(depth int, objects, broken bool) string {
	open, closeWith, leaf := "[", "]", "1"
	if objects {
		open, closeWith = `{"a":`, "}"
		if broken {
			open = `{'a':`
		}
	}
	if broken {
		leaf = "1,"
	}
	return strings.Repeat(open, depth) + leaf + strings.Repeat(closeWith, depth)
}

// depthOf returns how deep v nests and its innermost value.
func depthOf(v any) (int, any) {
	for d := 0; ; d++ {
		switch x := v.(type) {
		case []any:
			if len(x) != 1 {
				return d + 1, x
			}
			v = x[0]
		case map[string]any:
			if len(x) != 1 {
				return d + 1, x
			}
			v = x["a"]
		default:
			return d, v
		}
	}
}

func TestRepairJSONDepth(t *testing.T) {
	for _, depth := range []int{1, 510, 511, 512, 513, 10_000} {
		for _, objects := range []bool{false, true} {
			for _, broken := range []bool{false, true} {
				name := fmt.Sprintf("depth %d objects %v broken %v", depth, objects, broken)
				t.Run(name, func(t *testing.T) {
					r, err := RepairJSON(nested(depth, objects, broken), JSONOptions{})
					if depth > MaxJSONDepth {
						if !errors.Is(err, ErrTooDeep) {
							t.Fatalf("err = %v, want ErrTooDeep (value nests %d deep, repairs %v)", err, firstOf(depthOf(r.Value)), r.Repairs)
						}
						if r.Value != nil {
							t.Errorf("a value came with the error: %.80v", r.Value)
						}
						return
					}
					if err != nil {
						t.Fatalf("err = %v, want the value", err)
					}
					if d, leaf := depthOf(r.Value); d != depth || fmt.Sprint(leaf) != "1" {
						t.Errorf("value nests %d deep around %v, want %d around 1", d, leaf, depth)
					}
					if broken == (len(r.Repairs) == 0) {
						t.Errorf("repairs %v for broken=%v", r.Repairs, broken)
					}
				})
			}
		}
	}
}

func firstOf(d int, _ any) int { return d }

// TestValidateTooDeep: the pipeline reports arguments nested past the limit
// as unparseable, never as a shorter value.
func TestValidateTooDeep(t *testing.T) {
	reg := mustRegistry(t)
	for _, broken := range []bool{false, true} {
		text := `{"path":"a","content":"b","x":` + nested(10_000, false, broken) + `}`
		res := reg.Validate(Call{Name: "write_to_file", Form: FormText, Text: text}, Options{})
		if !res.Has(CodeUnparseable) || res.Args != nil {
			t.Errorf("broken=%v: violations %v, args %v; want UNPARSEABLE and no arguments", broken, codes(res.Violations), res.Args != nil)
		}
		if len(res.Violations) > 0 && !strings.Contains(res.Violations[0].Message, "levels deep") {
			t.Errorf("broken=%v: message %q does not say why", broken, res.Violations[0].Message)
		}
	}
}

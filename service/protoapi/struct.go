package protoapi

import (
	"encoding/json"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"
)

// newStruct is structpb.NewStruct, with the same result and errors, for the
// values the parsers produce (strings, json.Number, bool, nil, maps, lists):
// each object's values and their kinds are allocated together, not one by
// one, as a verdict's arguments are converted at every call. Any other
// value, or one structpb refuses, goes to structpb.NewStruct, which says why.
func newStruct(m map[string]any) (*structpb.Struct, error) {
	if !convertible(m, 0) {
		return structpb.NewStruct(m)
	}
	return structOf(m), nil
}

// maxBatchDepth bounds convertible's recursion; deeper values, which the
// depth limit on requests already refuses, go to structpb.
const maxBatchDepth = 128

// convertible says whether structOf can convert v: every value is of a kind
// it batches and valid as structpb requires (UTF-8 strings and keys,
// numbers that parse as float64).
func convertible(v any, depth int) bool {
	if depth > maxBatchDepth {
		return false
	}
	switch x := v.(type) {
	case nil, bool:
		return true
	case string:
		return utf8.ValidString(x)
	case json.Number:
		_, err := x.Float64()
		return err == nil
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) || !convertible(e, depth+1) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !convertible(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// values allocates n Values with their kinds in a few blocks.
type values struct {
	vals    []structpb.Value
	strs    []structpb.Value_StringValue
	nums    []structpb.Value_NumberValue
	structs []structpb.Value_StructValue
	lists   []structpb.Value_ListValue
}

func newValues(n int) *values {
	return &values{vals: make([]structpb.Value, n)}
}

// value converts a convertible v into the next Value.
func (vs *values) value(v any) *structpb.Value {
	out := &vs.vals[0]
	vs.vals = vs.vals[1:]
	switch x := v.(type) {
	case nil:
		out.Kind = &structpb.Value_NullValue{}
	case bool:
		out.Kind = &structpb.Value_BoolValue{BoolValue: x}
	case string:
		if vs.strs == nil {
			vs.strs = make([]structpb.Value_StringValue, len(vs.vals)+1)
		}
		k := &vs.strs[0]
		vs.strs = vs.strs[1:]
		k.StringValue = x
		out.Kind = k
	case json.Number:
		f, _ := x.Float64()
		if vs.nums == nil {
			vs.nums = make([]structpb.Value_NumberValue, len(vs.vals)+1)
		}
		k := &vs.nums[0]
		vs.nums = vs.nums[1:]
		k.NumberValue = f
		out.Kind = k
	case map[string]any:
		if vs.structs == nil {
			vs.structs = make([]structpb.Value_StructValue, len(vs.vals)+1)
		}
		k := &vs.structs[0]
		vs.structs = vs.structs[1:]
		k.StructValue = structOf(x)
		out.Kind = k
	case []any:
		if vs.lists == nil {
			vs.lists = make([]structpb.Value_ListValue, len(vs.vals)+1)
		}
		k := &vs.lists[0]
		vs.lists = vs.lists[1:]
		k.ListValue = listOf(x)
		out.Kind = k
	}
	return out
}

// structOf converts a convertible object.
func structOf(m map[string]any) *structpb.Struct {
	out := &structpb.Struct{Fields: make(map[string]*structpb.Value, len(m))}
	vs := newValues(len(m))
	for k, e := range m {
		out.Fields[k] = vs.value(e)
	}
	return out
}

// listOf converts a convertible list.
func listOf(l []any) *structpb.ListValue {
	out := &structpb.ListValue{Values: make([]*structpb.Value, len(l))}
	vs := newValues(len(l))
	for i, e := range l {
		out.Values[i] = vs.value(e)
	}
	return out
}

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
// value, or one structpb refuses, makes it start again with
// structpb.NewStruct, which says why.
func newStruct(m map[string]any) (*structpb.Struct, error) {
	if st, ok := structOf(m, 0); ok {
		return st, nil
	}
	return structpb.NewStruct(m)
}

// maxBatchDepth bounds the batched conversion's recursion; deeper values,
// which the depth limit on requests already refuses, go to structpb.
const maxBatchDepth = 128

// values hands out an object's or list's Values, with their kinds
// allocated a block per kind.
type values struct {
	vals    []structpb.Value
	strs    []structpb.Value_StringValue
	nums    []structpb.Value_NumberValue
	structs []structpb.Value_StructValue
	lists   []structpb.Value_ListValue
}

// value converts v into the next Value; false for a value structOf does
// not convert: another kind, or one invalid as structpb requires (a string
// that is not UTF-8, a number that does not parse as float64).
func (vs *values) value(v any, depth int) (*structpb.Value, bool) {
	out := &vs.vals[0]
	vs.vals = vs.vals[1:]
	switch x := v.(type) {
	case nil:
		out.Kind = &structpb.Value_NullValue{}
	case bool:
		out.Kind = &structpb.Value_BoolValue{BoolValue: x}
	case string:
		if !utf8.ValidString(x) {
			return nil, false
		}
		if vs.strs == nil {
			vs.strs = make([]structpb.Value_StringValue, len(vs.vals)+1)
		}
		k := &vs.strs[0]
		vs.strs = vs.strs[1:]
		k.StringValue = x
		out.Kind = k
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, false
		}
		if vs.nums == nil {
			vs.nums = make([]structpb.Value_NumberValue, len(vs.vals)+1)
		}
		k := &vs.nums[0]
		vs.nums = vs.nums[1:]
		k.NumberValue = f
		out.Kind = k
	case map[string]any:
		st, ok := structOf(x, depth+1)
		if !ok {
			return nil, false
		}
		if vs.structs == nil {
			vs.structs = make([]structpb.Value_StructValue, len(vs.vals)+1)
		}
		k := &vs.structs[0]
		vs.structs = vs.structs[1:]
		k.StructValue = st
		out.Kind = k
	case []any:
		l, ok := listOf(x, depth+1)
		if !ok {
			return nil, false
		}
		if vs.lists == nil {
			vs.lists = make([]structpb.Value_ListValue, len(vs.vals)+1)
		}
		k := &vs.lists[0]
		vs.lists = vs.lists[1:]
		k.ListValue = l
		out.Kind = k
	default:
		return nil, false
	}
	return out, true
}

// structOf converts an object in one pass, or says it cannot.
func structOf(m map[string]any, depth int) (*structpb.Struct, bool) {
	if depth > maxBatchDepth {
		return nil, false
	}
	// The Struct and its values' bookkeeping in one allocation.
	blk := &struct {
		st structpb.Struct
		vs values
	}{vs: values{vals: make([]structpb.Value, len(m))}}
	blk.st.Fields = make(map[string]*structpb.Value, len(m))
	for k, e := range m {
		if !utf8.ValidString(k) {
			return nil, false
		}
		v, ok := blk.vs.value(e, depth)
		if !ok {
			return nil, false
		}
		blk.st.Fields[k] = v
	}
	return &blk.st, true
}

// listOf converts a list in one pass, or says it cannot.
func listOf(l []any, depth int) (*structpb.ListValue, bool) {
	if depth > maxBatchDepth {
		return nil, false
	}
	blk := &struct {
		lv structpb.ListValue
		vs values
	}{vs: values{vals: make([]structpb.Value, len(l))}}
	blk.lv.Values = make([]*structpb.Value, len(l))
	for i, e := range l {
		v, ok := blk.vs.value(e, depth)
		if !ok {
			return nil, false
		}
		blk.lv.Values[i] = v
	}
	return &blk.lv, true
}

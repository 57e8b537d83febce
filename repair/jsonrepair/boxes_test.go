package jsonrepair

import (
	"encoding/json"
	"reflect"
	"runtime"
	"strconv"
	"testing"
)

// TestBoxes: a string boxed from a slab is the string as a value: its
// type, its text, equality, reflection and encoding agree with the
// compiler's boxing, after collections and across slabs.
func TestBoxes(t *testing.T) {
	var b boxes
	var got []any
	for i := range 3 * maxBoxes {
		got = append(got, b.box("value "+strconv.Itoa(i)))
	}
	got = append(got, b.box(""))
	runtime.GC()
	runtime.GC()
	for i, v := range got {
		want := "value " + strconv.Itoa(i)
		if i == len(got)-1 {
			want = ""
		}
		s, ok := v.(string)
		if !ok || s != want {
			t.Fatalf("box %d: %#v, want %q", i, v, want)
		}
		if v != any(want) || !reflect.DeepEqual(v, any(want)) || reflect.TypeOf(v).Kind() != reflect.String {
			t.Fatalf("box %d: %#v differs from the compiler's boxing of %q", i, v, want)
		}
		if enc, err := json.Marshal(v); err != nil || string(enc) != strconv.Quote(want) {
			t.Fatalf("box %d encodes as %s (%v)", i, enc, err)
		}
	}
}

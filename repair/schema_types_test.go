package repair

import (
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestTypesOf(t *testing.T) {
	tests := []struct {
		types []string
		want  jsonTypes
	}{
		{nil, 0},
		{[]string{"null"}, typeNull},
		{[]string{"boolean"}, typeBoolean},
		{[]string{"integer"}, typeInteger},
		{[]string{"number"}, typeNumber},
		{[]string{"string"}, typeString},
		{[]string{"array"}, typeArray},
		{[]string{"object"}, typeObject},
		{[]string{"string", "null", "array"}, typeString | typeNull | typeArray},
	}
	for _, tt := range tests {
		s := &jsonschema.Schema{}
		if tt.types != nil {
			s.Types = new(jsonschema.Types)
			for _, n := range tt.types {
				s.Types.Add(n)
			}
		}
		if got := typesOf(s); got != tt.want {
			t.Errorf("typesOf(%v) = %b, want %b", tt.types, got, tt.want)
		}
	}
}

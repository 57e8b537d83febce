package protoapi

import (
	"testing"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// TestJSONStable pins the exact bytes JSON prints. protojson varies its
// whitespace by a hash of the binary ("ok":  true from one build, "ok": true
// from another), so without JSON's own formatting these would fail in some
// builds and pass in others; scripts/e2e.sh compares two builds' output.
func TestJSONStable(t *testing.T) {
	m := &toolguardv1.Repair{Code: "JSON_REPAIRED", Param: "content", Detail: "a \"quoted\" <b> & ü"}
	tests := []struct {
		multiline bool
		want      string
	}{
		{false, `{"code":"JSON_REPAIRED","param":"content","detail":"a \"quoted\" <b> & ü"}`},
		{true, "{\n  \"code\": \"JSON_REPAIRED\",\n  \"param\": \"content\",\n  \"detail\": \"a \\\"quoted\\\" <b> & ü\"\n}"},
	}
	for _, tt := range tests {
		for range 3 {
			got, err := JSON(m, tt.multiline)
			if err != nil || string(got) != tt.want {
				t.Fatalf("JSON(multiline %v) = %q, %v; want %q", tt.multiline, got, err, tt.want)
			}
		}
	}
}

package observe

import "testing"

func TestNewLogger(t *testing.T) {
	for _, format := range []string{"json", "console"} {
		if _, err := NewLogger(format, "debug"); err != nil {
			t.Errorf("NewLogger(%q, debug): %v", format, err)
		}
	}
	if _, err := NewLogger("xml", "info"); err == nil {
		t.Error("NewLogger with format xml succeeded")
	}
	if _, err := NewLogger("json", "loud"); err == nil {
		t.Error("NewLogger with level loud succeeded")
	}
}

package observe

import (
	"bytes"
	"encoding/json"
	"maps"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

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

func TestNewLoggerTo(t *testing.T) {
	var buf bytes.Buffer
	log, err := NewLoggerTo(zapcore.AddSync(&buf), "json", "warn")
	if err != nil {
		t.Fatal(err)
	}
	log.Info("dropped")
	log.Warn("kept", zap.String("k", "v"))
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("want one JSON line, got %q: %v", buf.String(), err)
	}
	delete(line, "ts")
	delete(line, "caller")
	want := map[string]any{"level": "warn", "msg": "kept", "k": "v"}
	if !maps.Equal(line, want) {
		t.Errorf("line = %v, want %v plus ts and caller", line, want)
	}
}

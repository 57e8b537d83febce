//go:build linux

package session

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
)

// BenchmarkMemoryFillRSS fills a store with one million idle sessions, as
// BenchmarkMemoryIdleSessions does, and reports the process's resident
// memory above its level before the fill: its peak while filling (the
// kernel's high-water mark, reset before the fill) and its level at the
// end, with the collector at the server's settings (GOGC=100, no memory
// limit).
func BenchmarkMemoryFillRSS(b *testing.B) {
	const sessions = 1_000_000
	ctx := context.Background()
	var peak, end, heap float64
	for b.Loop() {
		runtime.GC()
		debug.FreeOSMemory()
		resetPeak(b)
		base := procStatus(b, "VmRSS:")
		m := NewMemory(MemoryOptions{MaxSessions: 2 * sessions})
		var buf [36]byte
		for i := range sessions {
			uuidString(&buf, uint64(i))
			if _, err := m.Record(ctx, string(buf[:]), Outcome{Usable: true, Fingerprint: uint64(i) + 1}); err != nil {
				b.Fatal(err)
			}
		}
		top := procStatus(b, "VmHWM:")
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak, end, heap = float64(top-base)/1e6, float64(procStatus(b, "VmRSS:")-base)/1e6, float64(ms.HeapAlloc)/1e6
		runtime.KeepAlive(m)
		m.Close()
	}
	b.ReportMetric(peak, "peak-RSS-MB")
	b.ReportMetric(end, "end-RSS-MB")
	b.ReportMetric(heap, "heap-MB")
}

// resetPeak resets the process's resident high-water mark (VmHWM).
func resetPeak(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Fatalf("resetting the resident peak: %v", err)
	}
}

// procStatus returns a field of /proc/self/status given in kB, in bytes.
func procStatus(b *testing.B, field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(line, []byte(field)); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}

package budget

import (
	"sync"
	"testing"
)

// TestBytes: draws past the limit are refused whole, releases make room,
// and concurrent holders never hold more than the limit together.
func TestBytes(t *testing.T) {
	b := New(100)
	if !b.Grow(60) || b.Grow(41) || !b.Grow(40) || b.Used() != 100 {
		t.Fatalf("used %d after 60, refused 41, 40", b.Used())
	}
	b.Release(60)
	if !b.Grow64(60) || b.Used() != 100 {
		t.Fatalf("used %d after releasing 60 and drawing it again", b.Used())
	}
	b.Release64(100)

	var wg sync.WaitGroup
	var mu sync.Mutex
	peak := int64(0)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				if b.Grow(30) {
					mu.Lock()
					peak = max(peak, b.Used())
					mu.Unlock()
					b.Release(30)
				}
			}
		}()
	}
	wg.Wait()
	if peak > 100 || b.Used() != 0 {
		t.Errorf("peak %d of 100, %d still drawn", peak, b.Used())
	}
}
